package reconcile

import (
	"fmt"
	"net/http"
	"time"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// The pipelines of a server's actions on a stored plan. Each takes the
// plan as read and returns what to write; the embedder writes it with
// the resourceVersion read, so that a concurrent write makes the store
// refuse it (409) and nothing is overwritten.

// ActionInput is a caller's action on a stored plan.
type ActionInput struct {
	// Plan is the plan as read. It is not changed.
	Plan *plan.ProtectionPlan
	// Version is the resourceVersion the client says it read (an
	// If-Match header), "" or "*" when it says none.
	Version string
	// Caller is who asks.
	Caller approval.Caller
	// Now is the time of the request.
	Now time.Time
	// Calendars are the calendars the plan's window names, as the
	// embedder read them (Input.Calendars): a step that computes the
	// phase (reactivate, approve) or cuts a grant at the end of the
	// window interval honours the holidays they hold, as the pass does.
	Calendars map[window.ConfigMapKeyRef][]byte
}

// windowOptions resolves in's calendars for window.Parse.
func (in ActionInput) windowOptions() []window.Option {
	return resolveCalendars(in.Plan.Spec.Window, in.Calendars, in.Now).opts
}

// Cancel is a server's cancel pipeline: check the version the client
// read, authorize the caller with the plan, and run plan.Cancel. The
// embedder writes the result's status.
func Cancel(in ActionInput) (plan.Result, error) {
	return transition(in, approval.ActionCancel, func(p *plan.ProtectionPlan, actor string, now time.Time, _ ...window.Option) (plan.Result, error) {
		return plan.Cancel(p, actor, now)
	})
}

// Reactivate is a server's reactivate pipeline: check the version,
// authorize the caller with the plan (reactivating an enforcing namespace
// plan needs an Owner), and run plan.Reactivate.
func Reactivate(in ActionInput) (plan.Result, error) {
	return transition(in, approval.ActionReactivate, plan.Reactivate)
}

// Delete decides whether the caller may delete the plan as read: the
// version, then the permission. The embedder then deletes it (with the
// version and UID read as preconditions) and its reports.
func Delete(in ActionInput) error {
	if err := CheckVersion(in.Plan, in.Version); err != nil {
		return err
	}
	return approval.Authorize(in.Caller, approval.ActionDelete, in.Plan)
}

func transition(in ActionInput, action approval.Action,
	step func(*plan.ProtectionPlan, string, time.Time, ...window.Option) (plan.Result, error)) (plan.Result, error) {
	if err := CheckVersion(in.Plan, in.Version); err != nil {
		return plan.Result{}, err
	}
	if err := approval.Authorize(in.Caller, action, in.Plan); err != nil {
		return plan.Result{}, err
	}
	return step(in.Plan, in.Caller.Username, in.Now, in.windowOptions()...)
}

// CheckVersion compares the resourceVersion a client read (its If-Match
// header) with the stored plan's: a client that read, decided and then
// writes is refused when the plan changed in between (*StaleVersionError,
// 412, as RFC 9110 answers an If-Match that fails). "" and "*" check
// nothing.
func CheckVersion(p *plan.ProtectionPlan, read string) error {
	if read == "" || read == "*" || read == p.ResourceVersion {
		return nil
	}
	return &StaleVersionError{Plan: p.Name, Read: read, Stored: p.ResourceVersion}
}

// CheckBodyVersion is CheckVersion for the metadata.resourceVersion in
// an edit's body. It answers 409 Conflict, as the API server does for an
// update with a stale resourceVersion: the body, not a precondition
// header, carried the read.
func CheckBodyVersion(p *plan.ProtectionPlan, read string) error {
	if read == "" || read == p.ResourceVersion {
		return nil
	}
	return &StaleVersionError{Plan: p.Name, Read: read, Stored: p.ResourceVersion, InBody: true}
}

// StaleVersionError refuses a write based on an older read of the plan.
// Its code is 412 Precondition Failed when the read came as an If-Match,
// 409 Conflict when it came in the body; either way: re-read the plan
// and try again.
type StaleVersionError struct {
	// Plan is the plan ID; Read the resourceVersion the client read, and
	// Stored the one stored now.
	Plan, Read, Stored string
	// InBody is set when Read came from the edit's body (CheckBodyVersion).
	InBody bool
}

func (e *StaleVersionError) Error() string {
	return fmt.Sprintf("plan %q was changed by someone else since it was read (resourceVersion %q, now %q); nothing was written: re-read it and try again",
		e.Plan, e.Read, e.Stored)
}

// HTTPCode is 412, or 409 for a read carried in the body.
func (e *StaleVersionError) HTTPCode() int {
	if e.InBody {
		return http.StatusConflict
	}
	return http.StatusPreconditionFailed
}

// VerdictInput is an approver's decision on a stored plan.
type VerdictInput struct {
	// Plan is the plan as read. It is not changed.
	Plan *plan.ProtectionPlan
	// Verdict names the open request the approver saw (the
	// compare-and-set of approval.Decide), the decision and the comment.
	Verdict approval.Verdict
	// Generation, when not 0, is the metadata.generation of the plan the
	// approver read: a plan whose spec changed since is refused, so an
	// approver approves what they saw.
	Generation int64
	Caller     approval.Caller
	Now        time.Time
	// Calendars are the calendars the plan's window names, as
	// ActionInput's: an approval moves the plan to the phase they leave.
	Calendars map[window.ConfigMapKeyRef][]byte
}

// ApplyVerdict is a server's approve and reject pipeline: the generation
// the approver read (*StaleGenerationError, 409), the permission, then
// approval.Decide (403, 409 on a stale request, 400 on a rejection
// without a comment). The embedder writes the status with the
// resourceVersion read and does not retry: the approver re-reads the plan
// and decides what is open then.
func ApplyVerdict(in VerdictInput) (plan.Result, error) {
	if in.Generation != 0 && in.Generation != in.Plan.Generation {
		return plan.Result{}, &StaleGenerationError{Plan: in.Plan.Name, Read: in.Generation, Stored: in.Plan.Generation}
	}
	if err := approval.Authorize(in.Caller, approval.ActionApprove, in.Plan); err != nil {
		return plan.Result{}, err
	}
	return approval.Decide(in.Plan, in.Verdict, in.Caller, in.Now, resolveCalendars(in.Plan.Spec.Window, in.Calendars, in.Now).opts...)
}

// StaleGenerationError refuses a decision on a plan whose spec changed
// since the approver read it. Its code is 409.
type StaleGenerationError struct {
	// Plan is the plan ID; Read the generation the approver read, Stored
	// the one stored now.
	Plan         string
	Read, Stored int64
}

func (e *StaleGenerationError) Error() string {
	return fmt.Sprintf("plan %q was edited since you read it (generation %d, now %d); re-read it before deciding", e.Plan, e.Read, e.Stored)
}

// HTTPCode is 409.
func (e *StaleGenerationError) HTTPCode() int { return http.StatusConflict }

// DuplicateRequest is what a client asks of a duplicate. Every field is
// optional: the copy gets a fresh ID, the name "Copy of <name>", the
// approval mode derived as on create, and the source's window unless
// another is given (a terminated plan's window has ended, so its copy
// needs a new one).
type DuplicateRequest struct {
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	ApprovalMode plan.ApprovalMode `json:"approvalMode,omitempty"`
	Window       *window.Spec      `json:"window,omitempty"`
}

// DuplicateInput is a duplicate a caller asks a server to make.
type DuplicateInput struct {
	// Source is the plan to copy, as read. It is not changed.
	Source  *plan.ProtectionPlan
	Request DuplicateRequest
	// Entropy makes the copy's ID when the request gives none
	// (plan.NewID of the source's ID).
	Entropy []byte
	// Caller, Env, Approval and Now are Admit's.
	Caller   approval.Caller
	Env      plan.ValidationEnv
	Approval approval.Config
	Now      time.Time
}

// Duplicate is a server's duplicate pipeline: plan.Duplicate with the
// request's ID and name (400 on metadata.name for a bad ID), the
// requested approval mode and window, then Admit as
// approval.ActionDuplicate. The embedder stores the result as a created
// plan.
func Duplicate(in DuplicateInput) (Admitted, error) {
	rq := in.Request
	if rq.ID == "" {
		rq.ID = plan.NewID(in.Source.Name, in.Entropy)
	}
	var opts []plan.DuplicateOption
	if rq.Name != "" {
		opts = append(opts, plan.WithDisplayName(rq.Name))
	}
	cp, err := plan.Duplicate(in.Source, rq.ID, opts...)
	if err != nil {
		return Admitted{}, err
	}
	cp.Spec.ApprovalMode = rq.ApprovalMode
	if rq.Window != nil {
		cp.Spec.Window = *rq.Window
	}
	return Admit(AdmitInput{Plan: cp, Caller: in.Caller, Action: approval.ActionDuplicate, Env: in.Env, Approval: in.Approval, Now: in.Now})
}

// CreatedStatus is the status to write on an admitted plan once it is
// stored (its generation is set): plan.Create's. When the plan's status
// already has a phase, someone else (an operator that adopts plans stored
// without a status) started its lifecycle first: theirs stands, started
// is true and there is nothing to write. An embedder whose status write
// conflicts reads the plan again and asks again. calendars are the
// calendars the plan's window names, as ActionInput's: a plan created on
// a holiday does not start active.
func CreatedStatus(stored *plan.ProtectionPlan, actor string, now time.Time, calendars map[window.ConfigMapKeyRef][]byte) (res plan.Result, started bool, err error) {
	if stored.Status.Phase != "" {
		return plan.Result{}, true, nil
	}
	res, err = plan.Create(stored, actor, now, resolveCalendars(stored.Spec.Window, calendars, now).opts...)
	if err == nil {
		res.Plan.Status.ValidatedGeneration = stored.Generation // Admit validated it
	}
	return res, false, err
}

// EditedStatusInput is an edit whose spec is stored but whose status
// write lost a race (the operator wrote the status in between).
type EditedStatusInput struct {
	// Fresh is the plan read again after the conflict.
	Fresh *plan.ProtectionPlan
	// Before is the spec before the edit, and Generation the generation
	// the edit's spec write returned.
	Before     plan.Spec
	Generation int64
	// Spec is the edited spec as stored.
	Spec   plan.Spec
	Caller approval.Caller
	Now    time.Time
	// Calendars are the calendars the edited window names, as
	// ActionInput's.
	Calendars map[window.ConfigMapKeyRef][]byte
}

// EditedStatus computes an edit's status again on the fresh status: the
// status must say what the edit did (a material edit of a pending plan
// opens a new request), or an approver could decide the old request for
// the new spec. A spec edited again by someone else in between is a
// *ConcurrentEditError (409).
func EditedStatus(in EditedStatusInput) (plan.Result, error) {
	if in.Fresh.Generation != in.Generation {
		return plan.Result{}, &ConcurrentEditError{Plan: in.Fresh.Name}
	}
	base := in.Fresh.DeepCopy()
	base.Spec = in.Before
	res, err := plan.Edit(base, in.Spec, in.Caller.Username, in.Now, resolveCalendars(in.Spec.Window, in.Calendars, in.Now).opts...)
	if err == nil {
		res.Plan.Status.ValidatedGeneration = in.Generation // Edit validated it
	}
	return res, err
}

// ConcurrentEditError says that the plan's spec was edited again by
// someone else while an edit was being stored. Its code is 409.
type ConcurrentEditError struct{ Plan string }

func (e *ConcurrentEditError) Error() string {
	return fmt.Sprintf("plan %q was edited again by someone else while this edit was being stored; re-read it and check its spec", e.Plan)
}

// HTTPCode is 409.
func (e *ConcurrentEditError) HTTPCode() int { return http.StatusConflict }

var (
	_ plan.Coder = (*StaleVersionError)(nil)
	_ plan.Coder = (*StaleGenerationError)(nil)
	_ plan.Coder = (*ConcurrentEditError)(nil)
)
