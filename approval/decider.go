package approval

import (
	"net/http"
	"slices"

	"github.com/telark/protectionplans/plan"
)

// MayDecide says whether caller may decide p's open approval request
// (approve or reject it), and returns nil when they may. The refusals, in
// the order checked:
//
//   - the caller is not an approver: an Owner on protection-plans whose
//     roles do not withhold approve (*ForbiddenError, 403);
//   - the caller has no username, so a decision could not say who made it
//     (*ForbiddenError, 403);
//   - no request is open (*plan.ActionError, 409);
//   - the caller put the current version up for approval: they are among
//     p.Status.Proposers (the creator, and whoever reactivated or
//     materially edited it since the last decision) or opened the request
//     (*ForbiddenError, 403, R-A3).
//
// MayDecide does not check which request a decision names; Decide does.
func MayDecide(p *plan.ProtectionPlan, caller Caller) error {
	if err := checkApprover(p, caller); err != nil {
		return err
	}
	if p.Status.ApprovalRequest == nil {
		return noOpenRequest("approve", p)
	}
	return checkProposer(p, caller)
}

// checkApprover refuses a caller who is not an approver or has no
// username.
func checkApprover(p *plan.ProtectionPlan, caller Caller) error {
	if err := Authorize(caller, ActionApprove, p); err != nil {
		return err
	}
	if caller.Username == "" {
		return &ForbiddenError{Action: ActionApprove,
			Reason: "the caller has no username; a decision must record who made it"}
	}
	return nil
}

// checkProposer refuses a caller who put the current version up (R-A3).
func checkProposer(p *plan.ProtectionPlan, caller Caller) error {
	if isProposer(p, caller.Username) {
		return &ForbiddenError{Username: caller.Username, Action: ActionApprove,
			Reason: "you created, reactivated or materially edited this version since the last decision; another approver must decide"}
	}
	return nil
}

// Deciders returns the usernames, sorted and without duplicates, of the
// candidates who may decide p's open request (MayDecide is nil for them):
// the Owners among them whose roles do not withhold approve, minus the
// proposers of the current version. It is what in-app notifications are
// sent to (R-A2). It is empty when no request is open. candidates are the
// users the embedder knows with their roles on protection-plans.
func Deciders(p *plan.ProtectionPlan, candidates []Caller) []string {
	var out []string
	for _, c := range candidates {
		if MayDecide(p, c) == nil {
			out = append(out, c.Username)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isProposer(p *plan.ProtectionPlan, username string) bool {
	if slices.Contains(p.Status.Proposers, username) {
		return true
	}
	req := p.Status.ApprovalRequest
	return req != nil && req.RequestedBy == username
}

func noOpenRequest(action string, p *plan.ProtectionPlan) error {
	return &plan.ActionError{Action: action, Phase: p.Status.Phase, Code: http.StatusConflict,
		Reason: "no approval request is open; only a plan in pending_approval can be decided"}
}
