package plan

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

// MaxTimeline is how many events a plan's timeline keeps. Older events are
// dropped and counted in Status.TimelineDropped.
const MaxTimeline = 256

// Result is what a lifecycle function returns: the new plan (a copy; the
// input is never changed), the events it appended to the timeline (also in
// Plan.Status.Timeline), and the next window edge the operator should set
// its timer to (nil when none is due: pending, canceled, terminated).
type Result struct {
	Plan     *ProtectionPlan
	Events   []TimelineEvent
	NextEdge *time.Time
}

// Failure reasons the operator passes to Fail (the Ready condition's
// reason). A reason must be CamelCase, as metav1.Condition requires.
const (
	// ReasonPolicyAPIMissing: the policy API (Kyverno, or
	// ValidatingAdmissionPolicy) is not installed.
	ReasonPolicyAPIMissing = "PolicyAPIMissing"
	// ReasonNamespaceGone: a namespace in scope disappeared.
	ReasonNamespaceGone = "NamespaceGone"
	// ReasonPoliciesRefused: the cluster refused the rendered policies.
	ReasonPoliciesRefused = "PoliciesRefused"
	// ReasonInvalidWindow: the stored window cannot be parsed (e.g. its
	// time zone is unknown to this build). Set by Tick itself.
	ReasonInvalidWindow = "InvalidWindow"
	// ReasonExcludedUnreadable: the excluded-namespace list, which a
	// namespaceSelectors scope leaves out of its selectors, could not be
	// read.
	ReasonExcludedUnreadable = "ExcludedNamespacesUnreadable"
	// ReasonRetrying: Tick moved a failed plan back into its window's
	// phase to try again.
	ReasonRetrying = "Retrying"
	// ReasonApplicationNotFound: no object carries the instance label of an
	// application in scope any more.
	ReasonApplicationNotFound = "ApplicationNotFound"
	// ReasonInvalidPlan: a plan that reached the cluster without the
	// validation of a server (kubectl apply) fails it, or render refuses
	// it.
	ReasonInvalidPlan = "InvalidPlan"
)

// AppendEvent appends ev to p's timeline, dropping the oldest events beyond
// MaxTimeline and counting them in Status.TimelineDropped. The approval
// package uses it for Approved and Rejected.
func AppendEvent(p *ProtectionPlan, ev TimelineEvent) {
	tl := append(p.Status.Timeline, ev)
	if over := len(tl) - MaxTimeline; over > 0 {
		tl = append([]TimelineEvent(nil), tl[over:]...)
		p.Status.TimelineDropped += int64(over)
	}
	p.Status.Timeline = tl
}

// SetCondition sets cond on p's status at now. LastTransitionTime becomes
// now only when the condition's status changes; ObservedGeneration is p's
// generation. It reports whether anything changed.
func SetCondition(p *ProtectionPlan, cond metav1.Condition, now time.Time) bool {
	cond.ObservedGeneration = p.Generation
	cond.LastTransitionTime = metav1.NewTime(now)
	return meta.SetStatusCondition(&p.Status.Conditions, cond)
}

// ApprovedCondition computes the Approved condition from the plan's status:
// true when no approval is required or the last decision approved the plan
// and no request is open. Tick refreshes it, so the approval package only
// sets LastDecision and clears the request.
func ApprovedCondition(p *ProtectionPlan) metav1.Condition {
	st := p.Status
	c := metav1.Condition{Type: ConditionApproved}
	switch {
	case p.Spec.ApprovalMode != ApprovalRequired:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, "NotRequired", "the plan does not require approval"
	case st.ApprovalRequest != nil:
		c.Status, c.Reason = metav1.ConditionFalse, "Pending"
		c.Message = fmt.Sprintf("waiting for a decision on approval request %s (%s)",
			st.ApprovalRequest.ID, st.ApprovalRequest.Reason)
	case st.LastDecision != nil && st.LastDecision.Decision == DecisionApproved:
		c.Status, c.Reason = metav1.ConditionTrue, "Approved"
		c.Message = fmt.Sprintf("approved by %s (request %s)", st.LastDecision.DecidedBy, st.LastDecision.RequestID)
	case st.LastDecision != nil:
		c.Status, c.Reason = metav1.ConditionFalse, "Rejected"
		c.Message = fmt.Sprintf("rejected by %s: %s", st.LastDecision.DecidedBy, st.LastDecision.Comment)
	default:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, "NotRequested", "no approval has been requested"
	}
	return c
}

// Final report triggers (FinalReportStatus.Trigger).
const (
	FinalReportEnd    = "end"
	FinalReportCancel = "cancel"
)

// finalTrigger says whether a step from phase from to st ends a started
// run, and how: a plan whose run has started (StartedAt set) that moves
// into terminated has an "end" report due, into canceled a "cancel"
// report. A plan that never started has none (a rejected plan, a plan
// canceled while it waited for its window), nor does a step that leaves
// a final phase.
func finalTrigger(from Phase, st *Status) string {
	if st.StartedAt == nil || from == PhaseTerminated || from == PhaseCanceled {
		return ""
	}
	switch st.Phase {
	case PhaseTerminated:
		return FinalReportEnd
	case PhaseCanceled:
		return FinalReportCancel
	}
	return ""
}

// change is one lifecycle step on a copy of a plan.
type change struct {
	p      *ProtectionPlan
	now    time.Time
	events []TimelineEvent
	from   Phase
}

