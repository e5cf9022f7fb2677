package operator

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/window"
)

func TestReconcile_KubectlPlanIsCreatedAndPutInPlace(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling", "image-change")})

	writes := f.pass()

	p := f.plan("freeze")
	if p.Spec.ApprovalMode != plan.ApprovalAutomatic {
		t.Errorf("approvalMode = %q, want automatic (derived for a plan created without one)", p.Spec.ApprovalMode)
	}
	if p.Spec.Window.StartAt == nil || !p.Spec.Window.StartAt.Time.Equal(t0) {
		t.Errorf("window.startAt = %v, want %v (plan.Defaults of a permanent window)", p.Spec.Window.StartAt, t0)
	}
	if p.Status.Phase != plan.PhaseActive {
		t.Fatalf("phase = %q, want active", p.Status.Phase)
	}
	if got := condition(p, plan.ConditionPoliciesHealthy); got.Status != metav1.ConditionTrue || got.Reason != health.ReasonInPlace {
		t.Errorf("PoliciesHealthy = %s %s %q, want True InPlace (recorded after the first deployment)", got.Status, got.Reason, got.Message)
	}
	if p.Status.ObservedGeneration != p.Generation {
		t.Errorf("observedGeneration = %d, want %d", p.Status.ObservedGeneration, p.Generation)
	}
	var names []string
	for _, u := range f.policies("shop") {
		names = append(names, u.GetName())
		if u.GetLabels()[render.LabelPlan] != "freeze" {
			t.Errorf("policy %s has labels %v", u.GetName(), u.GetLabels())
		}
	}
	if want := []string{"freeze-image-change", "freeze-scaling"}; !slices.Equal(names, want) {
		t.Errorf("policies in shop = %v, want %v", names, want)
	}
	wantWrites := []string{
		"update ProtectionPlan /freeze",
		"apply Policy shop/freeze-image-change",
		"apply Policy shop/freeze-scaling",
		"update/status ProtectionPlan /freeze",
	}
	if !slices.Equal(writes, wantWrites) {
		t.Errorf("writes = %q, want %q", writes, wantWrites)
	}
	var obs reconcile.Record
	f.readJSON("freeze", store.ObservedFile, &obs)
	if obs.Phase != plan.PhaseActive || len(obs.Policies) != 2 {
		t.Errorf("record = %+v, want active with 2 policies", obs)
	}
	evs := f.drainEvents()
	if !slices.ContainsFunc(evs, func(e string) bool { return strings.HasPrefix(e, "Normal Created ") }) ||
		!slices.ContainsFunc(evs, func(e string) bool { return strings.HasPrefix(e, "Normal PoliciesApplied 2: ") }) {
		t.Errorf("events = %q, want Created and PoliciesApplied", evs)
	}
}

func TestReconcile_SteadyStateWritesNothing(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.pass()
	f.drainEvents()
	for i := range 5 {
		if writes := f.tick(2 * time.Second); len(writes) > 0 {
			t.Fatalf("pass %d in the steady state wrote %q", i+2, writes)
		}
	}
	if evs := f.drainEvents(); len(evs) > 0 {
		t.Errorf("events in the steady state: %q", evs)
	}
}

func TestReconcile_ProductionPlanWaitsForApproval(t *testing.T) {
	p := kubectlPlan("prod", plan.ModeEnforce, []string{"shop"}, "scaling")
	p.Spec.Environment = plan.EnvironmentProduction
	p.Annotations = map[string]string{plan.CreatedByAnnotation: "alice"}
	f := newFixture(t, []client.Object{namespace("shop"), p})

	f.pass()
	f.tick(2 * time.Second)
	got := f.plan("prod")
	if got.Spec.ApprovalMode != plan.ApprovalRequired || got.Status.Phase != plan.PhasePendingApproval {
		t.Fatalf("approvalMode %q, phase %q; want required, pending_approval", got.Spec.ApprovalMode, got.Status.Phase)
	}
	if !slices.Equal(got.Status.Proposers, []string{"alice"}) {
		t.Errorf("proposers = %v, want [alice] (the creator annotation)", got.Status.Proposers)
	}
	if n := len(f.policies("shop")); n != 0 {
		t.Fatalf("%d policies deployed while pending approval", n)
	}

	// An approver decides, as the API server example would.
	res, err := approval.Approve(got, got.Status.ApprovalRequest.ID,
		approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}, f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	f.storeStatus(res.Plan)
	f.tick(time.Second)
	if got := f.plan("prod"); got.Status.Phase != plan.PhaseActive || len(f.policies("shop")) != 1 {
		t.Fatalf("after approval: phase %q, %d policies; want active, 1", got.Status.Phase, len(f.policies("shop")))
	}
}

