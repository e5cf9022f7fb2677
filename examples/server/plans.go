package main

import (
	"context"
	"crypto/rand"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// planFilter is the list's query: ?phase=&environment=&tag=&text=.
type planFilter struct {
	Phase       plan.Phase
	Environment string
	Tag         string
	Text        string
}

var phases = []plan.Phase{plan.PhasePendingApproval, plan.PhaseScheduled, plan.PhaseActive,
	plan.PhaseTerminated, plan.PhaseCanceled, plan.PhaseFailed}

func parsePlanFilter(r *http.Request) (planFilter, error) {
	q := r.URL.Query()
	f := planFilter{Phase: plan.Phase(q.Get("phase")), Environment: q.Get("environment"), Tag: q.Get("tag"),
		Text: strings.TrimSpace(q.Get("text"))}
	if f.Phase != "" && !slices.Contains(phases, f.Phase) {
		return f, fieldError("phase", "FieldValueNotSupported", "unknown phase %q (known: pending_approval, scheduled, active, terminated, canceled, failed)", f.Phase)
	}
	return f, nil
}

// match reports whether p passes the filter. Environment and tag compare
// as category names do (ignoring case and surrounding spaces); text looks
// in the ID, the display name and the description, ignoring case.
func (f planFilter) match(p *plan.ProtectionPlan) bool {
	switch {
	case f.Phase != "" && p.Status.Phase != f.Phase:
		return false
	case f.Environment != "" && !plan.SameName(f.Environment, p.Spec.Environment):
		return false
	case f.Tag != "" && !slices.ContainsFunc(p.Spec.Tags, func(t string) bool { return plan.SameName(t, f.Tag) }):
		return false
	case f.Text != "":
		t := strings.ToLower(f.Text)
		return strings.Contains(strings.ToLower(p.Name), t) || strings.Contains(strings.ToLower(p.Spec.Name), t) ||
			strings.Contains(strings.ToLower(p.Spec.Description), t)
	}
	return true
}

// filteredPlans lists the plans that pass the request's filter, sorted by
// display name.
func (s *Server) filteredPlans(r *http.Request) ([]plan.ProtectionPlan, planFilter, error) {
	f, err := parsePlanFilter(r)
	if err != nil {
		return nil, f, err
	}
	all, err := s.allPlans(r.Context())
	if err != nil {
		return nil, f, err
	}
	out := all[:0]
	for i := range all {
		if f.match(&all[i]) {
			out = append(out, all[i])
		}
	}
	slices.SortFunc(out, func(a, b plan.ProtectionPlan) int {
		return strings.Compare(strings.ToLower(a.Spec.Name)+a.Name, strings.ToLower(b.Spec.Name)+b.Name)
	})
	return out, f, nil
}

func (s *Server) listPlans(w http.ResponseWriter, r *http.Request) {
	items, _, err := s.filteredPlans(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, plan.ProtectionPlanList{
		TypeMeta: metav1.TypeMeta{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind + "List"},
		Items:    items,
	})
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
	clearServerFields(&p)
	if p.Name == "" {
		p.Name = newPlanID(p.Spec.Name)
	}
	s.createAndAnswer(w, r, callerOf(r), approval.ActionCreate, &p)
}

// createAndAnswer creates p (create) and answers 201 with it and its
// Location, and a warning when the approval mode asked for was ignored.
func (s *Server) createAndAnswer(w http.ResponseWriter, r *http.Request, caller approval.Caller, action approval.Action, p *plan.ProtectionPlan) {
	created, md, err := s.create(r.Context(), caller, action, p)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if md.Ignored {
		addWarning(w, md.Reason)
	}
	w.Header().Set("Location", "/api/v1/plans/"+created.Name)
	writePlan(w, http.StatusCreated, created)
}

// create is the create path of new and duplicated plans: the library's
// pipeline (reconcile.Admit) against the cluster as it is now, then the
// object and its status are written.
func (s *Server) create(ctx context.Context, caller approval.Caller, action approval.Action, p *plan.ProtectionPlan) (*plan.ProtectionPlan, approval.ModeDecision, error) {
	now := s.now()
	others, err := s.allPlans(ctx)
	if err != nil {
		return nil, approval.ModeDecision{}, err
	}
	env, err := s.validationEnv(ctx, others)
	if err != nil {
		return nil, approval.ModeDecision{}, err
	}
	adm, err := reconcile.Admit(reconcile.AdmitInput{Plan: p, Caller: caller, Action: action, Env: env, Approval: s.Approval, Now: now})
	if err != nil {
		return nil, adm.Mode, err
	}
	obj := adm.Plan
	if err := s.Client.Create(ctx, obj); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil, adm.Mode, errorf(http.StatusConflict, "a plan with ID %q already exists; choose another metadata.name", p.Name)
		}
		return nil, adm.Mode, err
	}
	stored, err := s.writeCreatedStatus(ctx, obj, caller.Username, now)
	return stored, adm.Mode, err
}

