package reconcile_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

func edgeObj(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(s), &u.Object); err != nil {
		t.Fatalf("fixture %s: %v", s, err)
	}
	return u
}

func edgeCron(t *testing.T, ns, name, uid, app string, suspended bool) *unstructured.Unstructured {
	s := `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"` + name + `","namespace":"` + ns + `","uid":"` + uid + `","resourceVersion":"5","labels":{"app":"` + app + `"}},"spec":{"schedule":"@hourly","jobTemplate":{}`
	if suspended {
		s += `,"suspend":true`
	}
	return edgeObj(t, s+`}}`)
}

// executor is the edge executor the tests' operator impersonates.
const executor = "protectionplans:edge-executor"

// edgePlan is the Christmas freeze over shop, active, suspending CronJobs.
func edgePlan(phase plan.Phase) *plan.ProtectionPlan {
	p := freeze("xmas", "shop")
	p.Namespace, p.UID, p.Generation = "platform", "plan-uid", 1
	p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}}
	p.Status.Phase = phase
	return p
}

// started is the journal of a start whose patch succeeded.
func started(t *testing.T, p *plan.ProtectionPlan, live ...*unstructured.Unstructured) *edge.Journal {
	t.Helper()
	out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Live: live, Now: start.Add(time.Hour)})
	if out.Err != nil || out.Decision.Journal == nil {
		t.Fatalf("no start: %v", out.Err)
	}
	var res []edge.Result
	for _, pt := range out.Decision.Patches {
		res = append(res, edge.Result{Entry: pt.Entry, Outcome: edge.Succeeded})
	}
	j := edge.Record(*out.Decision.Journal, res)
	return &j
}