func TestReconcile_DriftIsRepaired(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling", "image-change")})
	f.pass()
	ctx := context.Background()

	// A policy deleted by hand, another set to Audit, and a stray policy
	// carrying the plan's label.
	if err := f.c.Delete(ctx, f.policy("shop", "freeze-scaling")); err != nil {
		t.Fatal(err)
	}
	img := f.policy("shop", "freeze-image-change")
	if err := unstructured.SetNestedField(img.Object, "Audit", "spec", "validationFailureAction"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Update(ctx, img); err != nil {
		t.Fatal(err)
	}
	stray := f.policy("shop", "freeze-image-change").DeepCopy()
	stray.SetName("stray")
	stray.SetResourceVersion("")
	stray.SetUID("")
	if err := f.c.Create(ctx, stray); err != nil {
		t.Fatal(err)
	}
	f.drainEvents()

	writes := f.tick(2 * time.Second)
	want := []string{
		"apply Policy shop/freeze-scaling",
		"patch Policy shop/freeze-image-change",
		"delete Policy shop/stray",
	}
	if !slices.Equal(writes[:3], want) {
		t.Errorf("repairs = %q, want %q first", writes, want)
	}
	if mode, _ := render.FailureAction(f.policy("shop", "freeze-image-change")); mode != plan.ModeEnforce {
		t.Errorf("failure action after repair = %s", mode)
	}
	// The drift found is recorded (health over the run), then the repair.
	p := f.plan("freeze")
	if c := condition(p, plan.ConditionPoliciesHealthy); c.Status != metav1.ConditionFalse || c.Reason != health.ReasonPoliciesMissing {
		t.Errorf("PoliciesHealthy after the repairing pass = %s %s, want False PoliciesMissing", c.Status, c.Reason)
	}
	evs := f.drainEvents()
	for _, w := range []string{"Normal PoliciesApplied 1: shop/freeze-scaling", "Normal FailureActionRestored 1: shop/freeze-image-change", "Normal PoliciesDeleted 1: shop/stray", "Warning HealthChanged PoliciesMissing"} {
		if !slices.ContainsFunc(evs, func(e string) bool { return strings.HasPrefix(e, w) }) {
			t.Errorf("no event %q in %q", w, evs)
		}
	}
	if writes := f.tick(2 * time.Second); !slices.Equal(writes, []string{"update/status ProtectionPlan /freeze"}) {
		t.Errorf("the pass after the repair wrote %q, want only the status (healthy again)", writes)
	}
	if c := condition(f.plan("freeze"), plan.ConditionPoliciesHealthy); c.Status != metav1.ConditionTrue {
		t.Errorf("PoliciesHealthy = %s %s, want True", c.Status, c.Reason)
	}
	var samples []report.HealthSample
	f.readJSON("freeze", store.HealthFile, &samples)
	if len(samples) != 3 || !samples[0].Healthy || samples[1].Healthy || samples[1].Missing != 1 || !samples[2].Healthy {
		t.Errorf("health samples = %+v, want healthy, 1 missing, healthy", samples)
	}
}

func TestReconcile_RuleEditedUnderIntactHashIsReapplied(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.pass()
	pol := f.policy("shop", "freeze-scaling")
	rules, _, _ := unstructured.NestedSlice(pol.Object, "spec", "rules")
	rules[0].(map[string]any)["name"] = "renamed"
	_ = unstructured.SetNestedSlice(pol.Object, rules, "spec", "rules")
	if err := f.c.Update(context.Background(), pol); err != nil {
		t.Fatal(err)
	}
	if writes := f.tick(2 * time.Second); len(writes) == 0 || writes[0] != "apply Policy shop/freeze-scaling" {
		t.Fatalf("writes = %q, want the policy applied again", writes)
	}
	rules, _, _ = unstructured.NestedSlice(f.policy("shop", "freeze-scaling").Object, "spec", "rules")
	if name := rules[0].(map[string]any)["name"]; name != "replicas" {
		t.Errorf("rule name after repair = %v", name)
	}
}

func TestReconcile_NamespaceGoneFailsAndIsRetried(t *testing.T) {
	f := newFixture(t, []client.Object{kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.pass()
	// Applied with kubectl, it is validated as the server would: the
	// namespace does not exist.
	p := f.plan("freeze")
	if c := condition(p, plan.ConditionReady); p.Status.Phase != plan.PhaseFailed || c.Reason != plan.ReasonInvalidPlan ||
		!strings.Contains(c.Message, "spec.scope.namespaces[0]") {
		t.Fatalf("phase %q, Ready %s %q; want failed, InvalidPlan naming the field", p.Status.Phase, c.Reason, c.Message)
	}
	// Retried, it fails because the namespace is gone.
	f.tick(2 * time.Second)
	p = f.plan("freeze")
	if c := condition(p, plan.ConditionReady); p.Status.Phase != plan.PhaseFailed || c.Reason != plan.ReasonNamespaceGone {
		t.Fatalf("phase %q, Ready %s %q; want failed, NamespaceGone", p.Status.Phase, c.Reason, c.Message)
	}
	// A lasting failure is not a write per tick.
	if writes := f.tick(2 * time.Second); len(writes) > 0 {
		t.Errorf("a retried, still failing plan wrote %q", writes)
	}
	if err := f.c.Create(context.Background(), namespace("shop")); err != nil {
		t.Fatal(err)
	}
	f.tick(2 * time.Second)
	f.tick(2 * time.Second)
	p = f.plan("freeze")
	if p.Status.Phase != plan.PhaseActive || len(f.policies("shop")) != 1 {
		t.Fatalf("after the namespace came back: phase %q, %d policies", p.Status.Phase, len(f.policies("shop")))
	}
	if c := condition(p, plan.ConditionReady); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s %s, want True after recovery", c.Status, c.Reason)
	}
	if !slices.ContainsFunc(p.Status.Timeline, func(e plan.TimelineEvent) bool { return e.Type == plan.EventRecovered }) {
		t.Error("no Recovered event in the timeline")
	}
}

func TestReconcile_PolicyAPIMissingFailsThePlan(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")}, withoutKyverno())
	f.pass()
	p := f.plan("freeze")
	if c := condition(p, plan.ConditionReady); p.Status.Phase != plan.PhaseFailed || c.Reason != plan.ReasonPolicyAPIMissing {
		t.Fatalf("phase %q, Ready %s %q; want failed, PolicyAPIMissing", p.Status.Phase, c.Reason, c.Message)
	}
	if !slices.ContainsFunc(f.drainEvents(), func(e string) bool { return strings.HasPrefix(e, "Warning Failed PolicyAPIMissing") }) {
		t.Error("no Failed event")
	}
}

func TestReconcile_CancelWithdrawsAndWritesTheFinalReport(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeAudit, []string{"shop"}, "scaling")})
	f.pass()
	f.tick(2 * time.Second)

	res, err := plan.Cancel(f.plan("freeze"), "bob", f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	f.storeStatus(res.Plan) // stored by someone else: the operator sees it canceled already
	f.tick(time.Second)

	if n := len(f.policies("shop")); n != 0 {
		t.Fatalf("%d policies left after cancel", n)
	}
	files, _ := filepath.Glob(filepath.Join(f.dir, "freeze", "freeze-cancel-*"))
	var exts []string
	for _, p := range files {
		exts = append(exts, filepath.Ext(p))
	}
	slices.Sort(exts)
	if want := []string{".csv", ".html", ".json", ".md"}; !slices.Equal(exts, want) {
		t.Fatalf("final report files %v, want one per format %v", files, want)
	}
	if c := condition(f.plan("freeze"), plan.ConditionPoliciesHealthy); c.Reason != health.ReasonNothingDeployed {
		t.Errorf("PoliciesHealthy = %s %s, want NothingDeployed", c.Status, c.Reason)
	}
	// Nothing is reported twice.
	f.tick(2 * time.Second)
	if again, _ := filepath.Glob(filepath.Join(f.dir, "freeze", "freeze-cancel-*")); len(again) != 4 {
		t.Errorf("report files after another pass: %v", again)
	}
}

