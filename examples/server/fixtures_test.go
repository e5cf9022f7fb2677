package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// The fixture is a small cluster as the dashboard would see it on
// Wed 18 Nov 2026 12:00 UTC: six plans in every phase, built by running
// the library's lifecycle from their creation (nothing is hand-written in
// a status), the live policies of the active plan, its ledger and events,
// and reports in a temporary reports directory.

var fixtureNow = time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)

const testSecret = "0123456789abcdef-test-secret"

// The roles file of the tests: alice and bob are Owners, carol a
// Contributor, victor a Viewer, dave has no role; the group auditors has
// a custom read-only role, and erin is an Owner whose custom role
// withholds delete.
const testRoles = `
roles:
- name: Auditor
  permissions: [protection-plans.list, protection-plans.get, protection-plans.reports, protection-plans.violations]
- name: No deletes
  permissions: [protection-plans.delete.deny]
bindings:
- role: Owner
  users: [alice, bob, erin]
- role: Contributor
  users: [carol]
- role: Viewer
  users: [victor]
- role: Auditor
  groups: [auditors]
- role: No deletes
  users: [erin]
`

func day(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }

func mustTime(s string) *metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &metav1.Time{Time: t}
}

// loadPlan reads a sample plan of examples/plans.
func loadPlan(t testing.TB, name string) *plan.ProtectionPlan {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "plans", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var p plan.ProtectionPlan
	if err := plan.Decode(f, &p); err != nil {
		t.Fatal(err)
	}
	return &p
}

func owner(name string) approval.Caller {
	return approval.Caller{Username: name, Roles: []approval.Role{approval.Owner()}}
}

// fixture is the cluster and the reports directory.
type fixture struct {
	objects    []client.Object
	reportsDir string
}

func newFixture(t testing.TB, target render.Target, compact bool) *fixture {
	t.Helper()
	fx := &fixture{reportsDir: t.TempDir()}
	ok := func(res plan.Result, err error) *plan.ProtectionPlan {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return res.Plan
	}
	for _, ns := range []string{"shop", "payments", "checkout", "telark-system", "kube-system"} {
		fx.objects = append(fx.objects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	for _, w := range []struct{ ns, name, app string }{
		{"payments", "payments-api", "payments-api"}, {"payments", "payments-migrations", "payments-api"},
		{"checkout", "checkout", "checkout"}, {"shop", "storefront", "storefront"},
	} {
		fx.objects = append(fx.objects, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: w.name, Labels: map[string]string{plan.InstanceLabel: w.app}},
		})
	}

	// Business-hours freeze: Production, created by carol, waiting for an Owner.
	prod := loadPlan(t, "production-release")
	prod.Annotations = map[string]string{plan.CreatedByAnnotation: "carol"}
	prod = ok(plan.Create(prod, "carol", day(15, 9)))

	// Nightly image freeze: recurring, scheduled until 22:00 Berlin.
	nightly := loadPlan(t, "nightly-image-freeze")
	nightly.Spec.ApprovalMode = plan.ApprovalAutomatic
	nightly = ok(plan.Create(nightly, "carol", day(10, 9)))
	nightly = plan.Tick(nightly, fixtureNow).Plan

	// Holiday freeze: audit, scheduled for Christmas.
	holiday := loadPlan(t, "holiday-freeze")
	holiday.Spec.ApprovalMode = plan.ApprovalAutomatic
	holiday = ok(plan.Create(holiday, "alice", day(2, 10)))

	// Black Friday lockdown: enforce on shop, approved by alice, active
	// since Mon 16 Nov, with policies, violations and a report.
	bf := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "black-friday"}, Spec: plan.Spec{
		Name:        "Black Friday lockdown",
		Description: "No scaling, image or ConfigMap changes in the shop during the sales week.",
		Scope:       plan.Scope{Namespaces: []string{"shop"}},
		Exclusions:  plan.Exclusions{Kinds: []string{"Job"}},
		Templates:   []plan.TemplateRef{{Name: "image-change"}, {Name: "scaling"}, {Name: "configmap-edits"}},
		Window:      windowRange("2026-11-16T00:00:00Z", "2026-11-30T00:00:00Z"),
		Mode:        plan.ModeEnforce, ApprovalMode: plan.ApprovalRequired,
		Environment: plan.EnvironmentProduction, Tags: []string{plan.TagCompliance},
	}}
	bf = ok(plan.Create(bf, "bob", day(13, 15)))
	bf = ok(approval.Approve(bf, bf.Status.ApprovalRequest.ID, owner("alice"), day(14, 9)))
	bf = plan.Tick(bf, day(16, 0)).Plan
	rendered, err := render.Render(render.Input{Plan: bf, Now: fixtureNow, Target: target, Compact: compact})
	if err != nil {
		t.Fatal(err)
	}
	live := rendered.Objects()
	check := health.Check(health.Input{Plan: bf, Render: rendered, Live: live, Now: day(16, 0)})
	bf = health.Record(bf, check, day(16, 0)).Plan
	for _, o := range live {
		fx.objects = append(fx.objects, o)
	}
	fx.writeLedger(t, "black-friday", bfViolations(live))
	fx.objects = append(fx.objects, blockedEvent(fixtureNow.Add(-20*time.Minute)))

	// Payment secrets: canceled by carol after two days active.
	sec := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "payments-secrets"}, Spec: plan.Spec{
		Name:      "Payment secrets rotation freeze",
		Scope:     plan.Scope{Namespaces: []string{"payments"}},
		Templates: []plan.TemplateRef{{Name: "secret-edits"}},
		Window:    windowRange("2026-11-12T00:00:00Z", "2026-11-19T00:00:00Z"),
		Mode:      plan.ModeAudit, ApprovalMode: plan.ApprovalAutomatic,
		Environment: plan.EnvironmentStaging, Tags: []string{plan.TagSecurity},
	}}
	sec = ok(plan.Create(sec, "carol", day(12, 0)))
	sec = ok(plan.Cancel(sec, "carol", day(14, 16)))
	fx.writeReport(t, sec, report.TriggerCancel, day(14, 16))

	// October audit: terminated with its window, with its final report.
	oct := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "october-audit"}, Spec: plan.Spec{
		Name:      "October baseline audit",
		Scope:     plan.Scope{Applications: []string{"checkout"}},
		Templates: []plan.TemplateRef{{Name: "delete"}},
		Window:    windowRange("2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z"),
		Mode:      plan.ModeAudit, ApprovalMode: plan.ApprovalAutomatic,
		Environment: plan.EnvironmentDevelopment, Tags: []string{plan.TagBaseline},
	}}
	oct = ok(plan.Create(oct, "alice", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)))
	oct = plan.Tick(oct, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)).Plan
	fx.writeReport(t, oct, report.TriggerEnd, time.Date(2026, 11, 1, 0, 0, 31, 0, time.UTC))
	fx.writeReport(t, bf, report.TriggerManual, day(17, 8))

	for _, p := range []*plan.ProtectionPlan{prod, nightly, holiday, bf, sec, oct} {
		if p.Status.Phase != plan.PhaseActive {
			// The operator's last check of a plan with nothing deployed.
			check := health.Check(health.Input{Plan: p, Now: fixtureNow.Add(-31 * time.Second)})
			*p = *health.Record(p, check, fixtureNow.Add(-31*time.Second)).Plan
		}
		p.Generation = 1
		p.UID = types.UID("uid-" + p.Name)
		fx.objects = append(fx.objects, p)
	}
	return fx
}