func begin(p *ProtectionPlan, now time.Time) *change {
	return &change{p: p.DeepCopy(), now: now, from: p.Status.Phase}
}

func (c *change) record(t EventType, actor, msg string) {
	ev := TimelineEvent{Time: metav1.NewTime(c.now), Type: t, Actor: actor, Phase: c.p.Status.Phase, Message: msg}
	AppendEvent(c.p, ev)
	c.events = append(c.events, ev)
}

func (c *change) result() Result {
	st := &c.p.Status
	st.ObservedGeneration = c.p.Generation
	if trig := finalTrigger(c.from, st); trig != "" {
		st.FinalReport = &FinalReportStatus{Trigger: trig, RunEndedAt: metav1.NewTime(c.now)}
	}
	SetCondition(c.p, ApprovedCondition(c.p), c.now)
	c.setGitOpsConditions()
	r := Result{Plan: c.p, Events: c.events}
	if st.NextEdge != nil {
		t := st.NextEdge.Time
		r.NextEdge = &t
	}
	return r
}

func (c *change) setCondition(typ string, status metav1.ConditionStatus, reason, msg string) {
	SetCondition(c.p, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}, c.now)
}

// enter puts the plan in the phase its window asks for, without an event.
func (c *change) enter(t windowTarget) {
	st := &c.p.Status
	st.Phase = t.phase
	st.NextEdge = metaTime(t.next)
	if t.phase == PhaseActive && st.StartedAt == nil {
		st.StartedAt = &metav1.Time{Time: c.now}
	}
	c.setReady(t)
}

// moveTo enters t's phase and records a PhaseChanged event if the phase
// changed.
func (c *change) moveTo(t windowTarget, actor, why string) {
	from := c.p.Status.Phase
	c.enter(t)
	if from != t.phase {
		c.record(EventPhaseChanged, actor, fmt.Sprintf("%s → %s: %s", from, t.phase, why))
	}
}

// setReady sets the Ready condition for a window phase.
func (c *change) setReady(t windowTarget) {
	switch t.phase {
	case PhaseActive:
		c.setCondition(ConditionReady, metav1.ConditionTrue, "Active", "the window is open"+until(t.next))
	case PhaseScheduled:
		msg := "nothing is deployed until the window opens"
		if t.next != nil {
			msg += " at " + formatTime(*t.next)
		}
		c.setCondition(ConditionReady, metav1.ConditionTrue, "Scheduled", msg)
	case PhaseTerminated:
		c.setCondition(ConditionReady, metav1.ConditionTrue, "Terminated", "the window ended; nothing is deployed")
	}
}

// openRequest opens a new approval request (replacing an open one) and
// puts the plan in pending_approval, with nothing deployed.
func (c *change) openRequest(reason, actor string) {
	st := &c.p.Status
	replaced := st.ApprovalRequest
	st.RequestSeq++
	req := &ApprovalRequest{
		ID:          RequestID(c.p.Name, st.RequestSeq, c.now),
		Reason:      reason,
		RequestedBy: actor,
		RequestedAt: metav1.NewTime(c.now),
	}
	st.ApprovalRequest = req
	c.addProposer(actor)
	st.Phase, st.NextEdge = PhasePendingApproval, nil
	c.setCondition(ConditionReady, metav1.ConditionFalse, "PendingApproval",
		fmt.Sprintf("waiting for a decision on approval request %s; nothing is deployed", req.ID))
	msg := fmt.Sprintf("approval request %s opened (%s)", req.ID, reason)
	if replaced != nil {
		msg += fmt.Sprintf("; it replaces request %s", replaced.ID)
	}
	c.record(EventApprovalRequired, actor, msg)
}

// addProposer records that actor put the current version up for approval,
// so that the approval package never lets them decide it (R-A3).
func (c *change) addProposer(actor string) {
	st := &c.p.Status
	if actor != "" && !slices.Contains(st.Proposers, actor) {
		st.Proposers = append(st.Proposers, actor)
	}
}

// RequestID is the ID of a plan's seq-th approval request opened at now:
// "<plan ID>-r<seq>-<UTC time>", e.g. "holiday-freeze-r2-20261224T170000Z".
// The sequence makes it new within the plan; the time keeps a decision
// for a deleted plan from answering a new plan that reuses its ID.
func RequestID(planID string, seq int64, now time.Time) string {
	id := fmt.Sprintf("r%d-%s", seq, now.UTC().Format("20060102T150405Z"))
	if planID == "" {
		return id
	}
	return planID + "-" + id
}

// parseWindow compiles the plan's window, as a 400 ActionError on
// spec.window when it is invalid.
func parseWindow(p *ProtectionPlan, action string, opts ...window.Option) (*window.Window, error) {
	w, err := window.Parse(p.Spec.Window, opts...)
	if err != nil {
		return nil, refuse(action, p, http.StatusBadRequest, field.NewPath("spec", "window"), err.Error())
	}
	return w, nil
}

// refuse builds the ActionError for a refused action.
func refuse(action string, p *ProtectionPlan, code int, fld *field.Path, reason string) *ActionError {
	return &ActionError{Action: action, Phase: p.Status.Phase, Reason: reason, Code: code, Field: fld}
}

func metaTime(t *time.Time) *metav1.Time {
	if t == nil {
		return nil
	}
	return &metav1.Time{Time: *t}
}

func until(next *time.Time) string {
	if next == nil {
		return ""
	}
	return " until " + formatTime(*next)
}

// formatTime writes an instant for messages: RFC 3339 in UTC.
func formatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