func TestReconcile_WindowEdgesAreOnTime(t *testing.T) {
	p := kubectlPlan("later", plan.ModeEnforce, []string{"shop"}, "scaling")
	start, end := t0.Add(10*time.Second), t0.Add(30*time.Second)
	p.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}}
	f := newFixture(t, []client.Object{namespace("shop"), p})

	next := f.r.reconcileAll(context.Background())
	if got := f.plan("later"); got.Status.Phase != plan.PhaseScheduled || len(f.policies("shop")) != 0 {
		t.Fatalf("before the start: phase %q, %d policies", got.Status.Phase, len(f.policies("shop")))
	}
	if next == nil || !next.Equal(start) {
		t.Fatalf("next edge = %v, want %v", next, start)
	}
	f.clock.SetTime(start)
	next = f.r.reconcileAll(context.Background())
	if got := f.plan("later"); got.Status.Phase != plan.PhaseActive || len(f.policies("shop")) != 1 {
		t.Fatalf("at the start: phase %q, %d policies", got.Status.Phase, len(f.policies("shop")))
	}
	if next == nil || !next.Equal(end) {
		t.Fatalf("next edge = %v, want %v", next, end)
	}
	f.clock.SetTime(end)
	f.r.reconcileAll(context.Background())
	if got := f.plan("later"); got.Status.Phase != plan.PhaseTerminated || len(f.policies("shop")) != 0 {
		t.Fatalf("at the end: phase %q, %d policies", got.Status.Phase, len(f.policies("shop")))
	}
	if files, _ := filepath.Glob(filepath.Join(f.dir, "later", "later-end-*.json")); len(files) != 1 {
		t.Errorf("end report: %v", files)
	}
}

