package reconcile_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

func cond(p *plan.ProtectionPlan, typ string) metav1.Condition {
	if c := meta.FindStatusCondition(p.Status.Conditions, typ); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// inPlace is a world where plan xmas is active with its policies in place.
func inPlace(t *testing.T) *world {
	t.Helper()
	w := newWorld("shop", "payments")
	w.add(freeze("xmas", "shop", "payments"))
	w.pass(start.Add(-time.Hour))
	w.pass(start)
	if p := w.plans["xmas"]; p.Status.Phase != plan.PhaseActive || len(w.policies) != 4 {
		t.Fatalf("setup: %s, %d policies", p.Status.Phase, len(w.policies))
	}
	w.events, w.writes = nil, 0
	return w
}

func TestDecide(t *testing.T) {
	cases := map[string]struct {
		world func(t *testing.T) *world
		act   func(t *testing.T, w *world) reconcile.Output
		check func(t *testing.T, w *world, out reconcile.Output)
	}{
		"a plan in place in the steady state writes nothing and says nothing": {
			world: inPlace,
			act:   func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start.Add(time.Minute)) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if w.writes != 0 || len(w.events) != 0 || out.StatusChanged || out.Sample != nil || out.Record != nil {
					t.Errorf("writes %d, events %v, status changed %v, sample %v, record %v", w.writes, w.events, out.StatusChanged, out.Sample, out.Record)
				}
			},
		},
		"a plan put in place records the health after its writes, and where it was put in place": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "payments")
				w.add(freeze("xmas", "shop", "payments"))
				w.pass(start.Add(-time.Hour))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				p := w.plans["xmas"]
				if c := cond(p, plan.ConditionPoliciesHealthy); c.Reason != health.ReasonInPlace {
					t.Errorf("PoliciesHealthy = %s: %s", c.Reason, c.Message)
				}
				if e := p.Status.Enforcement; e == nil || e.Target != "kyverno" || e.Compact {
					t.Errorf("enforcement = %+v", e)
				}
				if out.Sample == nil || !out.Sample.Healthy || len(out.Repairs) != 0 {
					t.Errorf("sample %+v, repairs %v (putting a plan in place is not a repair)", out.Sample, out.Repairs)
				}
				if len(out.Record.Policies) != 4 {
					t.Errorf("record = %+v", out.Record)
				}
			},
		},
		"a repair is followed by a re-check, not a second write, and the drift is recorded as found": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				delete(w.policies, w.keys()[0])
				return w.passPlan("xmas", start.Add(time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if w.writes != 2 || len(out.Actions) != 0 || len(out.Repairs) != 1 || out.Repairs[0].Kind != health.Apply {
					t.Errorf("writes %d (want the apply and the status), actions after the re-check %v, repairs %v", w.writes, out.Actions, out.Repairs)
				}
				if c := cond(w.plans["xmas"], plan.ConditionPoliciesHealthy); c.Reason != health.ReasonPoliciesMissing {
					t.Errorf("PoliciesHealthy = %s, want the drift as found", c.Reason)
				}
				if !slices.Contains(w.reasons(), "Warning HealthChanged") {
					t.Errorf("events = %v", w.events)
				}
				w.writes = 0
				next := w.passPlan("xmas", start.Add(2*time.Minute))
				if c := cond(w.plans["xmas"], plan.ConditionPoliciesHealthy); c.Reason != health.ReasonInPlace || w.writes != 1 || next.Sample == nil {
					t.Errorf("next pass: %s, %d writes, sample %v; want the repair recorded with one status write", c.Reason, w.writes, next.Sample)
				}
			},
		},
		"a health refresh repairs nothing and reports the drift": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				delete(w.policies, w.keys()[0])
				in := w.input("xmas", start.Add(time.Minute))
				in.Settings.Repair = false
				return reconcile.Decide(in)
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if len(out.Actions) != 0 || out.Health == nil || out.Health.Summary.Missing != 1 || len(w.policies) != 3 {
					t.Errorf("actions %v, health %+v", out.Actions, out.Health)
				}
			},
		},
		"the final report is produced once when a pass is repeated after a crash": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				w.crashAfterStatus = true
				out := w.passPlan("xmas", end)
				if out.Final == nil || len(w.files["xmas"]) != 0 {
					t.Fatalf("final %+v, files %v", out.Final, w.files)
				}
				w.crashAfterStatus = false
				// The process died after the status write; a new leader
				// (no record, no sample) takes the pass again, later.
				delete(w.records, "xmas")
				w.passPlan("xmas", end.Add(time.Minute))
				w.passPlan("xmas", end.Add(2*time.Minute))
				return w.passPlan("xmas", end.Add(3*time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if got := w.finalReports("xmas"); len(got) != 1 || got[0] != "xmas-end-20261227T050000Z" {
					t.Errorf("reports = %v, want one, named by the run's end", got)
				}
				if fr := w.plans["xmas"].Status.FinalReport; fr == nil || fr.WrittenAt == nil || fr.ID != "xmas-end-20261227T050000Z" {
					t.Errorf("status final report = %+v", fr)
				}
				if out.Final != nil {
					t.Errorf("a written report is due again: %+v", out.Final)
				}
			},
		},
		"a final report found whole after a crash before the status said so is not written again": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				out := w.passPlan("xmas", end)
				// Undo the last status write: the report was written, the
				// status never said so.
				p := w.plans["xmas"]
				p.Status.FinalReport.WrittenAt, p.Status.FinalReport.ID = nil, ""
				w.events = nil
				in := w.input("xmas", end.Add(time.Minute))
				again := reconcile.Decide(in)
				if again.Final == nil || again.Final.ID != out.Final.ID {
					t.Fatalf("final = %+v, want the same report due again", again.Final)
				}
				_, write, err := again.Final.Report(again.Plan, w.ledgers["xmas"], nil, reconcile.FinalEdge{}, w.files["xmas"], end.Add(time.Minute))
				if err != nil || write {
					t.Errorf("write = %v, %v; want the whole report left alone", write, err)
				}
				return again
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {},
		},
		"a plan canceled by someone else while the operator was away has its cancel report": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				res, err := plan.Cancel(w.plans["xmas"], "dave", start.Add(time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				w.plans["xmas"] = res.Plan
				return w.passPlan("xmas", start.Add(2*time.Hour))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if got := w.finalReports("xmas"); len(got) != 1 || !strings.HasPrefix(got[0], "xmas-cancel-") || len(w.policies) != 0 {
					t.Errorf("reports %v, %d policies left", got, len(w.policies))
				}
			},
		},
		"a plan applied with kubectl into an excluded namespace fails with the field named and renders nothing": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "kube-system")
				w.add(freeze("bad", "shop", "kube-system"))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("bad", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				p := w.plans["bad"]
				c := cond(p, plan.ConditionReady)
				if p.Status.Phase != plan.PhaseFailed || c.Reason != plan.ReasonInvalidPlan || !strings.Contains(c.Message, "spec.scope.namespaces[1]") {
					t.Errorf("phase %s, Ready %s: %s", p.Status.Phase, c.Reason, c.Message)
				}
				if len(w.policies) != 0 || p.Status.Enforcement != nil {
					t.Errorf("%d policies rendered, enforcement %+v", len(w.policies), p.Status.Enforcement)
				}
			},
		},
		"a plan applied with kubectl into the release namespace fails": {
			world: func(t *testing.T) *world {
				w := newWorld("telark-system")
				w.add(freeze("bad", "telark-system"))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("bad", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if c := cond(w.plans["bad"], plan.ConditionReady); c.Reason != plan.ReasonInvalidPlan || !strings.Contains(c.Message, "spec.scope.namespaces[0]") {
					t.Errorf("Ready %s: %s", c.Reason, c.Message)
				}
			},
		},
		"a plan applied with kubectl while the excluded list cannot be read waits for the next pass": {
			world: func(t *testing.T) *world {
				w := newWorld("shop")
				w.cluster.ExcludedErr = errors.New("configmap telark-system/excluded: forbidden")
				w.add(freeze("xmas", "shop"))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if out.Retry == nil || w.plans["xmas"].Status.Phase != "" || w.writes != 0 {
					t.Errorf("retry %v, phase %q, writes %d", out.Retry, w.plans["xmas"].Status.Phase, w.writes)
				}
				if got := w.reasons(); len(got) != 1 || got[0] != "Warning "+reconcile.EventCreateDeferred {
					t.Errorf("events = %v", w.events)
				}
				w.cluster.ExcludedErr = nil
				w.passPlan("xmas", start.Add(time.Minute))
				if w.plans["xmas"].Status.Phase != plan.PhaseActive {
					t.Errorf("once readable: %s", w.plans["xmas"].Status.Phase)
				}
			},
		},
		"of two plans applied with kubectl whose names clash, the later one fails": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "payments")
				a, b := freeze("a", "shop"), freeze("b", "payments")
				b.Spec.Name = " FREEZE a "
				b.CreationTimestamp = metav1.NewTime(a.CreationTimestamp.Add(time.Second))
				w.add(a)
				w.add(b)
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { w.pass(start); return reconcile.Output{} },
			check: func(t *testing.T, w *world, _ reconcile.Output) {
				if a, b := w.plans["a"], w.plans["b"]; a.Status.Phase != plan.PhaseActive || b.Status.Phase != plan.PhaseFailed ||
					!strings.Contains(cond(b, plan.ConditionReady).Message, "spec.name") {
					t.Errorf("a %s, b %s: %s", a.Status.Phase, b.Status.Phase, cond(b, plan.ConditionReady).Message)
				}
			},
		},
		"a plan applied with kubectl after its window ended is terminated, not failed": {
			world: func(t *testing.T) *world {
				w := newWorld("shop")
				w.add(freeze("late", "shop"))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("late", end.Add(time.Hour)) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if p := w.plans["late"]; p.Status.Phase != plan.PhaseTerminated || out.Final != nil {
					t.Errorf("phase %s, final %+v", p.Status.Phase, out.Final)
				}
			},
		},
		"a Production plan applied with automatic is stored with approval required first": {
			world: func(t *testing.T) *world {
				w := newWorld("shop")
				p := freeze("prod", "shop")
				p.Spec.Environment = "Production"
				w.add(p)
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return reconcile.Decide(w.input("prod", start)) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if out.Spec == nil || out.Spec.Spec.ApprovalMode != plan.ApprovalRequired || out.StatusChanged || len(out.Actions) != 0 {
					t.Fatalf("out = %+v", out)
				}
				w.passPlan("prod", start)
				if p := w.plans["prod"]; p.Status.Phase != plan.PhasePendingApproval || p.Status.Proposers[0] != plan.DefaultActor {
					t.Errorf("phase %s, proposers %v", p.Status.Phase, p.Status.Proposers)
				}
			},
		},
		"an active plan whose namespace is gone fails and renders nothing": {
			world: func(t *testing.T) *world {
				w := newWorld("shop")
				w.add(freeze("xmas", "shop", "payments"))
				w.cluster.Namespaces["payments"] = true
				w.pass(start.Add(-time.Hour))
				delete(w.cluster.Namespaces, "payments")
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if c := cond(w.plans["xmas"], plan.ConditionReady); c.Reason != plan.ReasonNamespaceGone || len(w.policies) != 0 {
					t.Errorf("Ready %s: %s; %d policies", c.Reason, c.Message, len(w.policies))
				}
			},
		},
		"an active plan fails when the policy API is not served": {
			world: func(t *testing.T) *world {
				w := newWorld("shop")
				w.add(freeze("xmas", "shop"))
				w.cluster.PolicyAPI = errors.New(`no matches for kind "Policy" in version "kyverno.io/v1"`)
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if c := cond(w.plans["xmas"], plan.ConditionReady); c.Reason != plan.ReasonPolicyAPIMissing {
					t.Errorf("Ready %s: %s", c.Reason, c.Message)
				}
			},
		},
		"policies the cluster refuses make the plan fail and stop the writes": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "payments")
				w.add(freeze("xmas", "shop", "payments"))
				w.pass(start.Add(-time.Hour))
				w.fail = func(a health.Action) error {
					return apierrors.NewInvalid(schema.GroupKind{Group: "kyverno.io", Kind: "Policy"}, a.Object.GetName(),
						field.ErrorList{field.Invalid(field.NewPath("spec"), "x", "refused by a webhook")})
				}
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if c := cond(w.plans["xmas"], plan.ConditionReady); c.Reason != plan.ReasonPoliciesRefused || w.plans["xmas"].Status.Phase != plan.PhaseFailed {
					t.Errorf("Ready %s: %s", c.Reason, c.Message)
				}
			},
		},
		"a transient write error is a warning and the next pass retries": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "payments")
				w.add(freeze("xmas", "shop", "payments"))
				w.pass(start.Add(-time.Hour))
				w.fail = func(health.Action) error { return apierrors.NewTimeoutError("slow", 1) }
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if !slices.Contains(w.reasons(), "Warning "+reconcile.EventWriteFailed) || w.plans["xmas"].Status.Phase != plan.PhaseActive {
					t.Errorf("events %v", w.events)
				}
				w.fail = nil
				w.passPlan("xmas", start.Add(time.Minute))
				if len(w.policies) != 4 {
					t.Errorf("after the retry: %d policies", len(w.policies))
				}
			},
		},
		"a pass given no cluster says so instead of deciding": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				in := w.input("xmas", start)
				in.Cluster = nil
				return reconcile.Decide(in)
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				var ie *reconcile.InputError
				if !errors.As(out.Retry, &ie) || ie.Field != "Cluster" {
					t.Errorf("retry = %v", out.Retry)
				}
			},
		},
		"a sample recorded by a pass whose status write failed is closed by the next pass": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				// The last sample says unhealthy; the stored condition says
				// in place (the status write that would have said otherwise
				// failed).
				last := w.samples["xmas"][len(w.samples["xmas"])-1]
				last.Healthy, last.Reason = false, health.ReasonPoliciesMissing
				w.samples["xmas"] = append(w.samples["xmas"], last)
				return w.passPlan("xmas", start.Add(time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if out.Sample == nil || !out.Sample.Healthy || out.StatusChanged {
					t.Errorf("sample %+v, status changed %v; want the healthy sample that closes the other, no status write", out.Sample, out.StatusChanged)
				}
			},
		},
		"a record of another plan under the same ID does not count": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				w.records["xmas"].UID = "an-older-plan"
				w.records["xmas"].Policies = nil
				return reconcile.Decide(w.input("xmas", start.Add(time.Minute)))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if out.Record == nil || out.Record.UID != w.plans["xmas"].UID || len(out.Record.Policies) != 4 {
					t.Errorf("record = %+v, want this plan's, with its 4 policies", out.Record)
				}
			},
		},
		"a run whose end an earlier version stored without a final report gets one": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				p := plan.Tick(w.plans["xmas"], end).Plan
				p.Status.FinalReport = nil // stored by a version that recorded none
				w.plans["xmas"] = p
				return w.passPlan("xmas", end.Add(time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if got := w.finalReports("xmas"); len(got) != 1 || !strings.HasPrefix(got[0], "xmas-end-") {
					t.Errorf("reports = %v", got)
				}
			},
		},
		"a terminated plan with no record and no final report due gets none": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				p := plan.Tick(w.plans["xmas"], end).Plan
				p.Status.FinalReport = nil
				w.plans["xmas"] = p
				delete(w.records, "xmas")
				return w.passPlan("xmas", end.Add(time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if out.Final != nil || len(w.files["xmas"]) != 0 {
					t.Errorf("final %+v, files %v; want none (nothing says the run was not reported)", out.Final, w.files["xmas"])
				}
			},
		},
		"the writes that put an edited plan's policies in place are not repairs": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				p := w.plans["xmas"]
				p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: "create"})
				p.Generation++
				return w.passPlan("xmas", start.Add(time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if len(w.policies) != 6 || len(out.Repairs) != 0 || cond(w.plans["xmas"], plan.ConditionPoliciesHealthy).Reason != health.ReasonInPlace {
					t.Errorf("%d policies, repairs %v, health %s", len(w.policies), out.Repairs, cond(w.plans["xmas"], plan.ConditionPoliciesHealthy).Reason)
				}
			},
		},
		"a plan applied with kubectl into an excluded namespace stays failed through the retries and renders nothing": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "kube-system")
				w.add(freeze("bad", "shop", "kube-system"))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output {
				for i := range 5 {
					w.passPlan("bad", start.Add(time.Duration(i)*time.Minute))
				}
				return w.passPlan("bad", start.Add(time.Hour))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				p := w.plans["bad"]
				if p.Status.Phase != plan.PhaseFailed || len(w.policies) != 0 || cond(p, plan.ConditionReady).Reason != plan.ReasonInvalidPlan {
					t.Errorf("phase %s, %d policies, Ready %s", p.Status.Phase, len(w.policies), cond(p, plan.ConditionReady).Reason)
				}
				if n := strings.Count(strings.Join(w.events, "\n"), "Failed"); n != 1 {
					t.Errorf("%d Failed events over six passes, want one: %v", n, w.events)
				}
			},
		},
		"a plan edited with kubectl into an excluded namespace fails, puts nothing new in place, and recovers once fixed": {
			world: func(t *testing.T) *world {
				w := inPlace(t)
				w.cluster.Namespaces["kube-system"] = true
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output {
				p := w.plans["xmas"]
				p.Spec.Scope.Namespaces = append(p.Spec.Scope.Namespaces, "kube-system")
				p.Generation++
				w.passPlan("xmas", start.Add(time.Minute))
				w.passPlan("xmas", start.Add(2*time.Minute))
				if p := w.plans["xmas"]; p.Status.Phase != plan.PhaseFailed || !strings.Contains(cond(p, plan.ConditionReady).Message, "spec.scope.namespaces[2]") {
					t.Fatalf("edited: phase %s, Ready %s", p.Status.Phase, cond(p, plan.ConditionReady).Message)
				}
				for _, u := range w.all() {
					if u.GetNamespace() == "kube-system" {
						t.Fatalf("a policy in an excluded namespace: %s", u.GetName())
					}
				}
				if len(w.policies) != 4 {
					t.Errorf("%d policies; want the 4 in place left as they were", len(w.policies))
				}
				p = w.plans["xmas"]
				p.Spec.Scope.Namespaces = p.Spec.Scope.Namespaces[:2]
				p.Generation++
				w.passPlan("xmas", start.Add(3*time.Minute))
				return w.passPlan("xmas", start.Add(4*time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				p := w.plans["xmas"]
				if p.Status.Phase != plan.PhaseActive || p.Status.ValidatedGeneration != p.Generation || len(w.policies) != 4 {
					t.Errorf("fixed: phase %s, validated %d of %d, %d policies", p.Status.Phase, p.Status.ValidatedGeneration, p.Generation, len(w.policies))
				}
			},
		},
		"a plan edited with kubectl while the excluded list cannot be read waits; one validated earlier does not": {
			world: inPlace,
			act: func(t *testing.T, w *world) reconcile.Output {
				w.cluster.ExcludedErr = errors.New("configmap: forbidden")
				if out := w.passPlan("xmas", start.Add(time.Minute)); out.Retry != nil {
					t.Fatalf("a validated plan waits: %v", out.Retry)
				}
				w.plans["xmas"].Generation++
				return w.passPlan("xmas", start.Add(2*time.Minute))
			},
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if out.Retry == nil || !slices.Contains(w.reasons(), "Warning "+reconcile.EventValidationDeferred) {
					t.Errorf("retry %v, events %v", out.Retry, w.events)
				}
			},
		},
		"the compact layout is recorded in the status": {
			world: func(t *testing.T) *world {
				w := newWorld("shop")
				w.settings.Compact, w.settings.Target = true, render.TargetVAP
				w.add(freeze("xmas", "shop"))
				return w
			},
			act: func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			check: func(t *testing.T, w *world, out reconcile.Output) {
				if e := w.plans["xmas"].Status.Enforcement; e == nil || e.Target != "vap" || !e.Compact {
					t.Errorf("enforcement = %+v", e)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := tc.world(t)
			out := tc.act(t, w)
			tc.check(t, w, out)
		})
	}
}

func TestSweep(t *testing.T) {
	w := inPlace(t)
	w.add(freeze("other", "shop"))
	w.pass(start)
	if len(w.policies) != 6 || len(w.records) != 2 {
		t.Fatalf("setup: %d policies, %d records", len(w.policies), len(w.records))
	}
	cases := map[string]struct {
		edit       func(w *world)
		wantRemove []string
		wantLeft   int
	}{
		"nothing is left of a deleted plan": {
			edit:       func(w *world) { delete(w.plans, "other") },
			wantRemove: []string{"other"}, wantLeft: 4,
		},
		"the files of a plan recreated under the same ID go, its policies stay": {
			edit:       func(w *world) { w.plans["other"].UID = "new" },
			wantRemove: []string{"other"}, wantLeft: 6,
		},
		"the files of a plan whose record is unreadable stay": {
			edit:     func(w *world) { w.records["other"].UID = "" },
			wantLeft: 6,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := inPlace(t)
			w.add(freeze("other", "shop"))
			w.pass(start)
			tc.edit(w)
			var plans []*plan.ProtectionPlan
			for _, id := range w.ids() {
				plans = append(plans, w.plans[id])
			}
			stored := map[string]types.UID{}
			for id, r := range w.records {
				stored[id] = r.UID
			}
			out := reconcile.Sweep(reconcile.SweepInput{Plans: plans, Live: w.all(), Stored: stored})
			reconcile.CarryOut(out.Actions, w.do)
			if !slices.Equal(out.Remove, tc.wantRemove) || len(w.policies) != tc.wantLeft {
				t.Errorf("remove %v, %d policies left; want %v, %d", out.Remove, len(w.policies), tc.wantRemove, tc.wantLeft)
			}
		})
	}
}
