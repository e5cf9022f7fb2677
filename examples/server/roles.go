package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
)

// RolesFile is the roles configuration: custom roles made of permission
// strings, and bindings of users and groups to roles. It is read once at
// start (a change needs a restart):
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
type RolesFile struct {
	Roles    []RoleSpec    `json:"roles,omitempty"`
	Bindings []BindingSpec `json:"bindings"`
}

// RoleSpec is a custom role: a name and permission strings
// ("protection-plans.<action>" or "protection-plans.<action>.deny").
type RoleSpec struct {
	Name        string   `json:"name"`
	Permissions []string `json:"permissions"`
}

// BindingSpec gives one role to users and groups.
type BindingSpec struct {
	Role   string   `json:"role"`
	Users  []string `json:"users,omitempty"`
	Groups []string `json:"groups,omitempty"`
}

// Roles maps users and groups to roles.
type Roles struct {
	byUser  map[string][]approval.Role
	byGroup map[string][]approval.Role
	users   []string // users named in bindings, sorted
}

// LoadRoles reads and checks a roles file.
func LoadRoles(path string) (*Roles, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("roles file: %w", err)
	}
	r, err := ParseRoles(data)
	if err != nil {
		return nil, fmt.Errorf("roles file %s: %w", path, err)
	}
	return r, nil
}

// ParseRoles reads a roles file strictly (unknown fields are errors) and
// reports every problem at once: a custom role without a name, named like
// a built-in or defined twice, a bad permission string, a binding of an
// unknown role or of nobody.
func ParseRoles(data []byte) (*Roles, error) {
	var f RolesFile
	if err := plan.Decode(bytes.NewReader(data), &f, plan.WithFormat(plan.FormatYAML)); err != nil {
		return nil, err
	}
	var errs []error
	defined := map[string]approval.Role{}
	for i, rs := range f.Roles {
		_, builtin := approval.BuiltinRole(rs.Name)
		_, dup := defined[rs.Name]
		switch {
		case rs.Name == "":
			errs = append(errs, fmt.Errorf("roles[%d]: a role needs a name", i))
		case builtin:
			errs = append(errs, fmt.Errorf("roles[%d]: %q is a built-in role; give the custom role another name", i, rs.Name))
		case dup:
			errs = append(errs, fmt.Errorf("roles[%d]: role %q is defined twice", i, rs.Name))
		case len(rs.Permissions) == 0:
			errs = append(errs, fmt.Errorf("roles[%d] (%s): a role needs permissions", i, rs.Name))
		default:
			role, err := approval.ParseRole(rs.Name, rs.Permissions...)
			if err != nil {
				errs = append(errs, fmt.Errorf("roles[%d] (%s): %w", i, rs.Name, err))
				continue
			}
			defined[rs.Name] = role
		}
	}
	out := &Roles{byUser: map[string][]approval.Role{}, byGroup: map[string][]approval.Role{}}
	for i, b := range f.Bindings {
		role, ok := approval.BuiltinRole(b.Role)
		if !ok {
			role, ok = defined[b.Role]
		}
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("bindings[%d]: unknown role %q (built in: Owner, Contributor, Viewer; custom: %s)",
				i, b.Role, customNames(defined)))
			continue
		case len(b.Users) == 0 && len(b.Groups) == 0:
			errs = append(errs, fmt.Errorf("bindings[%d] (%s): a binding needs users or groups", i, b.Role))
			continue
		}
		for _, u := range b.Users {
			if u == "" {
				errs = append(errs, fmt.Errorf("bindings[%d] (%s): an empty user name", i, b.Role))
				continue
			}
			out.byUser[u] = append(out.byUser[u], role)
			if !slices.Contains(out.users, u) {
				out.users = append(out.users, u)
			}
		}
		for _, g := range b.Groups {
			if g == "" {
				errs = append(errs, fmt.Errorf("bindings[%d] (%s): an empty group name", i, b.Role))
				continue
			}
			out.byGroup[g] = append(out.byGroup[g], role)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.Sort(out.users)
	return out, nil
}

func customNames(m map[string]approval.Role) string {
	if len(m) == 0 {
		return "none"
	}
	var names []string
	for n := range m {
		names = append(names, fmt.Sprintf("%q", n))
	}
	slices.Sort(names)
	return fmt.Sprint(names)
}

// Caller returns the caller with the roles bound to user and groups. A
// user bound to nothing holds no role and may do nothing.
func (r *Roles) Caller(user string, groups []string) approval.Caller {
	c := approval.Caller{Username: user, Groups: groups}
	c.Roles = append(c.Roles, r.byUser[user]...)
	for _, g := range groups {
		c.Roles = append(c.Roles, r.byGroup[g]...)
	}
	return c
}

// Candidates returns the users named in the bindings with the roles bound
// to them by name, for approval.Deciders. Members of groups are not known
// to the server (the proxy tells who is in a group only when they call),
// so an Owner by group alone is not listed.
func (r *Roles) Candidates() []approval.Caller {
	out := make([]approval.Caller, 0, len(r.users))
	for _, u := range r.users {
		out = append(out, r.Caller(u, nil))
	}
	return out
}
