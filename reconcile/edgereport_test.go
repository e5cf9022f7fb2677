package reconcile_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
)

// edgePass is the embedder's edge pass after the plan's status is stored,
// as the example operator's: decide, persist the journal before any
// patch, send, record the results; when every restore is done, keep the
// finished journal (EdgeHistory) before deleting the Secret's.
func (w *world) edgePass(id string, out reconcile.Output, now time.Time) {
	p := w.plans[id]
	if len(p.Spec.EdgeActions) == 0 && w.journals[id] == nil {
		return
	}
	in := reconcile.EdgeInput{Plan: p, Journal: w.journals[id], Live: w.edgeLive, Executor: executor, Now: now}
	for range 3 {
		eo := reconcile.DecideEdge(in)
		if eo.AddFinalizer {
			p.Finalizers = append(p.Finalizers, edge.Finalizer)
		}
		d := eo.Decision
		if d.Journal != nil {
			w.journals[id], in.Journal = d.Journal, d.Journal
		}
		if len(d.Patches) > 0 {
			var res []edge.Result
			for _, pt := range d.Patches {
				r := edge.Result{Entry: pt.Entry, Outcome: edge.Succeeded}
				if w.edgeAnswer != nil {
					r = w.edgeAnswer(pt)
					r.Entry = pt.Entry
				}
				res = append(res, r)
			}
			j := edge.Record(*in.Journal, res)
			w.journals[id], in.Journal = &j, &j
			continue
		}
		if d.DeleteJournal {
			if d.Finished != nil {
				w.histories[id] = w.histories[id].Keep(p, *d.Finished)
			}
			delete(w.journals, id)
		}
		if eo.RemoveFinalizer {
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == edge.Finalizer })
		}
		if eo.ClearAbandon {
			delete(p.Annotations, reconcile.AnnotationEdgeAbandon)
		}
		return
	}
}

// edgeWorld is the Christmas freeze with a CronJob to suspend, active,
// its CronJob suspended at the start.
func edgeWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld("shop", "payments")
	p := freeze("xmas", "shop", "payments")
	p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}}
	w.add(p)
	w.edgeLive = []*unstructured.Unstructured{edgeCron(t, "shop", "report", "cron-uid", "web", false)}
	w.pass(start.Add(-time.Hour))
	w.pass(start)
	j := w.journals["xmas"]
	if w.plans["xmas"].Status.Phase != plan.PhaseActive || j == nil || j.Phase != edge.Started || j.Entries[0].State != edge.Applied {
		t.Fatalf("setup: %s, journal %+v", w.plans["xmas"].Status.Phase, j)
	}
	// The CronJob as the start's patch left it.
	w.edgeLive = []*unstructured.Unstructured{edgeCron(t, "shop", "report", "cron-uid", "web", true)}
	w.events = nil
	return w
}

// restoreOf is the outcome of the report's restore of the CronJob.
func restoreOf(t *testing.T, r report.Report) report.EdgeStep {
	t.Helper()
	if r.EdgeActions == nil || len(r.EdgeActions.Windows) != 1 || len(r.EdgeActions.Windows[0].Actions) != 1 ||
		len(r.EdgeActions.Windows[0].Actions[0].Participants) != 1 {
		t.Fatalf("the report's edge actions %+v, want the window's one CronJob", r.EdgeActions)
	}
	return r.EdgeActions.Windows[0].Actions[0].Participants[0].Restore
}