// writeCreatedStatus writes the status plan.Create gives the stored
// object (its generation is now set). If the write conflicts, the object
// is read again: as long as nobody has run its lifecycle (no phase), the
// status is computed again and written (at most three times); if someone
// has (an operator that adopts plans made with kubectl), theirs stands.
func (s *Server) writeCreatedStatus(ctx context.Context, obj *plan.ProtectionPlan, actor string, now time.Time) (*plan.ProtectionPlan, error) {
	for range 3 {
		res, err := plan.Create(obj, actor, now)
		if err != nil {
			return nil, err
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
		if obj.Status.Phase != "" {
			s.Log.Warn("the plan's lifecycle was started by someone else before the server wrote its status", "plan", obj.Name)
			return obj, nil
		}
	}
	return nil, conflictError("plan", obj.Name)
}

// clearServerFields drops what a client may send back from a read but the
// server owns: the status and the server-set metadata.
func clearServerFields(p *plan.ProtectionPlan) {
	p.Status = plan.Status{}
	p.ResourceVersion, p.UID, p.Generation = "", "", 0
	p.CreationTimestamp = metav1.Time{}
	p.ManagedFields, p.DeletionTimestamp = nil, nil
}

var notIDChars = regexp.MustCompile(`[^a-z0-9]+`)

// newPlanID makes a plan ID from a display name: a DNS label from its
// letters and digits, and a random suffix.
func newPlanID(name string) string {
	base := strings.Trim(notIDChars.ReplaceAllString(strings.ToLower(name), "-"), "-")
	if len(base) > 40 {
		base = strings.Trim(base[:40], "-")
	}
	if base == "" {
		base = "plan"
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 5)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return base + "-" + string(b)
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
	if err := checkIfMatch(r, old); err != nil {
		s.writeError(w, r, err)
		return
	}
	if in.ResourceVersion != "" && in.ResourceVersion != old.ResourceVersion {
		s.writeError(w, r, conflictError("plan", id))
		return
	}
	edited, err := s.edit(ctx, caller, old, &in)
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
	res, changed, err := reconcile.Edit(reconcile.EditInput{Old: old, Spec: in.Spec, Name: in.Name, Caller: caller, Env: env, Now: now})
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
	return s.writeEditedStatus(ctx, old, obj, res.Plan.Status, res.Plan.Spec, caller.Username, now)
}

// writeEditedStatus writes the status of an edit whose spec is stored. If
// the status write conflicts (the operator wrote the status in between),
// the edit is computed again on the fresh status and written, at most
// three times: the status must say what the edit did (a new approval
// request for a material edit of a pending plan), or an approver could
// decide the old request for the new spec.
func (s *Server) writeEditedStatus(ctx context.Context, old, obj *plan.ProtectionPlan, status plan.Status,
	spec plan.Spec, actor string, now time.Time) (*plan.ProtectionPlan, error) {
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
		if fresh.Generation != gen {
			return nil, errorf(http.StatusConflict,
				"plan %q was edited again by someone else while this edit was being stored; re-read it and check its spec", old.Name)
		}
		base := fresh.DeepCopy()
		base.Spec = old.Spec
		res, err := plan.Edit(base, spec, actor, now)
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
		err = checkIfMatch(r, p)
	}
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionDelete, p)
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
