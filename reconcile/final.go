package reconcile

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// Final is a final report that is due, and what the embedder reads to
// write it.
type Final struct {
	// ID is the report's ID: report.DefaultID of the plan, the trigger and
	// the run's end, the same on every pass and every replica.
	ID      string
	Trigger report.Trigger
	// Policies and Applications are the run's, for the report: those the
	// last passes recorded, or the live ones when nothing was recorded.
	Policies     []report.PolicyInfo
	Applications []plan.Application
	// Index attributes violations to the plan for its last checkpoint: its
	// live policies and those of its run already withdrawn (a pass cut
	// short may have withdrawn them), so that their events still count.
	// Namespaces are where to read those events and PolicyReports (none
	// for the vap target, whose decisions nothing records).
	Index      violations.PolicyIndex
	Namespaces []string
}

// final returns the final report that is due, if any.
func (d *pass) final() *Final {
	fr := d.p.Status.FinalReport
	if !fr.Due() || d.p.Status.StartedAt == nil {
		return nil
	}
	trig := report.Trigger(fr.Trigger)
	f := &Final{ID: report.DefaultID(d.p.Name, trig, fr.RunEndedAt.Time), Trigger: trig}
	var run []report.PolicyInfo
	if d.rec != nil {
		run, f.Applications = d.rec.Policies, d.rec.Applications
	}
	f.Policies = run
	if len(f.Policies) == 0 {
		f.Policies = LivePolicyInfos(d.in.Live)
	}
	objs := runObjects(d.p.Name, d.in.Live, run)
	f.Index = violations.IndexPolicies(objs)
	f.Namespaces = withEventNamespaces(Namespaces(objs), eventNamespaces(objs, d.stored.Status.Coverage, d.p.Status.Coverage))
	return f
}

// legacyFinal marks the final report due for a run whose end a pass of an
// earlier version stored without it: the record says the run was not
// over when last seen.
func (d *pass) legacyFinal() {
	st := &d.p.Status
	if st.FinalReport != nil || st.StartedAt == nil || d.rec == nil || !equalTimes(d.rec.StartedAt, st.StartedAt) ||
		d.rec.Phase == plan.PhaseTerminated || d.rec.Phase == plan.PhaseCanceled {
		return
	}
	switch st.Phase {
	case plan.PhaseTerminated:
		st.FinalReport = &plan.FinalReportStatus{Trigger: plan.FinalReportEnd, RunEndedAt: metav1.NewTime(d.in.Now)}
	case plan.PhaseCanceled:
		st.FinalReport = &plan.FinalReportStatus{Trigger: plan.FinalReportCancel, RunEndedAt: metav1.NewTime(d.in.Now)}
	}
}

// runObjects returns the plan's live policies and, as stubs carrying the
// plan's labels, those of its run that are no longer live. The vap
// target's are left out: nothing records their decisions.
func runObjects(id string, live []*unstructured.Unstructured, run []report.PolicyInfo) []*unstructured.Unstructured {
	have := map[[2]string]bool{}
	for _, u := range live {
		have[[2]string{u.GetNamespace(), u.GetName()}] = true
	}
	out := slices.Clip(live)
	for _, pi := range run {
		if pi.Target == string(render.TargetVAP) || have[[2]string{pi.Namespace, pi.Name}] {
			continue
		}
		u := &unstructured.Unstructured{}
		u.SetNamespace(pi.Namespace)
		u.SetName(pi.Name)
		u.SetLabels(map[string]string{render.LabelPlan: id, render.LabelTemplate: pi.Template})
		out = append(out, u)
	}
	return out
}

// Namespaces are the namespaces policy objects live in, sorted, each
// once: where a checkpoint reads their events and PolicyReports.
// Cluster-scoped objects (the vap target's) have none.
func Namespaces(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, u := range objs {
		if ns := u.GetNamespace(); ns != "" {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Report builds the final report of plan p (as Decide returned it) from
// the plan's ledger after its last checkpoint (with f.Index), its health
// samples, its edge journals (e: the report lists every edge action and
// restore with its outcome) and the names of the files its reports
// directory holds. write is false when the directory already holds the
// report whole (a pass cut short after writing it): it is not written
// twice. One found in part is written again under the same ID. While the
// edge restores are not done (Waiting), it is refused with an
// *EdgePendingError: ask Waiting before the checkpoint.
func (f *Final) Report(p *plan.ProtectionPlan, ledger violations.Ledger, samples []report.HealthSample, e FinalEdge, names []string, now time.Time) (rep report.Report, write bool, err error) {
	if report.Whole(f.ID, names) {
		return report.Report{ID: f.ID}, false, nil
	}
	if why := f.Waiting(e); why != "" {
		return report.Report{}, false, &EdgePendingError{Reason: why}
	}
	rep, err = report.Build(report.Input{
		ID: f.ID, Plan: p, Applications: f.Applications, Policies: f.Policies, Health: samples,
		Violations: ledger.Violations, ViolationsTruncated: ledger.Truncated, ViolationsDropped: ledger.Dropped,
		EdgeJournals: e.journals(), EdgeDropped: e.History.Dropped,
		Trigger: f.Trigger, Now: now,
	})
	return rep, err == nil, err
}

// MarkWritten returns p with its final report recorded as written under
// id at now, and the event that says so. Store its status; until it is
// stored, Decide returns the report as due again (and Report finds it
// whole).
func MarkWritten(p *plan.ProtectionPlan, id string, now time.Time) (*plan.ProtectionPlan, Event) {
	out := p.DeepCopy()
	if fr := out.Status.FinalReport; fr != nil {
		fr.ID = id
		fr.WrittenAt = &metav1.Time{Time: now}
	}
	trig := ""
	if fr := out.Status.FinalReport; fr != nil {
		trig = " (" + fr.Trigger + ")"
	}
	return out, Event{Reason: EventReportWritten, Severity: Normal, Action: "Report", Note: "final report " + id + trig + " written"}
}

// ReportFailed is the event of a final report that could not be written.
func ReportFailed(err error) Event {
	return Event{Reason: EventReportFailed, Severity: Warning, Action: "Report", Note: err.Error()}
}