func TestDecideEdge(t *testing.T) {
	during, after := start.Add(2*time.Hour), end.Add(time.Hour)
	tests := []struct {
		name string
		plan func() *plan.ProtectionPlan
		apps []plan.Application
		// journal builds the journal as persisted before the pass.
		journal    func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal
		journalErr error
		live       func(t *testing.T) []*unstructured.Unstructured
		limits     edge.Limits
		now        time.Time

		wantJournal  edge.Phase // "" when no journal is to be persisted
		wantPatches  int
		wantRestores bool
		wantDelete   bool
		wantAdd      bool
		wantRemove   bool
		wantReason   string // the condition's reason, "" for none
		wantStatus   metav1.ConditionStatus
		wantEvent    string
		wantErr      any
		wantRecords  int
	}{{
		name: "an active plan inside its window starts: the finalizer first, then the journal, then the patch",
		plan: func() *plan.ProtectionPlan { return edgePlan(plan.PhaseActive) },
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false), edgeCron(t, "other", "x", "u2", "web", false)}
		},
		now:         during,
		wantJournal: edge.Starting, wantPatches: 1, wantAdd: true,
		wantReason: reconcile.EdgeStarting, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsStarting", wantRecords: 1,
	}, {
		name: "a scheduled plan without a journal decides nothing and sets no condition",
		plan: func() *plan.ProtectionPlan { return edgePlan(plan.PhaseScheduled) },
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}
		},
		now: start.Add(-time.Hour),
	}, {
		name: "a plan without edge actions and without a journal decides nothing",
		plan: func() *plan.ProtectionPlan { p := edgePlan(plan.PhaseActive); p.Spec.EdgeActions = nil; return p },
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}
		},
		now: during,
	}, {
		name: "a canceled plan with a started journal restores by the recorded UID",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseCanceled)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.Status.Phase = plan.PhaseActive
			return started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false))
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "other-label", true)}
		},
		now:         during,
		wantJournal: edge.Restoring, wantPatches: 1, wantRestores: true,
		wantReason: reconcile.EdgeRestoring, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsRestoring", wantRecords: 1,
	}, {
		name: "an active plan past its window restores",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseTerminated)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.Status.Phase = plan.PhaseActive
			return started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false))
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}
		},
		now:         after,
		wantJournal: edge.Restoring, wantPatches: 1, wantRestores: true,
		wantReason: reconcile.EdgeRestoring, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsRestoring", wantRecords: 1,
	}, {
		name: "a plan being deleted with restores pending keeps its finalizer and starts nothing new",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseActive)
			p.Finalizers = []string{edge.Finalizer}
			p.DeletionTimestamp = &metav1.Time{Time: during}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.DeletionTimestamp = nil
			return started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false))
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true), edgeCron(t, "shop", "late", "u9", "web", false)}
		},
		now:         during,
		wantJournal: edge.Restoring, wantPatches: 1, wantRestores: true,
		wantReason: reconcile.EdgeRestoring, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsRestoring", wantRecords: 1,
	}, {
		name: "a plan being deleted without a journal lets its finalizer go",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseActive)
			p.Finalizers = []string{edge.Finalizer}
			p.DeletionTimestamp = &metav1.Time{Time: during}
			return p
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}
		},
		now:        during,
		wantRemove: true,
	}, {
		name: "restores done delete the journal and then the finalizer, with every record",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseTerminated)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.Status.Phase = plan.PhaseActive
			j := started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false), edgeCron(t, "shop", "nightly", "u2", "web", true))
			out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: j, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}, Now: after})
			done := edge.Record(*out.Decision.Journal, []edge.Result{{Entry: out.Decision.Patches[0].Entry, Outcome: edge.Succeeded}})
			return &done
		},
		live:       func(t *testing.T) []*unstructured.Unstructured { return nil },
		now:        after,
		wantDelete: true, wantRemove: true,
		wantReason: reconcile.EdgeRestored, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsRestored", wantRecords: 2,
	}, {
		name: "a failed restore keeps the journal and the finalizer and is reported as a warning",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseTerminated)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.Status.Phase = plan.PhaseActive
			j := started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false))
			out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: j, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}, Now: after})
			f := edge.Record(*out.Decision.Journal, []edge.Result{{Entry: 0, Outcome: edge.OwnershipConflict, Field: ".spec.suspend", Manager: "kubectl"}})
			return &f
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}
		},
		now:        after,
		wantReason: reconcile.EdgeRestoreFailed, wantStatus: metav1.ConditionFalse, wantEvent: "EdgeActionsRestoreFailed", wantRecords: 1,
	}, {
		name: "a restore refused by another plan's freeze is sent again and reported while it is",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseTerminated)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.Status.Phase = plan.PhaseActive
			j := started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false))
			out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: j, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}, Now: after})
			f := edge.Record(*out.Decision.Journal, []edge.Result{{Entry: 0, Outcome: edge.Refused, Message: "denied by plan other"}})
			return &f
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}
		},
		now:         after,
		wantPatches: 1, wantRestores: true,
		wantReason: reconcile.EdgeRestoreRetrying, wantStatus: metav1.ConditionFalse, wantEvent: "EdgeActionsRestoreRetrying", wantRecords: 1,
	}, {
		name: "a start over the participant limit is refused before any mutation and says why",
		plan: func() *plan.ProtectionPlan { return edgePlan(plan.PhaseActive) },
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "a", "u1", "web", false), edgeCron(t, "shop", "b", "u2", "web", false)}
		},
		limits:     edge.Limits{MaxParticipants: 1},
		now:        during,
		wantReason: reconcile.EdgeLimitExceeded, wantStatus: metav1.ConditionFalse, wantEvent: "EdgeActionsLimitExceeded",
		wantErr: new(*edge.LimitError),
	}, {
		name: "a journal that cannot be read keeps the finalizer and restores nothing",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseTerminated)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journalErr: errors.New("invalid character 'x'"),
		now:        after,
		wantReason: reconcile.EdgeJournalUnreadable, wantStatus: metav1.ConditionFalse, wantEvent: "EdgeActionsJournalUnreadable",
		wantErr: new(*edge.JournalError),
	}, {
		name: "a failed plan starts nothing without a journal",
		plan: func() *plan.ProtectionPlan { return edgePlan(plan.PhaseFailed) },
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}
		},
		now: during,
	}, {
		name: "a failed plan keeps a start made in the same window instead of restoring it",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseFailed)
			p.Finalizers = []string{edge.Finalizer}
			return p
		},
		journal: func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
			ap := p.DeepCopy()
			ap.Status.Phase = plan.PhaseActive
			return started(t, ap, edgeCron(t, "shop", "report", "u1", "web", false))
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}
		},
		now:        during,
		wantReason: reconcile.EdgeStarted, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsStarted", wantRecords: 1,
	}, {
		name: "an applications scope takes each application's members in its own namespaces",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseActive)
			p.Spec.Scope = plan.Scope{Applications: []string{"web", "api"}}
			return p
		},
		apps: []plan.Application{
			{Name: "web", Namespaces: []string{"shop"}, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			{Name: "api", Namespaces: []string{"cart"}, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}}},
		},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{
				edgeCron(t, "shop", "report", "u1", "web", false), // web's
				edgeCron(t, "shop", "other", "u2", "api", false),  // api's label, web's namespace: no
				edgeCron(t, "cart", "sweep", "u3", "api", false),  // api's
			}
		},
		now:         during,
		wantJournal: edge.Starting, wantPatches: 2, wantAdd: true,
		wantReason: reconcile.EdgeStarting, wantStatus: metav1.ConditionTrue, wantEvent: "EdgeActionsStarting", wantRecords: 2,
	}, {
		name: "an application whose selector cannot be read starts nothing and says which",
		plan: func() *plan.ProtectionPlan {
			p := edgePlan(plan.PhaseActive)
			p.Spec.Scope = plan.Scope{Applications: []string{"web"}}
			return p
		},
		apps: []plan.Application{{Name: "web", Namespaces: []string{"shop"}, Selector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Sometimes"}}}}},
		live: func(t *testing.T) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}
		},
		now:        during,
		wantReason: reconcile.EdgeInvalidScope, wantStatus: metav1.ConditionFalse, wantEvent: "EdgeActionsInvalidScope",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.plan()
			in := reconcile.EdgeInput{Executor: executor, Plan: p, Applications: tt.apps, JournalErr: tt.journalErr, Limits: tt.limits, Now: tt.now}
			if tt.journal != nil {
				in.Journal = tt.journal(t, p)
			}
			if tt.live != nil {
				in.Live = tt.live(t)
			}
			out := reconcile.DecideEdge(in)
			d := out.Decision
			switch {
			case tt.wantErr == nil && out.Err != nil:
				t.Fatalf("err = %v", out.Err)
			case tt.wantErr != nil && !errors.As(out.Err, tt.wantErr):
				t.Fatalf("err = %v (%T), want %T", out.Err, out.Err, tt.wantErr)
			}
			if tt.wantJournal == "" && d.Journal != nil {
				t.Errorf("journal %s to persist, want none", d.Journal.Phase)
			}
			if tt.wantJournal != "" && (d.Journal == nil || d.Journal.Phase != tt.wantJournal) {
				t.Errorf("journal = %+v, want phase %s", d.Journal, tt.wantJournal)
			}
			if len(d.Patches) != tt.wantPatches {
				t.Errorf("%d patches, want %d", len(d.Patches), tt.wantPatches)
			}
			for _, pt := range d.Patches {
				if pt.Restore != tt.wantRestores || pt.FieldManager != edge.DefaultFieldManager {
					t.Errorf("patch %+v: restore %v, manager %q", pt, tt.wantRestores, edge.DefaultFieldManager)
				}
			}
			if d.DeleteJournal != tt.wantDelete || out.AddFinalizer != tt.wantAdd || out.RemoveFinalizer != tt.wantRemove {
				t.Errorf("delete journal %v, add finalizer %v, remove it %v; want %v %v %v", d.DeleteJournal, out.AddFinalizer, out.RemoveFinalizer, tt.wantDelete, tt.wantAdd, tt.wantRemove)
			}
			switch {
			case tt.wantReason == "" && out.Condition != nil:
				t.Errorf("condition %+v, want none", out.Condition)
			case tt.wantReason != "" && (out.Condition == nil || out.Condition.Reason != tt.wantReason || out.Condition.Status != tt.wantStatus || out.Condition.Type != reconcile.ConditionEdgeActions):
				t.Errorf("condition %+v, want %s %s", out.Condition, tt.wantStatus, tt.wantReason)
			}
			var events []string
			for _, ev := range out.Events {
				events = append(events, ev.Reason)
			}
			if got := strings.Join(events, ","); got != tt.wantEvent {
				t.Errorf("events %q, want %q", got, tt.wantEvent)
			}
			if len(out.Records) != tt.wantRecords {
				t.Errorf("%d records, want %d: %+v", len(out.Records), tt.wantRecords, out.Records)
			}
		})
	}
}

