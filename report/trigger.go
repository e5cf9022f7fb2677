package report

import (
	"github.com/telark/protectionplans/plan"
)

// Trigger is why a report was made. It is a closed set.
type Trigger string

const (
	// TriggerManual is a report made on demand while or after the plan
	// runs. The newest KeepManual of a plan are kept.
	TriggerManual Trigger = "manual"
	// TriggerCancel is the final report of a run that was canceled.
	TriggerCancel Trigger = "cancel"
	// TriggerEnd is the final report of a run whose window ended.
	TriggerEnd Trigger = "end"
)

// Triggers lists every trigger.
func Triggers() []Trigger { return []Trigger{TriggerManual, TriggerCancel, TriggerEnd} }

// Final reports whether reports of t are final reports, which retention
// never prunes.
func (t Trigger) Final() bool { return t == TriggerCancel || t == TriggerEnd }

// Valid reports whether t is one of Triggers.
func (t Trigger) Valid() bool { return t == TriggerManual || t.Final() }

// ParseTrigger reads a trigger as a query parameter gives it.
func ParseTrigger(s string) (Trigger, error) {
	t := Trigger(s)
	if !t.Valid() {
		return "", &InputError{Field: "trigger", Value: s, Reason: `must be "manual", "cancel" or "end"`}
	}
	return t, nil
}

// FinalTrigger says whether a lifecycle step from before to after calls
// for a final report (R-T3), and which: a plan whose run has started
// (Status.StartedAt set) that moves into terminated makes an "end" report,
// into canceled a "cancel" report. A plan that never started makes none
// (a rejected plan, a plan canceled while it waited for its window), nor
// does a step that leaves the phase unchanged.
//
// "Started" rather than "active at that instant": a recurring plan
// canceled between two occurrences, or a failed plan canceled after it
// had run, still had a run to report. plan.Cancel keeps StartedAt for this.
func FinalTrigger(before, after *plan.ProtectionPlan) (Trigger, bool) {
	if before == nil || after == nil || after.Status.StartedAt == nil {
		return "", false
	}
	from := before.Status.Phase
	if from == plan.PhaseTerminated || from == plan.PhaseCanceled {
		return "", false
	}
	switch after.Status.Phase {
	case plan.PhaseTerminated:
		return TriggerEnd, true
	case plan.PhaseCanceled:
		return TriggerCancel, true
	}
	return "", false
}

// CheckManual says whether an on-demand report of p may be made now: once
// the plan has started its run (Status.StartedAt set), in any phase. A
// plan that has not started answers a *NotStartedError (409) saying why.
func CheckManual(p *plan.ProtectionPlan) error {
	return checkStarted(p, TriggerManual)
}

// checkStarted refuses a report of trigger t for a plan whose run has not
// started.
func checkStarted(p *plan.ProtectionPlan, t Trigger) error {
	if p.Status.StartedAt != nil {
		return nil
	}
	err := &NotStartedError{Plan: p.Name, Phase: p.Status.Phase, Trigger: t}
	switch p.Status.Phase {
	case plan.PhasePendingApproval:
		err.Reason = "the plan is waiting for approval and has not started; a report is available once it has been active"
	case plan.PhaseScheduled:
		err.Reason = "the plan is waiting for its window and has not started; a report is available once it has been active"
	case plan.PhaseCanceled, plan.PhaseTerminated:
		err.Reason = "the plan ended without ever becoming active, so there is nothing to report"
	case plan.PhaseFailed:
		err.Reason = "the plan failed before it was ever put in place, so there is nothing to report"
	case "":
		err.Reason = "the plan has not been created yet"
	default:
		err.Reason = "the plan has not started its run yet"
	}
	return err
}
