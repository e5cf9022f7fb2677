package plan

import (
	"fmt"
	"net/http"
	"time"

	"github.com/telark/protectionplans/window"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Create starts a new plan's lifecycle. The caller has validated the plan
// (Validate) and derived spec.approvalMode (package approval); Create
// applies Defaults, so a permanent window without a start begins at now.
//
// A plan whose approvalMode is required waits in pending_approval: Create
// opens an approval request (reason "created") and makes actor its first
// proposer. Any other plan takes the phase its window asks for: scheduled,
// active (StartedAt = now) or terminated. An empty approvalMode becomes
// automatic, except in Production, where Create refuses it (400): the
// approval package must have derived required.
//
// The status the client sent is discarded. Conditions: Ready, Approved,
// PoliciesHealthy Unknown until the health check runs, and Reconciling and
// Stalled (every lifecycle step sets them; see ConditionReconciling).
// Timeline: Created, and ApprovalRequested when approval is required.
//
// opts are passed to window.Parse, as Tick's are: the occurrences of the
// calendars the window's exceptions name (window.WithCalendar), so that a
// plan created on a holiday does not start frozen for a pass.
func Create(p *ProtectionPlan, actor string, now time.Time, opts ...window.Option) (Result, error) {
	if p.Status.Phase != "" {
		return Result{}, refuse("create", p, http.StatusConflict, nil,
			"the plan was already created; edit it instead")
	}
	if p.Spec.ApprovalMode == "" && IsProduction(p.Spec.Environment) {
		return Result{}, refuse("create", p, http.StatusBadRequest, field.NewPath("spec", "approvalMode"),
			"a plan in Production requires approval, but approvalMode is not set; derive it before creating the plan")
	}
	c := begin(p, now)
	Defaults(c.p, now)
	if c.p.Spec.ApprovalMode == "" {
		c.p.Spec.ApprovalMode = ApprovalAutomatic
	}
	w, err := parseWindow(c.p, "create", opts...)
	if err != nil {
		return Result{}, err
	}
	c.p.Status = Status{Window: w.Describe()}
	c.setCondition(ConditionPoliciesHealthy, metav1.ConditionUnknown, "NotChecked", "health has not been checked yet")
	if c.p.Spec.ApprovalMode == ApprovalRequired {
		c.p.Status.Phase = PhasePendingApproval
		c.record(EventCreated, actor, createdMessage(c.p))
		c.openRequest("created", actor)
		return c.result(), nil
	}
	c.enter(targetOf(w, now))
	c.record(EventCreated, actor, createdMessage(c.p))
	return c.result(), nil
}

func createdMessage(p *ProtectionPlan) string {
	msg := "created: " + p.Status.Window
	if src := p.Annotations[DuplicatedFromAnnotation]; src != "" {
		msg = fmt.Sprintf("created as a copy of plan %s: %s", src, p.Status.Window)
	}
	return msg
}

// Cancel stops an active, scheduled, pending_approval or failed plan: it
// becomes canceled (its policies are withdrawn), an open approval request
// is withdrawn, and StartedAt is kept for the final report. Canceling a
// terminated or canceled plan is refused (409).
func Cancel(p *ProtectionPlan, actor string, now time.Time) (Result, error) {
	switch p.Status.Phase {
	case PhaseActive, PhaseScheduled, PhasePendingApproval, PhaseFailed:
	case PhaseTerminated:
		return Result{}, refuse("cancel", p, http.StatusConflict, nil,
			"the plan already terminated when its window ended; nothing is left to cancel (reactivate it to run it again)")
	case PhaseCanceled:
		return Result{}, refuse("cancel", p, http.StatusConflict, nil,
			"the plan is already canceled; reactivate it to run it again")
	default:
		return Result{}, refuse("cancel", p, http.StatusConflict, nil, "the plan has not been created yet")
	}
	c := begin(p, now)
	c.cancel(actor, "canceled by "+actorName(actor))
	return c.result(), nil
}

// cancel moves the plan to canceled and withdraws an open request.
func (c *change) cancel(actor, why string) {
	st := &c.p.Status
	from := st.Phase
	msg := fmt.Sprintf("canceled (was %s)", from)
	if st.ApprovalRequest != nil {
		msg += fmt.Sprintf("; approval request %s withdrawn", st.ApprovalRequest.ID)
		st.ApprovalRequest = nil
	}
	st.Phase, st.NextEdge = PhaseCanceled, nil
	c.setCondition(ConditionReady, metav1.ConditionFalse, "Canceled",
		why+"; reactivate the plan to run it again")
	if actor == "" {
		c.record(EventPhaseChanged, "", fmt.Sprintf("%s → %s: %s", from, PhaseCanceled, why))
		return
	}
	c.record(EventCanceled, actor, msg)
}

// Reactivate runs a terminated, canceled or failed plan again. StartedAt
// is cleared for the new run. A plan that requires approval waits in
// pending_approval again: a new request (reason "reactivated") is opened
// and actor joins the proposers, who may not decide it. Any other plan
// takes the phase its window asks for.
//
// Refused: a plan in any other phase (409), and a plan whose window has
// ended (400 on spec.window): edit the window first. opts reach
// window.Parse, as Create's do.
func Reactivate(p *ProtectionPlan, actor string, now time.Time, opts ...window.Option) (Result, error) {
	if err := canReactivate(p); err != nil {
		return Result{}, err
	}
	w, err := parseWindow(p, "reactivate", opts...)
	if err != nil {
		return Result{}, err
	}
	if w.Ended(now) {
		return Result{}, refuse("reactivate", p, http.StatusBadRequest, field.NewPath("spec", "window"),
			fmt.Sprintf("the window (%s) has ended; edit the window first, then reactivate the plan", w.Describe()))
	}
	c := begin(p, now)
	c.p.Status.StartedAt, c.p.Status.FinalReport = nil, nil
	c.p.Status.Window = w.Describe()
	if c.p.Spec.ApprovalMode == ApprovalRequired {
		c.p.Status.Phase = PhasePendingApproval
		c.record(EventReactivated, actor, "reactivated")
		c.openRequest("reactivated", actor)
		return c.result(), nil
	}
	c.enter(targetOf(w, now))
	c.record(EventReactivated, actor, "reactivated: "+c.p.Status.Window)
	return c.result(), nil
}

func canReactivate(p *ProtectionPlan) error {
	switch p.Status.Phase {
	case PhaseTerminated, PhaseCanceled, PhaseFailed:
		return nil
	case PhaseActive:
		return refuse("reactivate", p, http.StatusConflict, nil, "the plan is already active; there is nothing to reactivate")
	case PhaseScheduled:
		return refuse("reactivate", p, http.StatusConflict, nil,
			"the plan is already scheduled and waits for its window; there is nothing to reactivate")
	case PhasePendingApproval:
		return refuse("reactivate", p, http.StatusConflict, nil,
			"the plan is already waiting for approval; there is nothing to reactivate")
	}
	return refuse("reactivate", p, http.StatusConflict, nil, "the plan has not been created yet")
}

func actorName(actor string) string {
	if actor == "" {
		return "the controller"
	}
	return actor
}