func TestDecideEdgeEvents(t *testing.T) {
	t.Run("a pass repeated with the same condition repeats no event", func(t *testing.T) {
		p := edgePlan(plan.PhaseActive)
		live := []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}
		out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Live: live, Now: start.Add(time.Hour)})
		if len(out.Events) != 1 || out.Condition == nil {
			t.Fatalf("first pass: events %+v, condition %+v", out.Events, out.Condition)
		}
		plan.SetCondition(p, *out.Condition, start.Add(time.Hour))
		again := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: out.Decision.Journal, Live: live, Now: start.Add(time.Hour + time.Minute)})
		if len(again.Events) != 0 {
			t.Errorf("second pass events %+v, want none", again.Events)
		}
	})
	t.Run("a failed restore's warning names the object and the error", func(t *testing.T) {
		p := edgePlan(plan.PhaseActive)
		j := started(t, p, edgeCron(t, "shop", "report", "u1", "web", false))
		p.Status.Phase = plan.PhaseCanceled
		out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: j, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}, Now: start.Add(2 * time.Hour)})
		f := edge.Record(*out.Decision.Journal, []edge.Result{{Entry: 0, Outcome: edge.OwnershipConflict, Field: ".spec.suspend", Manager: "other-plan-tool"}})
		out = reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: &f, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}, Now: start.Add(2 * time.Hour)})
		if len(out.Events) != 1 || out.Events[0].Severity != reconcile.Warning || !strings.Contains(out.Events[0].Note, "shop/report") || !strings.Contains(out.Events[0].Note, "other-plan-tool") {
			t.Errorf("events %+v", out.Events)
		}
	})
}