func TestFinalReportWaitsForEdgeRestores(t *testing.T) {
	const id = "xmas-end-20261227T050000Z"
	t.Run("a report not due while restores are pending is written by the pass that finishes them, with the restores", func(t *testing.T) {
		w := edgeWorld(t)
		w.edgeAnswer = func(edge.Patch) edge.Result {
			return edge.Result{Outcome: edge.Errored, Message: "etcdserver: request timed out"}
		}
		out := w.passPlan("xmas", end)
		if out.Final == nil {
			t.Fatal("the run ended without a final report due")
		}
		if got := w.finalReports("xmas"); len(got) != 0 {
			t.Fatalf("reports %v written while the restore is pending", got)
		}
		if why := out.Final.Waiting(reconcile.FinalEdge{Journal: w.journals["xmas"]}); !strings.Contains(why, "1 of 1 edge participants are still to restore") {
			t.Errorf("Waiting = %q", why)
		}
		_, _, err := out.Final.Report(out.Plan, w.ledgers["xmas"], nil, reconcile.FinalEdge{Journal: w.journals["xmas"]}, nil, end)
		var pending *reconcile.EdgePendingError
		if !errors.As(err, &pending) || plan.CodeOf(err) != 409 {
			t.Errorf("Report while restores are pending = %v, want an *EdgePendingError (409)", err)
		}

		w.edgeAnswer = nil
		w.passPlan("xmas", end.Add(time.Minute))
		if got := w.finalReports("xmas"); len(got) != 1 || got[0] != id {
			t.Fatalf("reports %v, want %s once the restore is done", got, id)
		}
		if w.journals["xmas"] != nil || len(w.histories["xmas"].Journals) != 1 {
			t.Errorf("journal %+v, history %+v: want the Secret's deleted and the journal kept", w.journals["xmas"], w.histories["xmas"])
		}
		if s := restoreOf(t, w.reports[id]); s.Outcome != report.EdgeRestored {
			t.Errorf("restore %+v, want restored", s)
		}
		if fr := w.plans["xmas"].Status.FinalReport; fr == nil || fr.WrittenAt == nil {
			t.Errorf("final report status %+v, want written", fr)
		}
	})
	t.Run("a report due when the restores finish in the same pass lists them at once", func(t *testing.T) {
		w := edgeWorld(t)
		w.passPlan("xmas", end)
		if got := w.finalReports("xmas"); len(got) != 1 {
			t.Fatalf("reports %v, want the report in the pass that ended the run", got)
		}
		if s := restoreOf(t, w.reports[id]); s.Outcome != report.EdgeRestored {
			t.Errorf("restore %+v, want restored", s)
		}
	})
	t.Run("a failed restore holds the report until it is abandoned, and the report says so", func(t *testing.T) {
		w := edgeWorld(t)
		w.edgeAnswer = func(edge.Patch) edge.Result {
			return edge.Result{Outcome: edge.OwnershipConflict, Field: ".spec.suspend", Manager: "kubectl-edit"}
		}
		w.passPlan("xmas", end)
		w.passPlan("xmas", end.Add(time.Minute))
		if got := w.finalReports("xmas"); len(got) != 0 {
			t.Fatalf("reports %v written while a restore failed", got)
		}
		if !slices.ContainsFunc(w.events, func(e string) bool {
			return strings.Contains(e, "1 edge restores failed: resolve them or abandon them")
		}) {
			t.Errorf("events %v: want the report's wait explained", w.events)
		}
		w.plans["xmas"].Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "alice"}
		w.passPlan("xmas", end.Add(2*time.Minute))
		if got := w.finalReports("xmas"); len(got) != 1 {
			t.Fatalf("reports %v, want the report once the failure is abandoned", got)
		}
		s := restoreOf(t, w.reports[id])
		if s.Outcome != report.EdgeAbandoned || !strings.Contains(s.Reason, `"alice"`) || !strings.Contains(s.Reason, "kubectl-edit") {
			t.Errorf("restore %+v, want abandoned by alice after the conflict with kubectl-edit", s)
		}
		if w.reports[id].EdgeActions.Windows[0].AbandonedBy == "" {
			t.Error("the report's window does not say who abandoned")
		}
	})
	t.Run("an unreadable journal holds the report", func(t *testing.T) {
		f := &reconcile.Final{ID: id}
		if why := f.Waiting(reconcile.FinalEdge{JournalErr: errors.New("version \"x\" is not known")}); !strings.Contains(why, "cannot be read") {
			t.Errorf("Waiting = %q", why)
		}
	})
	t.Run("a done journal a crash kept in its Secret does not hold the report, and is listed", func(t *testing.T) {
		w := edgeWorld(t)
		j := *w.journals["xmas"]
		j.Phase, j.Entries = edge.Done, slices.Clone(j.Entries)
		j.Entries[0].State = edge.Restored
		f := &reconcile.Final{ID: id}
		if why := f.Waiting(reconcile.FinalEdge{Journal: &j}); why != "" {
			t.Errorf("Waiting = %q, want none", why)
		}
	})
}

