package approval

import (
	"fmt"
	"strings"
)

// Action is one thing a caller can do on the protection-plans scope. Every
// action is its own permission (R-A7). The set is closed: Actions lists it.
type Action string

// Plan actions.
const (
	// ActionList lists plans (and reads the categories used to filter them).
	ActionList Action = "list"
	// ActionGet reads one plan.
	ActionGet Action = "get"
	// ActionCreate creates a plan.
	ActionCreate Action = "create"
	// ActionUpdate edits a plan.
	ActionUpdate Action = "update"
	// ActionDelete deletes a plan, and with it its reports.
	ActionDelete Action = "delete"
	// ActionCancel cancels a plan.
	ActionCancel Action = "cancel"
	// ActionReactivate reactivates a terminated, canceled or failed plan.
	ActionReactivate Action = "reactivate"
	// ActionDuplicate duplicates a plan into a new one.
	ActionDuplicate Action = "duplicate"
	// ActionApprove decides an approval request: approve or reject.
	ActionApprove Action = "approve"
	// ActionViolations reads a plan's violations feed.
	ActionViolations Action = "violations"
	// ActionReports lists, downloads and generates (on demand) a plan's
	// reports. Reports include admission decisions: withholding
	// violations alone does not hide them.
	ActionReports Action = "reports"
	// ActionHealth reads and refreshes a plan's health.
	ActionHealth Action = "health"
)

// Break-glass actions: a time-limited exemption of named users on one
// plan, requested by one person and granted by another.
const (
	// ActionBreakGlassRequest asks for a grant (and withdraws one's own).
	ActionBreakGlassRequest Action = "breakglass.request"
	// ActionBreakGlassGrant grants a request of someone else, and revokes
	// any grant.
	ActionBreakGlassGrant Action = "breakglass.grant"
)

// Category actions: the three protectionplancategory actions, which govern
// environments and tags. Reading categories needs only ActionList.
const (
	// ActionCategoriesCreate adds an environment or a tag.
	ActionCategoriesCreate Action = "categories.create"
	// ActionCategoriesUpdate renames or describes an environment or a tag.
	ActionCategoriesUpdate Action = "categories.update"
	// ActionCategoriesDelete removes an environment or a tag.
	ActionCategoriesDelete Action = "categories.delete"
)

// allActions is the closed set, in the order of the source documentation.
var allActions = [...]Action{
	ActionList, ActionGet, ActionCreate, ActionUpdate, ActionDelete,
	ActionCancel, ActionReactivate, ActionDuplicate, ActionApprove,
	ActionViolations, ActionReports, ActionHealth,
	ActionCategoriesCreate, ActionCategoriesUpdate, ActionCategoriesDelete,
	ActionBreakGlassRequest, ActionBreakGlassGrant,
}

// Actions returns every action, in a stable order (a fresh slice).
func Actions() []Action {
	return append([]Action(nil), allActions[:]...)
}

// Valid reports whether a is one of Actions.
func (a Action) Valid() bool {
	for _, x := range allActions {
		if x == a {
			return true
		}
	}
	return false
}

// Permission returns the permission string that grants a, e.g.
// "protection-plans.cancel".
func (a Action) Permission() string { return PermissionPrefix + string(a) }

// DenyPermission returns the permission string that withholds a, e.g.
// "protection-plans.cancel.deny".
func (a Action) DenyPermission() string { return a.Permission() + DenySuffix }

// Permission strings are PermissionPrefix + action, optionally followed by
// DenySuffix.
const (
	PermissionPrefix = "protection-plans."
	DenySuffix       = ".deny"
)

// Permission is a parsed permission string: it grants Action, or, when Deny
// is set, withholds it. A deny always wins over any grant.
type Permission struct {
	Action Action
	Deny   bool
}

// String returns the permission string.
func (p Permission) String() string {
	if p.Deny {
		return p.Action.DenyPermission()
	}
	return p.Action.Permission()
}

// ParsePermission parses "protection-plans.<action>" or
// "protection-plans.<action>.deny". Anything else is a *ParseError that
// quotes the input and says what is expected; matching is exact
// (lower case, no surrounding spaces).
func ParsePermission(s string) (Permission, error) {
	rest, ok := strings.CutPrefix(s, PermissionPrefix)
	if !ok {
		return Permission{}, &ParseError{Input: s, Reason: fmt.Sprintf("does not start with %q", PermissionPrefix)}
	}
	var p Permission
	if a, ok := strings.CutSuffix(rest, DenySuffix); ok {
		rest, p.Deny = a, true
	}
	p.Action = Action(rest)
	if !p.Action.Valid() {
		return Permission{}, &ParseError{Input: s, Reason: fmt.Sprintf("unknown action %q (known: %s)", rest, knownActions())}
	}
	return p, nil
}

func knownActions() string {
	names := make([]string, len(allActions))
	for i, a := range allActions {
		names[i] = string(a)
	}
	return strings.Join(names, ", ")
}
