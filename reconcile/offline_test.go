package reconcile_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// offlineSnapshot is what protectctl's --cluster file says.
var offlineSnapshot = plantest.Cluster{
	Namespaces:       []string{"shop", "payments", "telark-system"},
	ReleaseNamespace: "telark-system",
	Plans:            []plantest.PlanName{{ID: "old", Name: "Freeze taken"}},
	Applications:     []plan.Application{{Name: "checkout", Namespaces: []string{"shop"}}},
}

// known is an Offline that knows the snapshot.
var known = reconcile.Offline{Cluster: offlineSnapshot, Applications: offlineSnapshot, Names: offlineSnapshot,
	User: "protectctl", Approver: "protectctl-approver"}

// offlineFreeze is a Christmas freeze as a plan file holds it: no status,
// no approval mode.
func offlineFreeze(edit ...func(p *plan.ProtectionPlan)) *plan.ProtectionPlan {
	p := freeze("xmas", "shop")
	p.CreationTimestamp = metav1.Time{}
	p.Spec.ApprovalMode = ""
	for _, e := range edit {
		e(p)
	}
	return p
}

func TestOffline_Lint(t *testing.T) {
	cases := map[string]struct {
		offline reconcile.Offline
		edit    func(p *plan.ProtectionPlan)
		now     time.Time
		code    int
	}{
		"a plan the cluster can hold is valid": {
			offline: known, now: start.Add(-time.Hour), code: http.StatusOK,
		},
		"a display name in use is a conflict": {
			offline: known, edit: func(p *plan.ProtectionPlan) { p.Spec.Name = "freeze TAKEN " },
			now: start.Add(-time.Hour), code: http.StatusConflict,
		},
		"a window that has ended is refused": {
			offline: known, now: end.Add(time.Hour), code: http.StatusBadRequest,
		},
		"a namespace the cluster does not have is refused": {
			offline: known, edit: func(p *plan.ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"nope"} },
			now: start.Add(-time.Hour), code: http.StatusBadRequest,
		},
		"without a cluster, the checks that need one are skipped": {
			offline: reconcile.Offline{}, edit: func(p *plan.ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"nope"} },
			now: start.Add(-time.Hour), code: http.StatusOK,
		},
		"a Production plan without an approval mode is refused when it is created": {
			offline: known, edit: func(p *plan.ProtectionPlan) { p.Spec.Environment = "Production" },
			now: start.Add(-time.Hour), code: http.StatusBadRequest,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := offlineFreeze()
			if c.edit != nil {
				c.edit(p)
			}
			before := p.DeepCopy()
			err := c.offline.Lint(p, c.now)
			if code := plan.CodeOf(err); code != c.code {
				t.Errorf("code %d, want %d: %v", code, c.code, err)
			}
			if len(plan.ProblemsOf(err)) == 0 && err != nil {
				t.Errorf("%v lists no problems", err)
			}
			if !equality.Semantic.DeepEqual(p, before) {
				t.Errorf("Lint changed the plan")
			}
		})
	}
}

