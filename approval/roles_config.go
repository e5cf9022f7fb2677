package approval

import (
	"bytes"
	"errors"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// RolesConfig is an embedder's roles configuration: custom roles made of
// permission strings, and bindings of users and groups to roles. In YAML:
//
//	roles:
//	- name: Auditor
//	  permissions: [protection-plans.list, protection-plans.get, protection-plans.reports]
//	- name: No deletes
//	  permissions: [protection-plans.delete.deny]
//	bindings:
//	- role: Owner
//	  users: [alice, bob]
//	  groups: [platform-admins]
//	- role: Contributor
//	  groups: [developers]
//	- role: No deletes
//	  groups: [contractors]
//
// Owner, Contributor and Viewer are built in. A user holds every role
// bound to them or to one of their groups; a deny in any of them wins.
type RolesConfig struct {
	Roles    []RoleConfig    `json:"roles,omitempty"`
	Bindings []BindingConfig `json:"bindings"`
}

// RoleConfig is a custom role: a name and permission strings
// ("protection-plans.<action>" or "protection-plans.<action>.deny").
type RoleConfig struct {
	Name        string   `json:"name"`
	Permissions []string `json:"permissions"`
}

// BindingConfig gives one role to users and groups.
type BindingConfig struct {
	Role   string   `json:"role"`
	Users  []string `json:"users,omitempty"`
	Groups []string `json:"groups,omitempty"`
}

// RoleBindings maps users and groups to roles: a checked RolesConfig.
type RoleBindings struct {
	byUser  map[string][]Role
	byGroup map[string][]Role
	users   []string // users named in bindings, sorted
}

// ParseRoleBindings reads a RolesConfig (YAML or JSON) strictly with
// plan.Decode (unknown fields are a *plan.DecodeError with their paths)
// and checks it with NewRoleBindings.
func ParseRoleBindings(data []byte) (*RoleBindings, error) {
	var cfg RolesConfig
	if err := plan.Decode(bytes.NewReader(data), &cfg, plan.WithFormat(plan.FormatYAML)); err != nil {
		return nil, err
	}
	return NewRoleBindings(cfg)
}

// NewRoleBindings checks cfg and reports every problem at once, as a
// *plan.ValidationError with field paths (roles[1].permissions[0],
// bindings[2].role, ...): a custom role without a name, named like a
// built-in, defined twice or without permissions, a bad permission
// string, a binding of an unknown role or of nobody, an empty user or
// group name.
func NewRoleBindings(cfg RolesConfig) (*RoleBindings, error) {
	defined, errs := customRoles(cfg.Roles)
	out := &RoleBindings{byUser: map[string][]Role{}, byGroup: map[string][]Role{}}
	for i, b := range cfg.Bindings {
		fld := field.NewPath("bindings").Index(i)
		role, ok := BuiltinRole(b.Role)
		if !ok {
			role, ok = defined[b.Role]
		}
		switch {
		case !ok:
			errs = append(errs, field.NotSupported(fld.Child("role"), b.Role, roleNames(defined)))
			continue
		case len(b.Users) == 0 && len(b.Groups) == 0:
			errs = append(errs, field.Required(fld, "a binding needs users or groups"))
			continue
		}
		for j, u := range b.Users {
			if u == "" {
				errs = append(errs, field.Required(fld.Child("users").Index(j), "an empty user name"))
				continue
			}
			out.byUser[u] = append(out.byUser[u], role)
			if !slices.Contains(out.users, u) {
				out.users = append(out.users, u)
			}
		}
		for j, g := range b.Groups {
			if g == "" {
				errs = append(errs, field.Required(fld.Child("groups").Index(j), "an empty group name"))
				continue
			}
			out.byGroup[g] = append(out.byGroup[g], role)
		}
	}
	if err := plan.NewValidationError(errs); err != nil {
		return nil, err
	}
	slices.Sort(out.users)
	return out, nil
}

// customRoles checks and builds the custom roles, by name.
func customRoles(specs []RoleConfig) (map[string]Role, field.ErrorList) {
	var errs field.ErrorList
	defined := map[string]Role{}
	for i, rs := range specs {
		fld := field.NewPath("roles").Index(i)
		_, builtin := BuiltinRole(rs.Name)
		_, dup := defined[rs.Name]
		switch {
		case rs.Name == "":
			errs = append(errs, field.Required(fld.Child("name"), "a role needs a name"))
			continue
		case builtin:
			errs = append(errs, field.Invalid(fld.Child("name"), rs.Name, "is a built-in role; give the custom role another name"))
			continue
		case dup:
			errs = append(errs, field.Duplicate(fld.Child("name"), rs.Name))
			continue
		case len(rs.Permissions) == 0:
			errs = append(errs, field.Required(fld.Child("permissions"), "a role needs permissions"))
			continue
		}
		bad := false
		for j, s := range rs.Permissions {
			var pe *ParseError
			if _, err := ParsePermission(s); errors.As(err, &pe) {
				errs = append(errs, field.Invalid(fld.Child("permissions").Index(j), s, pe.Reason))
				bad = true
			}
		}
		if !bad {
			defined[rs.Name], _ = ParseRole(rs.Name, rs.Permissions...)
		}
	}
	return defined, errs
}

// roleNames lists the built-in roles, then the custom ones sorted.
func roleNames(custom map[string]Role) []string {
	names := []string{RoleOwner, RoleContributor, RoleViewer}
	var more []string
	for n := range custom {
		more = append(more, n)
	}
	slices.Sort(more)
	return append(names, more...)
}

// Caller returns the caller with the roles bound to user and groups. A
// user bound to nothing holds no role and may do nothing.
func (r *RoleBindings) Caller(user string, groups []string) Caller {
	c := Caller{Username: user, Groups: groups}
	c.Roles = append(c.Roles, r.byUser[user]...)
	for _, g := range groups {
		c.Roles = append(c.Roles, r.byGroup[g]...)
	}
	return c
}

// Candidates returns the users named in the bindings, sorted, each with
// the roles bound to them by name, for Deciders. Members of groups are
// not known here (an authenticating proxy tells who is in a group only
// when they call), so an Owner by group alone is not listed.
func (r *RoleBindings) Candidates() []Caller {
	out := make([]Caller, 0, len(r.users))
	for _, u := range r.users {
		out = append(out, r.Caller(u, nil))
	}
	return out
}