func TestReconcile_DeletedPlanIsSweptWithItsReports(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.pass()
	if err := f.c.Delete(context.Background(), f.plan("freeze")); err != nil {
		t.Fatal(err)
	}
	writes := f.tick(2 * time.Second)
	if !slices.Equal(writes, []string{"delete Policy shop/freeze-scaling"}) {
		t.Errorf("writes = %q, want the policy swept", writes)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "freeze")); !os.IsNotExist(err) {
		t.Errorf("the reports directory of the deleted plan is still there (%v)", err)
	}
}

func TestReconcile_ApplicationsScopeResolvesByInstanceLabel(t *testing.T) {
	p := kubectlPlan("app", plan.ModeEnforce, nil, "scaling")
	p.Spec.Scope = plan.Scope{Applications: []string{"checkout"}}
	web := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{
		Namespace: "shop", Name: "web", Labels: map[string]string{plan.InstanceLabel: "checkout"},
	}}
	f := newFixture(t, []client.Object{namespace("shop"), namespace("other"), p, web})
	f.pass()
	if got := f.plan("app"); got.Status.Phase != plan.PhaseActive {
		t.Fatalf("phase %q (%v)", got.Status.Phase, condition(got, plan.ConditionReady))
	}
	if len(f.policies("shop")) != 1 || len(f.policies("other")) != 0 {
		t.Errorf("policies: shop %d, other %d; want 1, 0", len(f.policies("shop")), len(f.policies("other")))
	}
}