func TestOffline_Preview(t *testing.T) {
	apps := func(p *plan.ProtectionPlan) { p.Spec.Scope = plan.Scope{Applications: []string{"checkout"}} }
	required := func(p *plan.ProtectionPlan) { p.Spec.ApprovalMode = plan.ApprovalRequired }
	cases := map[string]struct {
		offline reconcile.Offline
		edit    func(p *plan.ProtectionPlan)
		now     time.Time
		pending bool
		phase   plan.Phase
		note    string
		apps    int
		err     any
	}{
		"a plan inside its window is active": {
			offline: known, now: start.Add(time.Hour), phase: plan.PhaseActive,
			note: "plan xmas is active at 2026-12-24T19:00:00+01:00; its window closes at 2026-12-27T06:00:00+01:00",
		},
		"a plan before its window is scheduled, and says when the window opens": {
			offline: known, now: start.Add(-48 * time.Hour), phase: plan.PhaseScheduled,
			note: "plan xmas is scheduled at 2026-12-22T18:00:00+01:00; its window opens at 2026-12-24T18:00:00+01:00",
		},
		"a plan after its window is terminated, not refused": {
			offline: known, now: end.Add(time.Hour), phase: plan.PhaseTerminated,
			note: "plan xmas is terminated at 2026-12-27T07:00:00+01:00",
		},
		"a plan that requires approval is previewed as approved": {
			offline: known, edit: required, now: start.Add(time.Hour), phase: plan.PhaseActive,
			note: "plan xmas is active at 2026-12-24T19:00:00+01:00; its window closes at 2026-12-27T06:00:00+01:00",
		},
		"a plan that requires approval waits for it when pending": {
			offline: known, edit: required, now: start.Add(time.Hour), pending: true, phase: plan.PhasePendingApproval,
			note: "plan xmas is pending_approval at 2026-12-24T19:00:00+01:00 (waiting for approval)",
		},
		"the applications that resolve are the preview's": {
			offline: known, edit: apps, now: start.Add(time.Hour), phase: plan.PhaseActive, apps: 1,
			note: "plan xmas is active at 2026-12-24T19:00:00+01:00; its window closes at 2026-12-27T06:00:00+01:00",
		},
		"a plan of applications cannot be previewed without applications to resolve them": {
			offline: reconcile.Offline{Cluster: offlineSnapshot}, edit: apps, now: start.Add(time.Hour),
			err: new(*reconcile.ApplicationsUnknownError),
		},
		"a plan invalid against the cluster is refused with every problem": {
			offline: known, edit: func(p *plan.ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"shop", "telark-system", "nope"} },
			now: start.Add(time.Hour), err: new(*plan.ValidationError),
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := offlineFreeze()
			if c.edit != nil {
				c.edit(p)
			}
			pv, err := c.offline.Preview(p, c.now, c.pending)
			if c.err != nil {
				if !errors.As(err, c.err) || plan.CodeOf(err) != http.StatusBadRequest {
					t.Fatalf("error %T %v (%d), want %T (400)", err, err, plan.CodeOf(err), c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pv.Plan.Status.Phase != c.phase || pv.Note() != c.note || len(pv.Applications) != c.apps {
				t.Errorf("phase %s, note %q, %d applications; want %s, %q, %d", pv.Plan.Status.Phase, pv.Note(), len(pv.Applications), c.phase, c.note, c.apps)
			}
			if p.Status.Phase != "" {
				t.Errorf("Preview changed the plan")
			}
		})
	}
}

func TestOffline_ApplicationsUnknownErrorNamesThem(t *testing.T) {
	p := offlineFreeze(func(p *plan.ProtectionPlan) { p.Spec.Scope = plan.Scope{Applications: []string{"checkout", "ledger"}} })
	_, err := reconcile.Offline{}.Preview(p, start, false)
	var ae *reconcile.ApplicationsUnknownError
	if !errors.As(err, &ae) || fmt.Sprint(ae.Applications) != "[checkout ledger]" {
		t.Errorf("%v", err)
	}
}

func TestOffline_Window(t *testing.T) {
	p := offlineFreeze(func(p *plan.ProtectionPlan) {
		p.Spec.Window = window.Spec{Type: window.Permanent}
	})
	now := start.Add(-time.Hour)
	got, w, err := reconcile.Offline{}.Window(p, now, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	// A permanent window starts when the plan is created.
	if got.Spec.Window.StartAt == nil || !got.Spec.Window.StartAt.Time.Equal(now) || w.Type() != window.Permanent || !w.Active(now) {
		t.Errorf("startAt %v, type %s, active %v", got.Spec.Window.StartAt, w.Type(), w.Active(now))
	}
	if p.Spec.Window.StartAt != nil {
		t.Errorf("Window changed the plan")
	}
	_, _, err = reconcile.Offline{}.Window(offlineFreeze(func(p *plan.ProtectionPlan) { p.Spec.Templates = nil }), now, time.Time{}, time.Time{})
	var ve *plan.ValidationError
	if !errors.As(err, &ve) {
		t.Errorf("a plan without templates: %v", err)
	}
}

func TestOffline_Report(t *testing.T) {
	nightly := func(p *plan.ProtectionPlan) {
		p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin",
			Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}}
	}
	night := time.Date(2026, 11, 2, 22, 0, 0, 0, berlin)
	stored := func(t *testing.T) *plan.ProtectionPlan {
		running, err := known.SimulateRun(offlineFreeze(), violations.Ledger{}, start.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		canceled, err := plan.Cancel(running, "alice", start.Add(2*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return canceled.Plan
	}
	cases := map[string]struct {
		plan     func(t *testing.T) *plan.ProtectionPlan
		ledger   violations.Ledger
		trigger  report.Trigger
		now      time.Time
		phase    plan.Phase
		started  time.Time
		want     report.Trigger
		policies int
		err      any
	}{
		"a plan file's run is simulated from its window's start": {
			now: start.Add(24 * time.Hour), phase: plan.PhaseActive, started: start, want: report.TriggerManual, policies: 2,
		},
		"a run that ended reports its end": {
			now: end.Add(time.Hour), phase: plan.PhaseTerminated, started: start, want: report.TriggerEnd, policies: 2,
		},
		"a trigger asked for is kept": {
			now: end.Add(time.Hour), trigger: report.TriggerManual, phase: plan.PhaseTerminated, started: start, want: report.TriggerManual, policies: 2,
		},
		"a stored plan is reported as stored": {
			plan: stored, now: end.Add(time.Hour), phase: plan.PhaseCanceled, started: start, want: report.TriggerCancel, policies: 2,
		},
		"a recurring window's run starts with the interval of its oldest violation": {
			plan: func(*testing.T) *plan.ProtectionPlan { return offlineFreeze(nightly) },
			ledger: violations.Ledger{Plan: "xmas", Violations: []violations.Violation{
				{Plan: "xmas", Timestamp: night.Add(26 * time.Hour), FirstSeen: night.Add(3 * time.Hour)},
			}},
			now: night.Add(48 * time.Hour), phase: plan.PhaseActive, started: night, want: report.TriggerManual, policies: 2,
		},
		"a run that has not started reports no policies": {
			now: start.Add(-time.Hour), phase: plan.PhaseScheduled, want: report.TriggerManual,
		},
		"another plan's ledger is refused": {
			ledger: violations.Ledger{Plan: "black-friday"}, now: end, err: new(*reconcile.LedgerPlanError),
		},
		"an invalid plan is refused": {
			plan: func(*testing.T) *plan.ProtectionPlan {
				return offlineFreeze(func(p *plan.ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"nope"} })
			},
			now: end, err: new(*plan.ValidationError),
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p := offlineFreeze()
			if c.plan != nil {
				p = c.plan(t)
			}
			in, err := known.Report(p, c.ledger, c.trigger, c.now)
			if c.err != nil {
				if !errors.As(err, c.err) || plan.CodeOf(err) != http.StatusBadRequest {
					t.Fatalf("error %T %v, want %T (400)", err, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var started time.Time
			if s := in.Plan.Status.StartedAt; s != nil {
				started = s.Time
			}
			if in.Plan.Status.Phase != c.phase || !started.Equal(c.started) || in.Trigger != c.want || len(in.Policies) != c.policies {
				t.Errorf("phase %s, started %s, trigger %s, %d policies; want %s, %s, %s, %d",
					in.Plan.Status.Phase, started, in.Trigger, len(in.Policies), c.phase, c.started, c.want, c.policies)
			}
			if !in.Now.Equal(c.now) || len(in.Violations) != len(c.ledger.Violations) {
				t.Errorf("now %s, %d violations", in.Now, len(in.Violations))
			}
		})
	}
}

// report.Build, not Report, refuses a run that has not started.
func TestOffline_ReportOfARunNotStarted(t *testing.T) {
	in, err := known.Report(offlineFreeze(), violations.Ledger{}, "", start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	_, err = report.Build(in)
	var ns *report.NotStartedError
	if !errors.As(err, &ns) || plan.CodeOf(err) != http.StatusConflict {
		t.Errorf("%v", err)
	}
}

func ExampleOffline() {
	// A CI linter's view of a cluster: a snapshot from a file.
	snap := plantest.Cluster{Namespaces: []string{"shop", "payments"}}
	offline := reconcile.Offline{Cluster: snap, User: "ci"}

	p := offlineFreeze()
	fmt.Println("valid:", offline.Lint(p, start.Add(-time.Hour)) == nil)

	for _, at := range []time.Time{start.Add(-time.Hour), start.Add(time.Hour)} {
		pv, err := offline.Preview(p, at, false)
		if err != nil {
			panic(err)
		}
		res, err := render.Render(pv.Input(render.TargetKyverno, false))
		if err != nil {
			panic(err)
		}
		fmt.Println(pv.Note()+":", len(res.Policies), "policies")
	}
	// Output:
	// valid: true
	// plan xmas is scheduled at 2026-12-24T17:00:00+01:00; its window opens at 2026-12-24T18:00:00+01:00: 0 policies
	// plan xmas is active at 2026-12-24T19:00:00+01:00; its window closes at 2026-12-27T06:00:00+01:00: 2 policies
}

func TestOffline_PreviewNamespaceSelectorsAndCustomKinds(t *testing.T) {
	rollout := plan.ServedKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout", Resource: "rollouts", Namespaced: true, ScaleReplicasPath: ".spec.replicas"}
	o := known
	o.ReleaseNamespace, o.Kinds = offlineSnapshot.ReleaseNamespace, plan.ServedKinds{rollout}
	p := offlineFreeze(func(p *plan.ProtectionPlan) {
		p.Spec.Scope = plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"team": "payments"}}}}
		p.Spec.Templates = []plan.TemplateRef{{Name: "delete", Parameters: map[string]string{"kinds": "Rollout.argoproj.io"}}}
	})
	pv, err := o.Preview(p, start.Add(time.Hour), false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := render.Render(pv.Input(render.TargetKyverno, false))
	if err != nil {
		t.Fatalf("the preview of a selector plan naming a custom kind renders: %v", err)
	}
	var kinds []string
	for _, o := range res.Objects() {
		kinds = append(kinds, o.GetKind()+" "+o.GetName())
	}
	want := fmt.Sprint([]string{"ClusterPolicy xmas-delete-s0", "ClusterPolicy xmas-namespace-labels"})
	if fmt.Sprint(kinds) != want {
		t.Errorf("rendered %v, want %v", kinds, want)
	}
	o.Kinds = nil
	if _, err := o.Preview(p, start.Add(time.Hour), false); err != nil {
		t.Errorf("without discovery facts validation does not check the kind: %v", err)
	}
	o.Kinds = plan.ServedKinds{}
	var verr *plan.ValidationError
	if _, err := o.Preview(p, start.Add(time.Hour), false); !errors.As(err, &verr) {
		t.Errorf("a kind the cluster does not serve is refused: %v", err)
	}
}
