package reconcile

import (
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// AdmitInput is a plan a caller asks a server to create.
type AdmitInput struct {
	// Plan is the plan as sent (server-owned fields cleared). Admit does
	// not change it.
	Plan *plan.ProtectionPlan
	// Caller and Action (approval.ActionCreate or ActionDuplicate) are
	// who asks and how.
	Caller approval.Caller
	Action approval.Action
	// Env is the validation environment: the cluster as the server sees
	// it now.
	Env plan.ValidationEnv
	// Approval is the server's approval configuration.
	Approval approval.Config
	// Now is the time of the request.
	Now time.Time
}

// Admitted is a plan a server may create.
type Admitted struct {
	// Plan is the object to store: the spec completed (approval mode,
	// defaults), CreatedByAnnotation set from the caller, no status.
	// Once stored, its status is plan.Create's of the stored object.
	Plan *plan.ProtectionPlan
	// Mode says how the approval mode was derived; Mode.Ignored is worth
	// a warning to the client.
	Mode approval.ModeDecision
}

// Admit is a server's create pipeline (R-P1, R-P8, R-A1): derive the
// approval mode, apply the defaults, record the creator, authorize the
// caller with the plan as it will be stored (enforcing a namespaces scope
// needs an Owner), validate it against env, and run the lifecycle once so
// that a refusal is known before anything is written. Errors are typed
// (*plan.ValidationError, *approval.Forbidden, ...) and carry their HTTP
// code.
func Admit(in AdmitInput) (Admitted, error) {
	p := in.Plan.DeepCopy()
	md, err := approval.DeriveMode(p.Spec.ApprovalMode, p.Spec.Environment, in.Caller, in.Approval)
	if err != nil {
		return Admitted{Mode: md}, err
	}
	p.Spec.ApprovalMode = md.Mode
	plan.Defaults(p, in.Now)
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[plan.CreatedByAnnotation] = in.Caller.Username
	if err := approval.Authorize(in.Caller, in.Action, p); err != nil {
		return Admitted{Mode: md}, err
	}
	if err := plan.Validate(p, in.Env); err != nil {
		return Admitted{Mode: md}, err
	}
	if _, err := plan.Create(p, in.Caller.Username, in.Now); err != nil {
		return Admitted{Mode: md}, err
	}
	p.Status = plan.Status{}
	return Admitted{Plan: p, Mode: md}, nil
}

// EditInput is an edit a caller asks a server to make.
type EditInput struct {
	// Old is the plan as stored.
	Old *plan.ProtectionPlan
	// Spec is the edited spec; Name, when set, the plan ID the client
	// sent (it may not change).
	Spec plan.Spec
	Name string
	// Caller is who asks.
	Caller approval.Caller
	// Env is the validation environment.
	Env plan.ValidationEnv
	// Now is the time of the request.
	Now time.Time
	// Calendars are the calendars the edited window names, as
	// ActionInput's: an edit of the window moves the plan to the phase
	// they leave.
	Calendars map[window.ConfigMapKeyRef][]byte
}

// Edit is a server's edit pipeline (R-P7, R-A6): apply the defaults,
// authorize the caller with the plan as edited, validate the update
// against env, and run plan.Edit. changed is false when the edit changes
// nothing (nothing to store).
func Edit(in EditInput) (res plan.Result, changed bool, err error) {
	next := in.Old.DeepCopy()
	next.Spec = in.Spec
	if in.Name != "" {
		next.Name = in.Name // ValidateUpdate refuses a changed ID
	}
	plan.Defaults(next, in.Now)
	if err := approval.Authorize(in.Caller, approval.ActionUpdate, next); err != nil {
		return plan.Result{}, false, err
	}
	if err := plan.ValidateUpdate(in.Old, next, in.Env); err != nil {
		return plan.Result{}, false, err
	}
	res, err = plan.Edit(in.Old, next.Spec, in.Caller.Username, in.Now, resolveCalendars(next.Spec.Window, in.Calendars, in.Now).opts...)
	if err != nil {
		return plan.Result{}, false, err
	}
	specChanged := !equality.Semantic.DeepEqual(in.Old.Spec, res.Plan.Spec)
	changed = len(res.Events) > 0 || specChanged
	if specChanged {
		// Storing a changed spec makes the API server add one to the
		// generation: the status says that generation is validated.
		res.Plan.Status.ValidatedGeneration = in.Old.Generation + 1
	}
	return res, changed, nil
}

// adoption is what Decide does with a plan that has no status.
type adoption struct {
	spec    *plan.ProtectionPlan // store this spec first
	res     plan.Result          // plan.Create's
	invalid error                // ValidateExisting's verdict: the plan fails
	retry   error                // a lookup failed: try again next pass
	err     error                // the lifecycle refused
	cals    calendars            // the window's calendars, for Create and the condition
}

// adopt runs the create path on a plan stored without a server: derive
// the approval mode as its creator (CreatedByAnnotation), default, and
// when that changed the spec, ask for it to be stored first; then
// validate it against the input's cluster and create it.
func adopt(in Input) adoption {
	stored, now := in.Plan, in.Now
	p := stored.DeepCopy()
	actor := plan.CreatorOf(p)
	md, err := approval.DeriveMode(p.Spec.ApprovalMode, p.Spec.Environment, approval.Caller{Username: actor}, in.Settings.Approval)
	if err != nil {
		return adoption{err: err}
	}
	p.Spec.ApprovalMode = md.Mode
	plan.Defaults(p, now)
	if !equality.Semantic.DeepEqual(p.Spec, stored.Spec) {
		return adoption{spec: p}
	}
	if err := in.Cluster.CategoriesErr; err != nil && (p.Spec.Environment != "" || len(p.Spec.Tags) > 0) {
		return adoption{retry: err}
	}
	var a adoption
	if err := plan.ValidateExisting(p, validationEnv(in)); err != nil {
		if lookupFailed(err) {
			return adoption{retry: err}
		}
		a.invalid = err
	}
	a.cals = resolveCalendars(p.Spec.Window, in.Calendars, now)
	a.res, a.err = plan.Create(p, actor, now, a.cals.opts...)
	return a
}

// revalidate validates a plan whose generation changed without a server
// (kubectl edit): plan.ValidateExisting against the input's cluster, less
// the problems of things that do not exist (a namespace or application in
// scope gone: the pass fails the plan with NamespaceGone or
// ApplicationNotFound instead, and retries).
func revalidate(in Input) error {
	err := plan.ValidateExisting(in.Plan, validationEnv(in))
	ve, ok := err.(*plan.ValidationError)
	if !ok {
		return err
	}
	kept := slices.DeleteFunc(slices.Clone(ve.Errs), func(e *field.Error) bool { return e.Type == field.ErrorTypeNotFound })
	if len(kept) == 0 {
		return nil
	}
	return &plan.ValidationError{Errs: kept}
}

// lookupFailed reports whether a validation error holds a failed lookup
// (field.ErrorTypeInternal): not a verdict on the plan.
func lookupFailed(err error) bool {
	ve, ok := err.(*plan.ValidationError)
	return ok && slices.ContainsFunc(ve.Errs, func(e *field.Error) bool { return e.Type == field.ErrorTypeInternal })
}

// validationEnv is the validation environment of a plan applied with
// kubectl, from the input's cluster facts.
func validationEnv(in Input) plan.ValidationEnv {
	c, self := in.Cluster, in.Plan
	env := plan.ValidationEnv{
		Now:        in.Now,
		Catalog:    render.DefaultCatalog,
		Categories: c.Categories,
		Cluster:    clusterView{c},
		Kinds:      c.Kinds,
		Names: plan.PlanNamesFunc(func(name string) ([]string, error) {
			var ids []string
			for _, q := range c.Plans {
				if q.Name != self.Name && plan.SameName(q.Spec.Name, name) && createdBefore(q, self) {
					ids = append(ids, q.Name)
				}
			}
			return ids, nil
		}),
		Applications: c.Applications,
	}
	if env.Applications == nil {
		env.Applications = noApplications
	}
	return env
}

// noApplications resolves no application.
var noApplications = plan.ApplicationResolverFunc(func(name string) (plan.Application, error) {
	return plan.Application{}, fmt.Errorf("%w: %q", plan.ErrApplicationNotFound, name)
})

// createdBefore orders plans by creation, then ID.
func createdBefore(a, b *plan.ProtectionPlan) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}

// clusterView is plan.ClusterView over Cluster.
type clusterView struct{ c *Cluster }

func (v clusterView) HasNamespace(name string) bool { return v.c.Namespaces[name] }
func (v clusterView) IsReleaseNamespace(name string) bool {
	return v.c.ReleaseNamespace != "" && name == v.c.ReleaseNamespace
}
func (v clusterView) IsExcludedNamespace(name string) (bool, error) {
	if v.c.ExcludedErr != nil {
		return false, v.c.ExcludedErr
	}
	return slices.Contains(v.c.Excluded, name), nil
}