func windowRange(start, end string) window.Spec {
	return window.Spec{Type: window.TimeRange, StartAt: mustTime(start), EndAt: mustTime(end)}
}

// bfViolations are the black-friday plan's checkpointed violations.
func bfViolations(live []*unstructured.Unstructured) []violations.Violation {
	var scaling, image string
	for _, o := range live {
		switch o.GetLabels()[render.LabelTemplate] {
		case "scaling":
			scaling = o.GetName()
		case "image-change":
			image = o.GetName()
		}
	}
	v := func(key, policy, tpl, kind, name, sub, msg string, at time.Time, count int32) violations.Violation {
		return violations.Violation{Key: key, Plan: "black-friday", Template: tpl, Policy: policy, PolicyNamespace: "shop",
			Rule: tpl, Resource: violations.Resource{Kind: kind, Namespace: "shop", Name: name, Subresource: sub},
			Result: violations.ResultFail, Blocked: true, Message: msg, Timestamp: at, FirstSeen: at, Count: count,
			Source: violations.SourceEvent}
	}
	return []violations.Violation{
		v("k1", scaling, "scaling", "Deployment", "storefront", "scale", "scaling is frozen by protection plan Black Friday lockdown until 2026-11-30 00:00 UTC", day(16, 9), 3),
		v("k2", image, "image-change", "Deployment", "storefront", "", "image changes are frozen by protection plan Black Friday lockdown until 2026-11-30 00:00 UTC", day(17, 14), 1),
		v("k3", scaling, "scaling", "StatefulSet", "cart-redis", "scale", "scaling is frozen by protection plan Black Friday lockdown until 2026-11-30 00:00 UTC", day(18, 7), 1),
	}
}

// blockedEvent is a PolicyViolation event as Kyverno 1.19.1 writes it for
// a refused request (recorded shape: violations/testdata).
func blockedEvent(at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: "shop", Name: "black-friday-scaling.18eca8d5ef0bf7e0", CreationTimestamp: metav1.NewTime(at)},
		InvolvedObject:      corev1.ObjectReference{APIVersion: "kyverno.io/v1", Kind: "Policy", Namespace: "shop", Name: "black-friday-scaling", UID: "p-uid"},
		Related:             &corev1.ObjectReference{APIVersion: "autoscaling/v1", Kind: "Scale", Namespace: "shop", Name: "storefront", UID: "r-uid"},
		Reason:              violations.ReasonPolicyViolation,
		Action:              "Resource Blocked",
		Message:             "Scale shop/storefront: [replicas-deployments-scale] fail (blocked); scaling is frozen by protection plan Black Friday lockdown until 2026-11-30 00:00 UTC",
		EventTime:           metav1.NewMicroTime(at),
		ReportingController: "kyverno-admission",
		ReportingInstance:   "kyverno-admission-test",
		Type:                corev1.EventTypeWarning,
	}
}

