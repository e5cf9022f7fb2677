package approval

import (
	"errors"
	"slices"
)

// Built-in role names.
const (
	RoleOwner       = "Owner"
	RoleContributor = "Contributor"
	RoleViewer      = "Viewer"
)

// Role is a named set of granted actions and withheld (denied) actions on
// the protection-plans scope. The three built-in roles come from Owner,
// Contributor and Viewer; a custom role from ParseRole or a literal.
//
// Only the built-in Owner role makes its holder an Owner: approving,
// enforcing a namespace scope and asking for automatic approval need it.
// A custom role, whatever it grants and whatever its name, never does; give
// the caller Owner plus a custom role of denies to withhold some of Owner's
// actions.
type Role struct {
	// Name is for people (and for reasons in refusals).
	Name string
	// Allow are the actions the role grants.
	Allow []Action
	// Deny are the actions the role withholds. A deny in any of a caller's
	// roles wins over every grant.
	Deny []Action

	owner bool
}

var (
	viewerActions = []Action{
		ActionList, ActionGet, ActionViolations, ActionReports, ActionHealth,
	}
	contributorActions = append(slices.Clone(viewerActions),
		ActionCreate, ActionUpdate, ActionDelete, ActionCancel,
		ActionReactivate, ActionDuplicate, ActionBreakGlassRequest,
	)
)

// Owner is the built-in role that may do everything: every plan action,
// deciding approvals, enforcing namespace scopes, asking for automatic
// approval, and managing categories.
func Owner() Role {
	return Role{Name: RoleOwner, Allow: Actions(), owner: true}
}

// Contributor is the built-in role for people who run freezes: read,
// create, update, delete, cancel, reactivate and duplicate plans, and ask
// for a break-glass grant. It may not approve, grant or manage
// categories, and may not enforce a namespace scope.
func Contributor() Role {
	return Role{Name: RoleContributor, Allow: slices.Clone(contributorActions)}
}

// Viewer is the built-in read-only role: list, get, violations, reports
// and health.
func Viewer() Role {
	return Role{Name: RoleViewer, Allow: slices.Clone(viewerActions)}
}

// BuiltinRole returns the built-in role called name (Owner, Contributor or
// Viewer, exact case), and false for any other name.
func BuiltinRole(name string) (Role, bool) {
	switch name {
	case RoleOwner:
		return Owner(), true
	case RoleContributor:
		return Contributor(), true
	case RoleViewer:
		return Viewer(), true
	}
	return Role{}, false
}

// ParseRole builds a custom role from permission strings
// ("protection-plans.<action>" grants, "protection-plans.<action>.deny"
// withholds). Every bad string is reported at once, each as a *ParseError
// (joined with errors.Join; the code is 400).
func ParseRole(name string, permissions ...string) (Role, error) {
	r := Role{Name: name}
	var errs []error
	for _, s := range permissions {
		p, err := ParsePermission(s)
		switch {
		case err != nil:
			errs = append(errs, err)
		case p.Deny:
			r.Deny = append(r.Deny, p.Action)
		default:
			r.Allow = append(r.Allow, p.Action)
		}
	}
	if len(errs) > 0 {
		return Role{}, errors.Join(errs...)
	}
	return r, nil
}

// IsOwner reports whether r is the built-in Owner role.
func (r Role) IsOwner() bool { return r.owner }

// Allows reports whether r grants a (ignoring its denies).
func (r Role) Allows(a Action) bool { return slices.Contains(r.Allow, a) }

// Denies reports whether r withholds a.
func (r Role) Denies(a Action) bool { return slices.Contains(r.Deny, a) }

// Caller is who asks: the identity the embedder authenticated and the roles
// it holds on the protection-plans scope. Username is what proposers and
// decisions record. Groups are carried for the embedder (which maps users
// and groups to roles before calling the library); no rule here reads them.
type Caller struct {
	Username string
	Groups   []string
	Roles    []Role
}

// IsOwner reports whether the caller holds the built-in Owner role.
func (c Caller) IsOwner() bool {
	return slices.ContainsFunc(c.Roles, Role.IsOwner)
}

// denier returns the first role that withholds a.
func (c Caller) denier(a Action) (Role, bool) {
	i := slices.IndexFunc(c.Roles, func(r Role) bool { return r.Denies(a) })
	if i < 0 {
		return Role{}, false
	}
	return c.Roles[i], true
}

// granter returns the first role that grants a.
func (c Caller) granter(a Action) (Role, bool) {
	i := slices.IndexFunc(c.Roles, func(r Role) bool { return r.Allows(a) })
	if i < 0 {
		return Role{}, false
	}
	return c.Roles[i], true
}

func (c Caller) roleNames() []string {
	names := make([]string, len(c.Roles))
	for i, r := range c.Roles {
		names[i] = r.Name
	}
	return names
}
