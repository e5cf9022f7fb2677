package operator

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// finalReport writes the final report of a run that just ended or was
// canceled (report.FinalTrigger). It reports whether the report is
// written; when not, the next pass retries (the lifecycle step is still
// unrecorded in observed.json).
//
// A final pass can be cut short anywhere (a failed status write, a
// process killed; see CrashPoint) and the step is then taken again by a
// later pass, which may find the run's policies already withdrawn and part
// of its work done. So:
//
//  1. a report of this run and trigger already whole in the plan's
//     directory is not written again; one written in part is written
//     again under the same ID;
//  2. the plan's violations are checkpointed with the run's policies, the
//     live ones and those observed.json recorded for the run: events of
//     policies withdrawn by an earlier, unfinished pass are still
//     attributed to the plan;
//  3. the report is built from the ledger, the health samples and the
//     run's policies, and written in every format.
func (r *reconciler) finalReport(ctx context.Context, s *step, w *world, trig report.Trigger) bool {
	p := s.p
	fail := func(err error) bool {
		metricErrors.WithLabelValues("report").Inc()
		r.log.Error(err, "writing the final report; the next pass retries", "plan", p.Name)
		r.event(p, true, EventReportFailed, "Report", err.Error())
		return false
	}
	id, whole, err := r.store.FinalReport(p.Name, trig)
	if err != nil {
		return fail(err)
	}
	if whole {
		r.log.Info("final report already written by an earlier pass", "plan", p.Name, "trigger", trig, "report", id)
		r.event(p, false, EventReportWritten, "Report", "final report "+id+" ("+string(trig)+") written")
		return true
	}
	r.crashAt(CrashBeforeLedgerWrite)
	if err := r.checkpoint(ctx, runWorld(w, p.Name, s.obs.Policies), []string{p.Name}); err != nil {
		return fail(err)
	}
	r.crashAt(CrashAfterLedgerWrite)
	ledger, err := r.store.LoadLedger(p.Name)
	if err != nil {
		return fail(err)
	}
	samples, err := r.store.LoadSamples(p.Name)
	if err != nil {
		return fail(err)
	}
	policies := s.obs.Policies
	if !s.seen || len(policies) == 0 {
		policies = livePolicyInfos(w.byPlan[p.Name])
	}
	apps := s.obs.Applications
	rep, err := report.Build(report.Input{
		ID:   id,
		Plan: p, Applications: apps, Policies: policies, Health: samples,
		Violations: ledger.Violations, ViolationsTruncated: ledger.Truncated, ViolationsDropped: ledger.Dropped,
		Trigger: trig, Now: w.now,
	})
	if err != nil {
		return fail(err)
	}
	r.crashAt(CrashBeforeReportWrite)
	paths, err := r.store.WriteReport(rep)
	if err != nil {
		return fail(err)
	}
	r.crashAt(CrashAfterReportWrite)
	r.log.Info("final report written", "plan", p.Name, "trigger", trig, "files", paths)
	r.event(p, false, EventReportWritten, "Report", "final report "+rep.ID+" ("+string(trig)+") written")
	return true
}

// runWorld returns w with the plan's policies of its run as observed
// (observed.json) added to its live ones, for the plan's final
// checkpoint. The vap target's policies are left out: nothing records
// their decisions.
func runWorld(w *world, id string, run []report.PolicyInfo) *world {
	live := w.byPlan[id]
	have := map[[2]string]bool{}
	for _, u := range live {
		have[[2]string{u.GetNamespace(), u.GetName()}] = true
	}
	var gone []*unstructured.Unstructured
	for _, pi := range run {
		if pi.Target == string(render.TargetVAP) || have[[2]string{pi.Namespace, pi.Name}] {
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetNamespace(pi.Namespace)
		u.SetName(pi.Name)
		u.SetLabels(map[string]string{render.LabelPlan: id, render.LabelTemplate: pi.Template})
		gone = append(gone, u)
	}
	if len(gone) == 0 {
		return w
	}
	out := *w
	out.byPlan = map[string][]*unstructured.Unstructured{id: append(slices.Clip(live), gone...)}
	out.index = violations.IndexPolicies(append(slices.Clip(w.live), gone...))
	return &out
}

// livePolicyInfos lists live policies for a report, when the operator has
// no record of the run's render (it restarted with a fresh reports
// directory). A vap policy is two cluster-scoped objects of one name
// (render.VAPName: <policy name>.<namespace>); it is listed once, by its
// ValidatingAdmissionPolicy, with the namespace its name ends with, as
// render.Policy names it.
func livePolicyInfos(live []*unstructured.Unstructured) []report.PolicyInfo {
	out := []report.PolicyInfo{}
	for _, u := range live {
		t, _ := render.TargetOf(u)
		ns := u.GetNamespace()
		if t == render.TargetVAP {
			if u.GetKind() != vapKind {
				continue // its binding
			}
			if i := strings.LastIndexByte(u.GetName(), '.'); i >= 0 {
				ns = u.GetName()[i+1:]
			}
		}
		out = append(out, report.PolicyInfo{Namespace: ns, Name: u.GetName(),
			Template: u.GetLabels()[render.LabelTemplate], Target: string(t)})
	}
	return out
}

// vapKind is the kind of the vap target's policy object (its binding is
// the other kind render.KindsOf(render.TargetVAP) names).
const vapKind = "ValidatingAdmissionPolicy"
