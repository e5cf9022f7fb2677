package plan

import (
	"fmt"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

// Tick is the pure transition function. The operator calls it on every
// tick (Config.TickInterval) and when the timer set to Result.NextEdge
// fires, then stores Result.Plan and puts the policies of an active plan in
// place (or withdraws those of any other phase).
//
// From each phase:
//
//   - pending_approval with an open request stays (NextEdge nil).
//   - pending_approval without an open request resolves: the approval
//     package decides a request by setting LastDecision, clearing
//     ApprovalRequest and Proposers and appending its event, then calls
//     Tick. An approval (or no decision at all) moves the plan to the
//     phase its window asks for; a rejection moves it to canceled. This
//     holds whatever placeholder phase the plan held.
//   - scheduled becomes active when the window opens; active becomes
//     scheduled between two occurrences of a recurring window (a plan is
//     armed only inside occurrences) and terminated once the window has
//     ended for good (window.Ended). A permanent window never ends.
//   - failed is retried: the plan moves to the phase its window asks for as
//     if it had not failed. If that is active, the retry appends no event
//     and sets Ready to Unknown (reason Retrying); the operator calls Fail
//     again if putting the plan in place fails again (the same failure
//     then appends nothing), and a later Tick that finds the plan still
//     active and Retrying records that it recovered.
//   - canceled and terminated stay (NextEdge nil).
//   - a plan without a phase (not created yet) is returned unchanged.
//
// A window that cannot be parsed fails the plan (reason InvalidWindow).
// Tick is idempotent: ticking twice at the same instant appends no event
// the second time. opts reach window.Parse: the embedder passes the
// occurrences of the calendars the window names there
// (window.WithCalendar; package reconcile does).
func Tick(p *ProtectionPlan, now time.Time, opts ...window.Option) Result {
	c := begin(p, now)
	st := &c.p.Status
	switch {
	case st.Phase == "":
		return Result{Plan: c.p}
	case st.Phase == PhaseCanceled || st.Phase == PhaseTerminated:
		st.NextEdge = nil
		return c.result()
	case st.ApprovalRequest != nil:
		st.Phase, st.NextEdge = PhasePendingApproval, nil
		return c.result()
	case st.Phase == PhasePendingApproval && st.LastDecision != nil && st.LastDecision.Decision == DecisionRejected:
		c.cancel("", "rejected by "+st.LastDecision.DecidedBy)
		return c.result()
	}
	w, err := window.Parse(c.p.Spec.Window, opts...)
	if err != nil {
		c.fail(ReasonInvalidWindow, err.Error())
		return c.result()
	}
	st.Window = w.Describe()
	c.follow(targetOf(w, now), "")
	return c.result()
}

// follow moves a scheduled, active, failed or decided plan to t.
func (c *change) follow(t windowTarget, actor string) {
	st := &c.p.Status
	ready := meta.FindStatusCondition(st.Conditions, ConditionReady)
	switch {
	case st.Phase == PhaseFailed && t.phase == PhaseActive:
		c.retry(t, ready)
	case st.Phase == PhaseActive && t.phase == PhaseActive && isRetrying(ready) && c.now.After(ready.LastTransitionTime.Time):
		c.enter(t)
		c.record(EventRecovered, "", "the plan was put in place again after: "+ready.Message)
	case st.Phase == PhaseActive && t.phase == PhaseActive && isRetrying(ready):
		st.NextEdge = metaTime(t.next)
	default:
		c.moveTo(t, actor, phaseMessage(st.Phase, t))
	}
}

// retry moves a failed plan back to active without an event.
func (c *change) retry(t windowTarget, ready *metav1.Condition) {
	failure := "an earlier failure"
	if ready != nil {
		failure = ready.Reason + ": " + ready.Message
	}
	st := &c.p.Status
	st.Phase, st.NextEdge = PhaseActive, metaTime(t.next)
	if st.StartedAt == nil {
		st.StartedAt = &metav1.Time{Time: c.now}
	}
	c.setCondition(ConditionReady, metav1.ConditionUnknown, ReasonRetrying, retryMessage(failure))
}

func retryMessage(failure string) string { return "retrying after " + failure }

func isRetrying(c *metav1.Condition) bool {
	return c != nil && c.Status == metav1.ConditionUnknown && c.Reason == ReasonRetrying
}

func phaseMessage(from Phase, t windowTarget) string {
	prefix := ""
	switch from {
	case PhasePendingApproval:
		prefix = "approved; "
	case PhaseFailed:
		prefix = "no longer failed; "
	}
	switch {
	case t.phase == PhaseActive:
		return prefix + "the window is open" + until(t.next)
	case t.phase == PhaseTerminated:
		return prefix + "the window ended"
	case from == PhaseActive && t.next != nil:
		return prefix + "the window closed; it opens again at " + formatTime(*t.next)
	case t.next != nil:
		return prefix + "the window opens at " + formatTime(*t.next)
	}
	return prefix + "the window is not open"
}

// Fail records that the plan cannot be put in place: the policy API is not
// installed, a namespace in scope disappeared, the cluster refused its
// policies. The operator calls it after an active plan could not be put
// in place. The plan becomes failed with Ready False (reason, message) and
// a Failed event; the next Tick retries. Failing again the same way after
// a retry appends no event, so a lasting failure does not flood the
// timeline. reason must be CamelCase (see the Reason constants).
//
// Only a plan meant to be in place can fail: Fail refuses (409) a plan
// that is pending_approval, canceled, terminated or not created.
func Fail(p *ProtectionPlan, reason, message string, now time.Time) (Result, error) {
	switch p.Status.Phase {
	case PhaseActive, PhaseScheduled, PhaseFailed:
	default:
		return Result{}, refuse("fail", p, http.StatusConflict, nil,
			fmt.Sprintf("a %s plan has nothing in place that could fail", phaseName(p.Status.Phase)))
	}
	c := begin(p, now)
	c.fail(reason, message)
	return c.result(), nil
}

func (c *change) fail(reason, message string) {
	if reason == "" {
		reason = "Failed"
	}
	st := &c.p.Status
	ready := meta.FindStatusCondition(st.Conditions, ConditionReady)
	same := ready != nil &&
		(st.Phase == PhaseFailed && ready.Reason == reason && ready.Message == message ||
			isRetrying(ready) && ready.Message == retryMessage(reason+": "+message))
	st.Phase = PhaseFailed
	c.setCondition(ConditionReady, metav1.ConditionFalse, reason, message)
	if !same {
		c.record(EventFailed, "", reason+": "+message)
		return
	}
	// The same failure after a retry: Ready went False -> Unknown -> False
	// within one pass and must read as it did before the retry, with the
	// time the failure began (its timeline entry), or an embedder that
	// writes only changes would write on every tick of a lasting failure.
	if since, ok := c.failedSince(reason + ": " + message); ok {
		meta.FindStatusCondition(st.Conditions, ConditionReady).LastTransitionTime = since
	}
}

// failedSince is the time of the latest Failed timeline event with msg.
func (c *change) failedSince(msg string) (metav1.Time, bool) {
	tl := c.p.Status.Timeline
	for i := len(tl) - 1; i >= 0; i-- {
		if tl[i].Type == EventFailed && tl[i].Message == msg {
			return tl[i].Time, true
		}
	}
	return metav1.Time{}, false
}

// phaseName names a phase in messages, "uncreated" for none.
func phaseName(p Phase) string {
	if p == "" {
		return "not yet created"
	}
	return string(p)
}
