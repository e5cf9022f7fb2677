package plan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Conditions in the kstatus convention (sigs.k8s.io/cli-utils/pkg/kstatus),
// which GitOps engines (Flux, Argo CD through kstatus-based tools,
// kubectl-based pipelines) read to judge whether an applied object has
// taken effect. They sit beside Ready, Approved and PoliciesHealthy and are
// derived from the phase and Ready by every lifecycle step.
//
// kstatus computes a plan's status in this order: metadata.generation not
// yet observed (status.observedGeneration behind) is InProgress;
// Reconciling True is InProgress; Stalled True is Failed; then Ready: True
// is Current, False or Unknown is InProgress. So, per phase:
//
//   - scheduled, active and terminated: Current (Ready True; the plan is
//     in the phase its window asks for).
//   - active while retrying after a failure (Ready Unknown, reason
//     Retrying): InProgress, Reconciling True.
//   - failed: Failed, Stalled True with Ready's reason and message (the
//     next tick retries; kstatus reports the failure meanwhile).
//   - canceled (or rejected): Failed, Stalled True, reason Canceled. The
//     plan will never take effect unless a person reactivates it: the
//     state a GitOps source declared is not reached, and nothing the
//     controller does will reach it. kstatus has no "suspended" status.
//   - pending_approval: InProgress, from Ready False (reason
//     PendingApproval, the message names the request); Reconciling and
//     Stalled are False. Waiting for an approver is a step the workflow
//     expects, not a fault, so it is not Failed; and kstatus has no
//     "waiting" status, while Current needs Ready True, which would
//     contradict Ready's meaning (nothing is in place until someone
//     decides). A tool that waits for Current therefore waits for the
//     decision, and its timeout names the approval request. Argo CD,
//     which has Suspended, reads it as Suspended (config/argocd).
//
// A plan the controller has not seen yet has no status: kstatus reads it
// as Current (it has no observedGeneration to compare); the Argo CD health
// check reads it as Progressing.
const (
	// ConditionReconciling is True while the controller is still working
	// toward the phase the plan should be in: a failed plan being retried.
	ConditionReconciling = "Reconciling"
	// ConditionStalled is True when the plan will not take effect without
	// a person: it failed (the next tick retries) or it was canceled or
	// rejected.
	ConditionStalled = "Stalled"
)

// KStatus is how kstatus reads a plan: Current, InProgress or Failed (the
// names of sigs.k8s.io/cli-utils/pkg/kstatus/status).
type KStatus string

// The kstatus statuses a plan can have.
const (
	KStatusCurrent    KStatus = "Current"
	KStatusInProgress KStatus = "InProgress"
	KStatusFailed     KStatus = "Failed"
)

// KStatusOf computes the plan's kstatus status from its status the way
// kstatus does (the generation, then Reconciling, Stalled and Ready), so
// that the library documents and tests the convention without depending
// on cli-utils. The examples module checks it against kstatus itself.
func KStatusOf(p *ProtectionPlan) KStatus {
	st := p.Status
	if st.ObservedGeneration != 0 && st.ObservedGeneration != p.Generation {
		return KStatusInProgress
	}
	if meta.IsStatusConditionTrue(st.Conditions, ConditionReconciling) {
		return KStatusInProgress
	}
	if meta.IsStatusConditionTrue(st.Conditions, ConditionStalled) {
		return KStatusFailed
	}
	if c := meta.FindStatusCondition(st.Conditions, ConditionReady); c != nil && c.Status != metav1.ConditionTrue {
		return KStatusInProgress
	}
	return KStatusCurrent
}

// GitOpsConditions computes Reconciling and Stalled from the plan's phase
// and Ready condition (see ConditionReconciling). It sets no times.
func GitOpsConditions(p *ProtectionPlan) (reconciling, stalled metav1.Condition) {
	reconciling = metav1.Condition{Type: ConditionReconciling, Status: metav1.ConditionFalse}
	stalled = metav1.Condition{Type: ConditionStalled, Status: metav1.ConditionFalse}
	ready := meta.FindStatusCondition(p.Status.Conditions, ConditionReady)
	readyReason, readyMessage := "", ""
	if ready != nil {
		readyReason, readyMessage = ready.Reason, ready.Message
	}
	switch phase := p.Status.Phase; {
	case phase == PhaseFailed:
		reconciling.Reason, reconciling.Message = "Failed", "the plan failed; the next tick retries it"
		stalled.Status, stalled.Reason, stalled.Message = metav1.ConditionTrue, orDefault(readyReason, "Failed"), readyMessage
	case phase == PhaseCanceled:
		reconciling.Reason, reconciling.Message = "Canceled", "a canceled plan is not reconciled"
		stalled.Status, stalled.Reason, stalled.Message = metav1.ConditionTrue, "Canceled", readyMessage
	case isRetrying(ready):
		reconciling.Status, reconciling.Reason, reconciling.Message = metav1.ConditionTrue, ReasonRetrying, readyMessage
		stalled.Reason, stalled.Message = ReasonRetrying, "the plan is being put in place again"
	case phase == PhasePendingApproval:
		reconciling.Reason = "PendingApproval"
		reconciling.Message = "nothing to reconcile until an approver decides: " + readyMessage
		stalled.Reason, stalled.Message = "PendingApproval", "waiting for an approver, which is not a fault"
	default:
		reason := phaseReason(phase)
		reconciling.Reason, reconciling.Message = reason, fmt.Sprintf("the plan is %s, as its window asks", phaseName(phase))
		stalled.Reason, stalled.Message = reason, "nothing stops the plan"
	}
	return reconciling, stalled
}

// setGitOpsConditions stores Reconciling and Stalled on c's plan. A
// condition whose status is unchanged keeps its transition time. In the
// failed phase both take Ready's transition time, the time the failure
// began (fail keeps it across retries), so that a lasting failure retried
// on every tick reads the same after each pass.
func (c *change) setGitOpsConditions() {
	reconciling, stalled := GitOpsConditions(c.p)
	SetCondition(c.p, reconciling, c.now)
	SetCondition(c.p, stalled, c.now)
	if c.p.Status.Phase != PhaseFailed {
		return
	}
	conds := c.p.Status.Conditions
	if ready := meta.FindStatusCondition(conds, ConditionReady); ready != nil {
		meta.FindStatusCondition(conds, ConditionReconciling).LastTransitionTime = ready.LastTransitionTime
		meta.FindStatusCondition(conds, ConditionStalled).LastTransitionTime = ready.LastTransitionTime
	}
}

// phaseReason is a phase as a CamelCase condition reason.
func phaseReason(p Phase) string {
	switch p {
	case PhaseScheduled:
		return "Scheduled"
	case PhaseActive:
		return "Active"
	case PhaseTerminated:
		return "Terminated"
	}
	return "NoPhase"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