func TestEdgeHistory_Keep(t *testing.T) {
	p := edgePlan(plan.PhaseTerminated)
	p.Status.StartedAt = &metav1.Time{Time: start}
	journal := func(captured time.Time) edge.Journal {
		return edge.Journal{Version: edge.JournalVersion, Plan: reconcile.PlanRef(p), Start: captured, CapturedAt: captured, Phase: edge.Done}
	}
	day := 24 * time.Hour
	tests := []struct {
		name        string
		kept        reconcile.EdgeHistory
		finished    edge.Journal
		wantStarts  []time.Time
		wantDropped int
	}{{
		name:       "a finished journal is kept",
		finished:   journal(start),
		wantStarts: []time.Time{start},
	}, {
		name:       "a journal kept again after a crash is kept once, as it ended",
		kept:       reconcile.EdgeHistory{Journals: []edge.Journal{journal(start)}},
		finished:   journal(start),
		wantStarts: []time.Time{start},
	}, {
		name:       "the windows of a run are kept oldest first",
		kept:       reconcile.EdgeHistory{Journals: []edge.Journal{journal(start.Add(day))}},
		finished:   journal(start),
		wantStarts: []time.Time{start, start.Add(day)},
	}, {
		name:       "an earlier run's journals are dropped, and their count with them",
		kept:       reconcile.EdgeHistory{Journals: []edge.Journal{journal(start.Add(-30 * day))}, Dropped: 4},
		finished:   journal(start),
		wantStarts: []time.Time{start},
	}, {
		name: "another plan's journals are dropped",
		kept: reconcile.EdgeHistory{Journals: []edge.Journal{func() edge.Journal {
			j := journal(start.Add(time.Hour))
			j.Plan.UID = "an-earlier-plan-of-the-same-name"
			return j
		}()}},
		finished:   journal(start),
		wantStarts: []time.Time{start},
	}, {
		name: "beyond MaxEdgeHistory the oldest are dropped and counted",
		kept: func() reconcile.EdgeHistory {
			var h reconcile.EdgeHistory
			for i := range reconcile.MaxEdgeHistory {
				h.Journals = append(h.Journals, journal(start.Add(time.Duration(i)*day)))
			}
			h.Dropped = 2
			return h
		}(),
		finished: journal(start.Add(reconcile.MaxEdgeHistory * day)),
		wantStarts: func() []time.Time {
			var out []time.Time
			for i := 1; i <= reconcile.MaxEdgeHistory; i++ {
				out = append(out, start.Add(time.Duration(i)*day))
			}
			return out
		}(),
		wantDropped: 3,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.kept.Keep(p, tt.finished)
			var starts []time.Time
			for _, j := range h.Journals {
				starts = append(starts, j.Start)
			}
			if !slices.EqualFunc(starts, tt.wantStarts, time.Time.Equal) || h.Dropped != tt.wantDropped {
				t.Errorf("kept %v, dropped %d; want %v, %d", starts, h.Dropped, tt.wantStarts, tt.wantDropped)
			}
		})
	}
}

func TestManualReport_ShowsTheRestoresStillPending(t *testing.T) {
	w := edgeWorld(t)
	rep, err := reconcile.ManualReport(reconcile.ManualInput{Plan: w.plans["xmas"], Now: start.Add(2 * time.Hour),
		Edge: reconcile.FinalEdge{Journal: w.journals["xmas"]}})
	if err != nil {
		t.Fatal(err)
	}
	if s := restoreOf(t, rep); s.Outcome != report.EdgePending {
		t.Errorf("restore %+v, want pending during the window", s)
	}
}
