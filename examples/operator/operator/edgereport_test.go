package operator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
)

// finalReport reads the plan's final report as written (its JSON), nil
// when none is written.
func (f *fixture) writtenReport(p *plan.ProtectionPlan) *report.Report {
	f.t.Helper()
	fr := p.Status.FinalReport
	if fr == nil || fr.WrittenAt == nil {
		return nil
	}
	var r report.Report
	f.readJSON(p.Name, report.FileName(fr.ID, report.JSON), &r)
	return &r
}

// edgeOutcomes are the report's participants: "<name> <start> <restore>".
func edgeOutcomes(t *testing.T, r *report.Report) []string {
	t.Helper()
	if r.EdgeActions == nil || len(r.EdgeActions.Windows) != 1 {
		t.Fatalf("the report's edge actions %+v, want one window", r.EdgeActions)
	}
	var out []string
	for _, a := range r.EdgeActions.Windows[0].Actions {
		for _, p := range a.Participants {
			out = append(out, p.Target.Name+" "+string(p.Start.Outcome)+" "+string(p.Restore.Outcome))
		}
	}
	return out
}

func TestEdge_TheFinalReportListsEveryActionAndRestore(t *testing.T) {
	f, _ := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil), cron("cleanup", ptrTo(true)))
	f.pass()
	f.tick(2 * time.Hour) // the window ends: restored, then reported, in one pass
	p := f.plan("xmas")
	r := f.writtenReport(p)
	if r == nil {
		t.Fatalf("final report %+v: want it written in the pass that restored", p.Status.FinalReport)
	}
	// The journal's order: kind, namespace, name.
	want := "cleanup skipped not_needed|report applied restored"
	if got := strings.Join(edgeOutcomes(t, r), "|"); got != want {
		t.Errorf("participants %q, want %q", got, want)
	}
	if w := r.EdgeActions.Windows[0]; w.Phase != edge.Done || w.RestoringSince == nil {
		t.Errorf("window %+v: want done, with when the restore began", w)
	}
	var h reconcile.EdgeHistory
	f.readJSON("xmas", store.EdgeFile, &h)
	if len(h.Journals) != 1 || h.Journals[0].Phase != edge.Done {
		t.Errorf("edge history %+v: want the finished journal kept", h)
	}
	if f.journal(p) != nil {
		t.Error("the journal's Secret is kept after the restore")
	}
}

func TestEdge_AFailedRestoreHoldsTheFinalReportUntilAbandoned(t *testing.T) {
	f, s := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil))
	f.r.edge = conflictingSender{s}
	f.pass()
	f.tick(2 * time.Hour)
	f.tick(time.Minute)
	p := f.plan("xmas")
	if !p.Status.FinalReport.Due() || f.writtenReport(p) != nil {
		t.Fatalf("final report %+v: want it due and not written while the restore failed", p.Status.FinalReport)
	}
	if names, _ := f.r.store.Names("xmas"); strings.Contains(strings.Join(names, " "), "-end-") {
		t.Fatalf("files %v: a report was written while the restore failed", names)
	}
	if evs := strings.Join(f.drainEvents(), "\n"); strings.Contains(evs, reconcile.EventReportFailed) {
		t.Errorf("events:\n%s\nwant a report that waits, not one that fails", evs)
	}

	p.Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "alice, INC-4711"}
	if err := f.c.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	f.tick(time.Minute)
	p = f.plan("xmas")
	r := f.writtenReport(p)
	if r == nil {
		t.Fatalf("final report %+v: want it written once the failure is abandoned", p.Status.FinalReport)
	}
	if got := edgeOutcomes(t, r); len(got) != 1 || got[0] != "report applied abandoned" {
		t.Errorf("participants %q, want the report's restore abandoned", got)
	}
	if w := r.EdgeActions.Windows[0]; !strings.Contains(w.AbandonedBy, "alice, INC-4711") ||
		!strings.Contains(w.Actions[0].Participants[0].Restore.Reason, "kubectl-edit") {
		t.Errorf("window %+v: want who abandoned, and the conflict it gave up", w)
	}
}

func TestEdge_ACrashBeforeTheJournalIsDeletedLosesNothing(t *testing.T) {
	f, _ := edgeFixture(t, []edge.Action{{Name: edge.SuspendCronJobs}}, cron("report", nil))
	f.pass()
	// The restore is done and kept, then deleting the journal's Secret
	// fails (the process dies there, say).
	f.fault = func(verb, kind string) injection {
		if verb == "delete" && kind == "Secret" {
			return injection{err: errors.New("connection reset by peer")}
		}
		return injection{}
	}
	f.tick(2 * time.Hour)
	p := f.plan("xmas")
	if j := f.journal(p); j == nil || j.Phase != edge.Done {
		t.Fatalf("journal %+v: want the finished journal still in its Secret", j)
	}
	// A done journal holds nothing back: the report is written, with the
	// window once (kept and in its Secret).
	r := f.writtenReport(p)
	if r == nil {
		t.Fatalf("final report %+v: want it written", p.Status.FinalReport)
	}
	if got := edgeOutcomes(t, r); len(got) != 1 || got[0] != "report applied restored" {
		t.Errorf("participants %q", got)
	}
	f.fault = nil
	f.tick(time.Minute)
	var h reconcile.EdgeHistory
	f.readJSON("xmas", store.EdgeFile, &h)
	if p = f.plan("xmas"); f.journal(p) != nil || len(h.Journals) != 1 {
		t.Errorf("journal %+v, history of %d: want the Secret deleted and the journal kept once", f.journal(p), len(h.Journals))
	}
}
