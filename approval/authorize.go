package approval

import (
	"fmt"
	"strings"

	"github.com/telark/protectionplans/plan"
)

// Decision is the answer to "may this caller do this action?": Allowed,
// and a Reason a person can act on (which role granted it, or why not and
// what to do instead).
type Decision struct {
	Allowed bool
	Reason  string
}

// Check decides whether caller may do action to target, in this order:
//
//  1. The action must be known.
//  2. A deny wins: if any of the caller's roles withholds the action
//     (protection-plans.<action>.deny), it is refused, even for an Owner.
//  3. Some role must grant it.
//  4. Approving (deciding approval requests) needs the built-in Owner role
//     (R-A3); a custom grant of approve is not enough.
//  5. Enforcing a namespace scope needs Owner (R-A7). The rule applies to
//     the actions that put a plan's enforcement in place: create (target is
//     the new plan), update (target is the plan as edited), duplicate
//     (target is the new copy) and reactivate (target is the plan to
//     reactivate). A Contributor may therefore create audit plans on
//     namespaces and enforce plans on applications, may not create, edit,
//     duplicate or reactivate a namespace plan in enforce mode, and may
//     move one to audit. Cancel and delete lift enforcement and are not
//     subject to it; withhold them with a deny where that matters.
//
// target may be nil, e.g. to decide whether to show a "create" button
// before a plan exists; the namespace rule is then not checked, so call
// Check again with the plan before acting. Check reads target, never
// changes it.
func Check(caller Caller, action Action, target *plan.ProtectionPlan) Decision {
	if !action.Valid() {
		return deny("unknown action %q (known: %s)", action, knownActions())
	}
	if r, ok := caller.denier(action); ok {
		return deny("role %q withholds %s (%s), and a deny wins over every grant; ask whoever manages roles to lift it",
			r.Name, action, action.DenyPermission())
	}
	granter, ok := caller.granter(action)
	if !ok {
		return deny("none of your roles (%s) grants %s; it comes with %s",
			listOrNone(caller.roleNames()), action.Permission(), rolesGranting(action))
	}
	if action == ActionApprove && !caller.IsOwner() {
		return deny("approvers are Owners on protection-plans; role %q grants approve but is not Owner", granter.Name)
	}
	if enforcesNamespaces(action, target) && !caller.IsOwner() {
		return deny("enforcing a namespace scope needs Owner on protection-plans; use audit mode, scope the plan to applications, or ask an Owner")
	}
	return Decision{Allowed: true, Reason: fmt.Sprintf("granted by role %q", granter.Name)}
}

// Authorize is Check as an error: nil when allowed, otherwise a
// *ForbiddenError (403) carrying the reason.
func Authorize(caller Caller, action Action, target *plan.ProtectionPlan) error {
	d := Check(caller, action, target)
	if d.Allowed {
		return nil
	}
	return &ForbiddenError{Username: caller.Username, Action: action, Reason: d.Reason}
}

// enforcesNamespaces reports whether the action puts target's enforcement
// of a namespace scope in place.
func enforcesNamespaces(action Action, target *plan.ProtectionPlan) bool {
	switch action {
	case ActionCreate, ActionUpdate, ActionDuplicate, ActionReactivate:
	default:
		return false
	}
	return target != nil &&
		target.Spec.Mode == plan.ModeEnforce &&
		target.Spec.Scope.Type() == plan.ScopeNamespaces
}

func deny(format string, args ...any) Decision {
	return Decision{Reason: fmt.Sprintf(format, args...)}
}

// rolesGranting names the built-in roles that grant a, for refusals.
func rolesGranting(a Action) string {
	var names []string
	for _, r := range []Role{Viewer(), Contributor(), Owner()} {
		if r.Allows(a) {
			names = append(names, r.Name)
		}
	}
	if len(names) == 1 {
		return "the role " + names[0]
	}
	return "the roles " + strings.Join(names, ", ")
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