func TestDecideEdgeCrash(t *testing.T) {
	t.Run("a pass after a crash between the journal and the patch finishes the start once, capturing nothing again", func(t *testing.T) {
		p := edgePlan(plan.PhaseActive)
		p.Finalizers = []string{edge.Finalizer}
		first := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}, Now: start.Add(time.Hour)})
		persisted := first.Decision.Journal // written; the process died before the patch
		// The patch landed after all? No: the object is as it was.
		again := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: persisted, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", false)}, Now: start.Add(2 * time.Hour)})
		if len(again.Decision.Patches) != 1 || again.Decision.Patches[0].Restore || again.AddFinalizer {
			t.Fatalf("patches %+v, add finalizer %v", again.Decision.Patches, again.AddFinalizer)
		}
		// The patch landed, then the process died before recording it.
		patched := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: persisted, Live: []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", true)}, Now: start.Add(2 * time.Hour)})
		j := patched.Decision.Journal
		if len(patched.Decision.Patches) != 0 || j == nil || j.Phase != edge.Started || j.Entries[0].State != edge.Applied || j.Entries[0].Captured.Present {
			t.Fatalf("patches %+v, journal %+v: want Started, Applied, the captured value still absent (never our own true)", patched.Decision.Patches, j)
		}
	})
}

func TestDecideRendersTheEdgeExecutor(t *testing.T) {
	t.Run("a pass with an edge executor configured renders the plan's exemption of it", func(t *testing.T) {
		w := newWorld("shop")
		p := edgePlan(plan.PhaseActive)
		p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}}
		w.add(p)
		in := w.input("xmas", start.Add(time.Hour))
		in.Settings.Target = "vap"
		in.Settings.EdgeExecutor = "protectionplans:edge-executor"
		out := reconcile.Decide(in)
		found := false
		for _, a := range out.Actions {
			if a.Object == nil {
				continue
			}
			b, _ := json.Marshal(a.Object.Object)
			found = found || strings.Contains(string(b), "exempt-edge-executor")
		}
		if !found {
			t.Fatalf("no action renders the executor exemption: %d actions, failure %+v", len(out.Actions), out.Failure)
		}
	})
}

