package approval

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// MaxCommentLength is the longest decision comment, in characters. The
// comment goes into the timeline, the Approved condition and reports.
const MaxCommentLength = 1024

// Verdict is an approver's answer to an approval request.
type Verdict struct {
	// RequestID is the ID of the request answered, as the approver saw it
	// (plan.Status.ApprovalRequest.ID). It must be the open request's ID.
	RequestID string
	// Decision is approved or rejected.
	Decision plan.Decision
	// Comment is mandatory for a rejection (after trimming spaces) and
	// optional for an approval; at most MaxCommentLength characters.
	Comment string
}

// Approve is Decide with an approval and no comment.
func Approve(p *plan.ProtectionPlan, requestID string, caller Caller, now time.Time, opts ...window.Option) (plan.Result, error) {
	return Decide(p, Verdict{RequestID: requestID, Decision: plan.DecisionApproved}, caller, now, opts...)
}

// Reject is Decide with a rejection; comment is mandatory.
func Reject(p *plan.ProtectionPlan, requestID string, caller Caller, comment string, now time.Time, opts ...window.Option) (plan.Result, error) {
	return Decide(p, Verdict{RequestID: requestID, Decision: plan.DecisionRejected, Comment: comment}, caller, now, opts...)
}

// Decide answers p's open approval request (R-A4, R-A5) and returns the
// decided plan as a copy; p is never changed.
//
// Refused, in the order checked:
//   - a decision other than approved or rejected (400 on "decision");
//   - a caller who is not an approver, or has no username (403, see
//     MayDecide);
//   - a rejection without a comment, or a comment over MaxCommentLength
//     (400 on "comment"); a verdict that names no request (400 on
//     "requestID");
//   - a request ID that is not the open request's: it was replaced by a
//     newer request, or already decided (*StaleRequestError, 409); no
//     request open at all (*plan.ActionError, 409);
//   - a caller who put the current version up for approval (403).
//
// An approval records LastDecision, clears the request and the proposers,
// appends an Approved event and lets plan.Tick move the plan to the phase
// its window asks for at now: scheduled, active, or terminated if the
// window ended while it waited. A rejection records LastDecision (with
// the trimmed comment), clears the request and the proposers, appends a
// Rejected event and lets plan.Tick cancel the plan. Result.Events holds
// the decision's event followed by Tick's.
//
// The check of the request ID is the compare half of a compare-and-set;
// the embedder's conditional write is the set half (see the package
// documentation). opts reach plan.Tick: the occurrences of the calendars
// the window's exceptions name (window.WithCalendar), so that a plan
// approved on a holiday does not become active for a pass.
func Decide(p *plan.ProtectionPlan, v Verdict, caller Caller, now time.Time, opts ...window.Option) (plan.Result, error) {
	action, err := verdictAction(p, v)
	if err != nil {
		return plan.Result{}, err
	}
	if err := checkApprover(p, caller); err != nil {
		return plan.Result{}, err
	}
	comment := strings.TrimSpace(v.Comment)
	if err := checkVerdict(p, v, action, comment); err != nil {
		return plan.Result{}, err
	}
	if err := checkRequest(p, v.RequestID, action); err != nil {
		return plan.Result{}, err
	}
	if err := checkProposer(p, caller); err != nil {
		return plan.Result{}, err
	}
	return decided(p, v, comment, caller.Username, now, opts), nil
}

// decided applies a checked verdict to a copy of p.
func decided(p *plan.ProtectionPlan, v Verdict, comment, by string, now time.Time, opts []window.Option) plan.Result {
	q := p.DeepCopy()
	st := &q.Status
	st.LastDecision = &plan.ApprovalDecision{
		RequestID: v.RequestID,
		Decision:  v.Decision,
		DecidedBy: by,
		DecidedAt: metav1.NewTime(now),
		Comment:   comment,
	}
	st.ApprovalRequest, st.Proposers = nil, nil
	ev := plan.TimelineEvent{Time: metav1.NewTime(now), Type: plan.EventApproved, Actor: by,
		Phase: st.Phase, Message: fmt.Sprintf("approval request %s approved", v.RequestID)}
	if v.Decision == plan.DecisionRejected {
		ev.Type = plan.EventRejected
		ev.Message = fmt.Sprintf("approval request %s rejected", v.RequestID)
	}
	if comment != "" {
		ev.Message += ": " + comment
	}
	plan.AppendEvent(q, ev)
	res := plan.Tick(q, now, opts...)
	res.Events = append([]plan.TimelineEvent{ev}, res.Events...)
	return res
}

// verdictAction names the lifecycle action of a verdict ("approve" or
// "reject") for errors.
func verdictAction(p *plan.ProtectionPlan, v Verdict) (string, error) {
	switch v.Decision {
	case plan.DecisionApproved:
		return "approve", nil
	case plan.DecisionRejected:
		return "reject", nil
	}
	return "", &plan.ActionError{Action: "decide", Phase: p.Status.Phase, Code: http.StatusBadRequest,
		Field:  field.NewPath("decision"),
		Reason: fmt.Sprintf("unknown decision %q; use %q or %q", v.Decision, plan.DecisionApproved, plan.DecisionRejected)}
}

// checkVerdict refuses a verdict that is malformed whatever the plan's
// state: a missing or over-long comment, a missing request ID.
func checkVerdict(p *plan.ProtectionPlan, v Verdict, action, comment string) error {
	bad := func(fld, reason string) error {
		return &plan.ActionError{Action: action, Phase: p.Status.Phase, Code: http.StatusBadRequest,
			Field: field.NewPath(fld), Reason: reason}
	}
	switch {
	case v.Decision == plan.DecisionRejected && comment == "":
		return bad("comment", "a rejection needs a comment saying why")
	case utf8.RuneCountInString(comment) > MaxCommentLength:
		return bad("comment", fmt.Sprintf("the comment has %d characters; at most %d are allowed",
			utf8.RuneCountInString(comment), MaxCommentLength))
	case v.RequestID == "":
		return bad("requestID", "a decision must name the approval request it answers (status.approvalRequest.id)")
	}
	return nil
}

// checkRequest is the compare of the compare-and-set: id must be the open
// request's ID.
func checkRequest(p *plan.ProtectionPlan, id, action string) error {
	st := p.Status
	open := ""
	if st.ApprovalRequest != nil {
		open = st.ApprovalRequest.ID
	}
	switch {
	case open != "" && open == id:
		return nil
	case st.LastDecision != nil && st.LastDecision.RequestID == id:
		return &StaleRequestError{RequestID: id, Open: open, Decided: st.LastDecision.DeepCopy()}
	case open != "":
		return &StaleRequestError{RequestID: id, Open: open}
	}
	return noOpenRequest(action, p)
}
