package approval

import (
	"fmt"
	"net/http"
	"time"

	"github.com/telark/protectionplans/plan"
)

// ForbiddenError says the caller may not do an action, and why, in words a
// person can act on. Its code is 403.
type ForbiddenError struct {
	// Username is the caller ("" when unknown).
	Username string
	// Action is the refused action.
	Action Action
	// Reason says why and what to do instead.
	Reason string
}

func (e *ForbiddenError) Error() string {
	who := e.Username
	if who == "" {
		who = "the caller"
	}
	return fmt.Sprintf("%s may not %s: %s", who, e.Action, e.Reason)
}

// HTTPCode is 403.
func (e *ForbiddenError) HTTPCode() int { return http.StatusForbidden }

// StaleRequestError refuses a decision that does not answer the open
// approval request: the request it names was replaced by a newer one (an
// edit or a reactivation) or was already decided (a concurrent decision
// won). Re-read the plan; decide Open if it is set. Its code is 409.
type StaleRequestError struct {
	// RequestID is the request the refused decision named.
	RequestID string
	// Open is the request open now, "" when none is.
	Open string
	// Decided is the decision that answered RequestID, when it is the last
	// decision recorded on the plan.
	Decided *plan.ApprovalDecision
}

func (e *StaleRequestError) Error() string {
	if e.Decided == nil {
		return fmt.Sprintf("stale decision: request %q was replaced by %q; re-read the plan and decide %q",
			e.RequestID, e.Open, e.Open)
	}
	msg := fmt.Sprintf("stale decision: request %q was already %s by %s at %s", e.RequestID,
		e.Decided.Decision, e.Decided.DecidedBy, e.Decided.DecidedAt.UTC().Format(time.RFC3339))
	if e.Open != "" {
		msg += fmt.Sprintf("; request %q is open now: re-read the plan and decide that one", e.Open)
	}
	return msg
}

// HTTPCode is 409.
func (e *StaleRequestError) HTTPCode() int { return http.StatusConflict }

// ParseError is a permission string that cannot be parsed. It quotes the
// input. Its code is 400.
type ParseError struct {
	Input  string
	Reason string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("permission %q: %s", e.Input, e.Reason)
}

// HTTPCode is 400.
func (e *ParseError) HTTPCode() int { return http.StatusBadRequest }

var (
	_ plan.Coder = (*ForbiddenError)(nil)
	_ plan.Coder = (*StaleRequestError)(nil)
	_ plan.Coder = (*ParseError)(nil)
)