func (fx *fixture) writeLedger(t testing.TB, id string, vs []violations.Violation) {
	t.Helper()
	data, err := violations.NewLedger(id).Merge(vs).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(fx.reportsDir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fx.reportsDir, id, "ledger.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) writeReport(t testing.TB, p *plan.ProtectionPlan, tr report.Trigger, at time.Time) {
	t.Helper()
	r, err := report.Build(report.Input{Plan: p, Trigger: tr, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.New(fx.reportsDir).WriteReport(r); err != nil {
		t.Fatal(err)
	}
}

// scheme knows the plans, the built-in kinds and Kyverno's Policy (as
// unstructured).
func testScheme(t testing.TB) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := plan.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kinds, _ := render.KindsOf(render.TargetKyverno)
	for _, gvk := range kinds {
		s.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
		s.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &unstructured.UnstructuredList{})
	}
	return s
}

// env is a server over a fake client holding the fixture.
type env struct {
	t       testing.TB
	fx      *fixture
	client  client.Client
	server  *Server
	limiter *report.Limiter
	log     *bytes.Buffer
}

type envOption func(*envConfig)

type envConfig struct {
	funcs    interceptor.Funcs
	excluded ExcludedNamespaces
	noFiles  bool
	// fixtureTarget renders the fixture's live policies; serverTarget is
	// the server's --target.
	fixtureTarget, serverTarget render.Target
	// fixtureCompact and serverCompact are the same for the layout.
	fixtureCompact, serverCompact bool
}

// withTargets sets the target the fixture's policies were put in place
// with (the operator's) and the server's --target.
func withTargets(fixture, server render.Target) envOption {
	return func(c *envConfig) { c.fixtureTarget, c.serverTarget = fixture, server }
}

func withCompact(fixture, server bool) envOption {
	return func(c *envConfig) { c.fixtureCompact, c.serverCompact = fixture, server }
}

func withInterceptor(f interceptor.Funcs) envOption { return func(c *envConfig) { c.funcs = f } }

func withExcludedConfigMap() envOption {
	return func(c *envConfig) {
		c.excluded = ExcludedNamespaces{ConfigMap: &types.NamespacedName{Namespace: "telark-system", Name: "excluded-namespaces"}}
	}
}

func newEnv(t testing.TB, opts ...envOption) *env {
	t.Helper()
	cfg := envConfig{excluded: ExcludedNamespaces{Static: []string{"kube-system"}}}
	for _, o := range opts {
		o(&cfg)
	}
	fx := newFixture(t, cfg.fixtureTarget, cfg.fixtureCompact)
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).
		WithObjects(fx.objects...).
		WithStatusSubresource(&plan.ProtectionPlan{}).
		WithIndex(&corev1.Event{}, "reason", func(o client.Object) []string { return []string{o.(*corev1.Event).Reason} }).
		WithInterceptorFuncs(cfg.funcs).
		Build()
	roles, err := approval.ParseRoleBindings([]byte(testRoles))
	if err != nil {
		t.Fatal(err)
	}
	logs := &bytes.Buffer{}
	e := &env{t: t, fx: fx, client: c, limiter: report.NewLimiter(), log: logs}
	dir := fx.reportsDir
	if cfg.noFiles {
		dir = ""
	}
	e.server, err = New(Config{
		Client: c, Now: func() time.Time { return fixtureNow }, Roles: roles,
		Identity:         Identity{Mode: SharedSecret, Secret: []byte(testSecret)},
		ReleaseNamespace: "telark-system", Excluded: cfg.excluded, ReportsDir: dir,
		Limiter: e.limiter, Log: slog.New(slog.NewTextHandler(logs, nil)), Target: cfg.serverTarget, Compact: cfg.serverCompact,
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// request is one request of a test.
type request struct {
	method, path string
	user         string // "" sends no identity
	groups       []string
	body         string
	header       map[string]string
}

func (e *env) do(rq request) *httptest.ResponseRecorder {
	e.t.Helper()
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	r := httptest.NewRequest(rq.method, rq.path, body)
	if rq.body != "" && r.Header.Get("Content-Type") == "" {
		if strings.HasPrefix(rq.body, "{") {
			r.Header.Set("Content-Type", "application/json")
		} else {
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	}
	if rq.user != "" {
		r.Header.Set(HeaderSecret, testSecret)
		r.Header.Set(HeaderUser, rq.user)
		for _, g := range rq.groups {
			r.Header.Add(HeaderGroup, g)
		}
	}
	for k, v := range rq.header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	e.server.ServeHTTP(w, r)
	return w
}

// plan reads a plan from the fake cluster.
func (e *env) plan(id string) *plan.ProtectionPlan {
	e.t.Helper()
	var p plan.ProtectionPlan
	if err := e.client.Get(context.Background(), types.NamespacedName{Name: id}, &p); err != nil {
		e.t.Fatal(err)
	}
	return &p
}