func TestDecideEdgeExecutorAndAbandon(t *testing.T) {
	during := start.Add(time.Hour)
	cron := func(t *testing.T, suspended bool) []*unstructured.Unstructured {
		return []*unstructured.Unstructured{edgeCron(t, "shop", "report", "u1", "web", suspended)}
	}
	// failedJournal is a canceled plan's journal whose restore met an
	// ownership conflict.
	failedJournal := func(t *testing.T, p *plan.ProtectionPlan) *edge.Journal {
		j := started(t, p, cron(t, false)...)
		p.Status.Phase = plan.PhaseCanceled
		out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: executor, Plan: p, Journal: j, Live: cron(t, true), Now: during})
		f := edge.Record(*out.Decision.Journal, []edge.Result{{Entry: 0, Outcome: edge.OwnershipConflict, Field: ".spec.suspend", Manager: "kubectl-edit"}})
		return &f
	}
	tests := []struct {
		name    string
		plan    func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error)
		noExec  bool
		reason  string
		patches int
		add     bool
		remove  bool
		clear   bool
		deleteJ bool
	}{{
		name:   "a plan with edge actions and no executor configured starts nothing and says why",
		noExec: true,
		plan: func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error) {
			return edgePlan(plan.PhaseActive), nil, nil
		},
		reason: reconcile.EdgeNoExecutor,
	}, {
		name:   "a journal without an executor configured keeps the finalizer and restores nothing",
		noExec: true,
		plan: func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error) {
			p := edgePlan(plan.PhaseActive)
			j := started(t, p, cron(t, false)...)
			p.Finalizers = []string{edge.Finalizer}
			p.Status.Phase = plan.PhaseCanceled
			return p, j, nil
		},
		reason: reconcile.EdgeNoExecutor,
	}, {
		name:   "a plan without edge actions nor journal and no executor is left alone, its stale finalizer removed",
		noExec: true,
		plan: func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error) {
			p := edgePlan(plan.PhaseActive)
			p.Spec.EdgeActions = nil
			p.Finalizers = []string{edge.Finalizer}
			return p, nil, nil
		},
		remove: true,
	}, {
		name: "the abandon annotation gives up a failed restore: the journal goes, the finalizer too, the annotation is cleared",
		plan: func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error) {
			p := edgePlan(plan.PhaseActive)
			j := failedJournal(t, p)
			p.Finalizers = []string{edge.Finalizer}
			p.Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "alice"}
			return p, j, nil
		},
		reason: reconcile.EdgeRestored, remove: true, clear: true, deleteJ: true,
	}, {
		name: "the abandon annotation on a journal without failures is cleared and abandons nothing",
		plan: func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error) {
			p := edgePlan(plan.PhaseActive)
			j := started(t, p, cron(t, false)...)
			p.Finalizers = []string{edge.Finalizer}
			p.Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "alice"}
			return p, j, nil
		},
		reason: reconcile.EdgeStarted, clear: true,
	}, {
		name: "the abandon annotation gives up a journal that cannot be read: it is deleted, nothing restored",
		plan: func(t *testing.T) (*plan.ProtectionPlan, *edge.Journal, error) {
			p := edgePlan(plan.PhaseCanceled)
			p.Finalizers = []string{edge.Finalizer}
			p.Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "alice"}
			return p, nil, errors.New("invalid character")
		},
		reason: reconcile.EdgeRestored, remove: true, clear: true, deleteJ: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, j, jerr := tt.plan(t)
			in := reconcile.EdgeInput{Executor: executor, Plan: p, Journal: j, JournalErr: jerr, Live: cron(t, true), Now: during}
			if tt.noExec {
				in.Executor = ""
			}
			out := reconcile.DecideEdge(in)
			reason := ""
			if out.Condition != nil {
				reason = out.Condition.Reason
			}
			if reason != tt.reason {
				t.Errorf("condition %+v, want reason %q", out.Condition, tt.reason)
			}
			if len(out.Decision.Patches) != tt.patches || out.AddFinalizer != tt.add || out.RemoveFinalizer != tt.remove ||
				out.ClearAbandon != tt.clear || out.Decision.DeleteJournal != tt.deleteJ {
				t.Errorf("patches %d, add %v, remove %v, clear %v, delete journal %v; want %d, %v, %v, %v, %v",
					len(out.Decision.Patches), out.AddFinalizer, out.RemoveFinalizer, out.ClearAbandon, out.Decision.DeleteJournal,
					tt.patches, tt.add, tt.remove, tt.clear, tt.deleteJ)
			}
			if tt.deleteJ && j != nil && (out.Decision.Finished == nil || !strings.Contains(out.Decision.Finished.AbandonedBy, "alice")) {
				t.Errorf("finished journal %+v, want it abandoned by alice", out.Decision.Finished)
			}
		})
	}
}

func TestEdgeInvolved(t *testing.T) {
	plain := &plan.ProtectionPlan{}
	tests := []struct {
		name string
		p    func() *plan.ProtectionPlan
		want bool
	}{
		{"a plan without edge actions has no journal to read (the final report of an operator without --release-namespace must not wait for one)", func() *plan.ProtectionPlan { return plain.DeepCopy() }, false},
		{"a plan with edge actions may have a journal", func() *plan.ProtectionPlan {
			p := plain.DeepCopy()
			p.Spec.EdgeActions = []edge.Action{{Name: edge.SuspendCronJobs}}
			return p
		}, true},
		{"a plan whose edge actions were edited away but keeps the restore finalizer still has restores pending", func() *plan.ProtectionPlan {
			p := plain.DeepCopy()
			p.Finalizers = []string{edge.Finalizer}
			return p
		}, true},
		{"a plan asking to abandon its failed restores has a journal to give up", func() *plan.ProtectionPlan {
			p := plain.DeepCopy()
			p.Annotations = map[string]string{reconcile.AnnotationEdgeAbandon: "ops"}
			return p
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reconcile.EdgeInvolved(tt.p()); got != tt.want {
				t.Errorf("EdgeInvolved = %v, want %v", got, tt.want)
			}
		})
	}
}
