package main

import (
	"context"
	"crypto/rand"
	"net/http"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// filteredPlans lists the plans that pass the request's filter
// (plan.ParseFilter), sorted by display name.
func (s *Server) filteredPlans(r *http.Request) ([]plan.ProtectionPlan, plan.Filter, error) {
	f, err := plan.ParseFilter(r.URL.Query())
	if err != nil {
		return nil, f, err
	}
	all, err := s.allPlans(r.Context())
	if err != nil {
		return nil, f, err
	}
	return f.Select(all), f, nil
}

// listPlans answers a page (?limit=&continue=, plan.ParsePage) of the
// filtered plans, as Kubernetes lists do: metadata.continue names the
// next page, metadata.remainingItemCount counts what follows.
func (s *Server) listPlans(w http.ResponseWriter, r *http.Request) {
	pr, err := plan.ParsePage(r.URL.Query())
	var items []plan.ProtectionPlan
	if err == nil {
		items, _, err = s.filteredPlans(r)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pg := pr.Of(items)
	list := plan.ProtectionPlanList{
		TypeMeta: metav1.TypeMeta{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind + "List"},
		ListMeta: metav1.ListMeta{Continue: pg.Continue},
		Items:    pg.Items,
	}
	if pg.Continue != "" {
		list.RemainingItemCount = &pg.Remaining
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) getPlan(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionGet, p)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePlan(w, http.StatusOK, p)
}

func (s *Server) createPlan(w http.ResponseWriter, r *http.Request) {
	var p plan.ProtectionPlan
	if err := decodeBody(r, &p); err != nil {
		s.writeError(w, r, err)
		return
	}
	plan.PrepareCreate(&p, entropy())
	s.createAndAnswer(w, r, func(env plan.ValidationEnv, now time.Time) (reconcile.Admitted, error) {
		return reconcile.Admit(reconcile.AdmitInput{Plan: &p, Caller: callerOf(r), Action: approval.ActionCreate,
			Env: env, Approval: s.Approval, Now: now})
	})
}

// admitFunc is the library's create pipeline of a new or duplicated
// plan, run against the cluster as it is now.
type admitFunc func(env plan.ValidationEnv, now time.Time) (reconcile.Admitted, error)

// createAndAnswer admits a plan, writes the object and its status, and
// answers 201 with it and its Location, and a warning when the approval
// mode asked for was ignored.
func (s *Server) createAndAnswer(w http.ResponseWriter, r *http.Request, admit admitFunc) {
	ctx, now := r.Context(), s.now()
	others, err := s.allPlans(ctx)
	var env plan.ValidationEnv
	if err == nil {
		env, err = s.validationEnv(ctx, others)
	}
	var adm reconcile.Admitted
	if err == nil {
		adm, err = admit(env, now)
	}
	if err == nil {
		if err = s.Client.Create(ctx, adm.Plan); apierrors.IsAlreadyExists(err) {
			err = errorf(http.StatusConflict, "a plan with ID %q already exists; choose another metadata.name", adm.Plan.Name)
		}
	}
	var created *plan.ProtectionPlan
	if err == nil {
		created, err = s.writeCreatedStatus(ctx, adm.Plan, callerOf(r).Username, now)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if adm.Mode.Ignored {
		addWarning(w, adm.Mode.Reason)
	}
	w.Header().Set("Location", "/api/v1/plans/"+created.Name)
	writePlan(w, http.StatusCreated, created)
}

// writeCreatedStatus writes the status of the stored object
// (reconcile.CreatedStatus). If the write conflicts, the object is read
// again and the status asked for again (at most three times); if someone
// else started its lifecycle meanwhile (an operator that adopts plans
// made with kubectl), theirs stands.
func (s *Server) writeCreatedStatus(ctx context.Context, obj *plan.ProtectionPlan, actor string, now time.Time) (*plan.ProtectionPlan, error) {
	for range 3 {
		res, started, err := reconcile.CreatedStatus(obj, actor, now, s.calendars(ctx, obj.Spec.Window))
		if err != nil {
			return nil, err
		}
		if started {
			s.Log.Warn("the plan's lifecycle was started by someone else before the server wrote its status", "plan", obj.Name)
			return obj, nil
		}
		next := obj.DeepCopy()
		next.Status = res.Plan.Status
		err = s.Client.Status().Update(ctx, next)
		if err == nil {
			setTypeMeta(next)
			return next, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, err
		}
		if obj, err = s.readPlan(ctx, obj.Name); err != nil {
			return nil, err
		}
	}
	return nil, conflictError("plan", obj.Name)
}

// entropy is the random part of a new plan ID (plan.NewID).
func entropy() []byte {
	b := make([]byte, 5)
	rand.Read(b)
	return b
}

func (s *Server) editPlan(w http.ResponseWriter, r *http.Request) {
	ctx, caller, id := r.Context(), callerOf(r), r.PathValue("id")
	var in plan.ProtectionPlan
	if err := decodeBody(r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	old, err := s.readPlan(ctx, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	err = reconcile.CheckVersion(old, ifMatch(r))
	if err == nil {
		err = reconcile.CheckBodyVersion(old, in.ResourceVersion)
	}
	var edited *plan.ProtectionPlan
	if err == nil {
		edited, err = s.edit(ctx, caller, old, &in)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writePlan(w, http.StatusOK, edited)
}

// edit is the library's edit pipeline (reconcile.Edit) against the
// cluster as it is now; then the spec is written with the
// resourceVersion read, and the status with the one the spec write
// returned.
func (s *Server) edit(ctx context.Context, caller approval.Caller, old, in *plan.ProtectionPlan) (*plan.ProtectionPlan, error) {
	now := s.now()
	others, err := s.allPlans(ctx)
	if err != nil {
		return nil, err
	}
	env, err := s.validationEnv(ctx, others)
	if err != nil {
		return nil, err
	}
	res, changed, err := reconcile.Edit(reconcile.EditInput{Old: old, Spec: in.Spec, Name: in.Name, Caller: caller, Env: env, Now: now,
		Calendars: s.calendars(ctx, in.Spec.Window)})
	if err != nil {
		return nil, err
	}
	if !changed {
		return old, nil // nothing to store
	}
	obj := res.Plan.DeepCopy()
	if err := s.Client.Update(ctx, obj); err != nil {
		return nil, planWriteError(old.Name, err)
	}
	return s.writeEditedStatus(ctx, old, obj, res.Plan.Status, res.Plan.Spec, caller, now)
}

// writeEditedStatus writes the status of an edit whose spec is stored. If
// the status write conflicts (the operator wrote the status in between),
// the status is computed again on the fresh one (reconcile.EditedStatus)
// and written, at most three times.
func (s *Server) writeEditedStatus(ctx context.Context, old, obj *plan.ProtectionPlan, status plan.Status,
	spec plan.Spec, caller approval.Caller, now time.Time) (*plan.ProtectionPlan, error) {
	gen := obj.Generation
	for range 3 {
		next := obj.DeepCopy()
		next.Status = status
		err := s.Client.Status().Update(ctx, next)
		if err == nil {
			setTypeMeta(next)
			return next, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, planWriteError(old.Name, err)
		}
		fresh, err := s.readPlan(ctx, old.Name)
		if err != nil {
			return nil, err
		}
		res, err := reconcile.EditedStatus(reconcile.EditedStatusInput{Fresh: fresh, Before: old.Spec, Generation: gen,
			Spec: spec, Caller: caller, Now: now, Calendars: s.calendars(ctx, spec.Window)})
		if err != nil {
			return nil, err
		}
		obj, status = fresh, res.Plan.Status
	}
	return nil, conflictError("plan", old.Name)
}

func (s *Server) deletePlan(w http.ResponseWriter, r *http.Request) {
	ctx, id := r.Context(), r.PathValue("id")
	p, err := s.readPlan(ctx, id)
	if err == nil {
		err = reconcile.Delete(reconcile.ActionInput{Plan: p, Version: ifMatch(r), Caller: callerOf(r), Now: s.now()})
	}
	if err == nil {
		rv, uid := p.ResourceVersion, p.UID
		err = s.Client.Delete(ctx, p, client.Preconditions{ResourceVersion: &rv, UID: &uid})
		err = planWriteError(id, err)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// Reports are deleted with their plan (R-T4).
	if s.files != nil {
		if err := s.files.RemovePlan(id); err != nil {
			s.Log.Error("cannot delete the reports of a deleted plan", "plan", id, "err", err)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// addWarning adds a Warning header (RFC 9111, code 299, as kube-apiserver
// sends them): what the server did differently from what was asked.
func addWarning(w http.ResponseWriter, text string) {
	w.Header().Add("Warning", `299 - "`+strings.NewReplacer(`"`, `'`, "\n", " ", "\\", "/").Replace(text)+`"`)
}
