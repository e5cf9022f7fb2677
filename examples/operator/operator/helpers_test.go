package operator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// t0 is the unit tests' fixed now: Mon Jul 20 10:00 2026 UTC.
var t0 = time.Date(2026, 7, 20, 10, 0, 0, 0, time.UTC)

var policyGVK = schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "Policy"}

// fixture is a reconciler over controller-runtime's fake client, with a
// fake clock, a fake event recorder and a count of the writes it makes.
type fixture struct {
	t        testing.TB
	r        *reconciler
	c        client.WithWatch
	clock    *clocktesting.FakeClock
	recorder *events.FakeRecorder
	dir      string
	target   render.Target

	mu     sync.Mutex
	writes []string
	// fault, when set, may fail a request (faults_test.go): it is asked
	// before every write and list, with the verb ("apply", "patch",
	// "delete", "create", "update", "update/status", "patch/status",
	// "list") and the object's kind.
	fault func(verb, kind string) injection
}

type fixtureOption func(*fixtureConfig)

type fixtureConfig struct {
	target      render.Target
	compact     bool
	noPolicyAPI bool
	enforcement bool
}

// withEnforcement turns the enforcement check and the probes on. They are
// off in the other fixtures: the fake API server has no enforcer, so the
// check would report one missing and every probe admitted (see
// enforcement_test.go, which proves the check on the fake cluster).
func withEnforcement() fixtureOption { return func(c *fixtureConfig) { c.enforcement = true } }

// withTarget runs the fixture's operator with target t (default kyverno).
func withTarget(t render.Target) fixtureOption { return func(c *fixtureConfig) { c.target = t } }

// withCompact runs the fixture's operator with the compact layout.
func withCompact() fixtureOption { return func(c *fixtureConfig) { c.compact = true } }

// withoutPolicyAPI builds a fixture whose API server does not serve the
// kinds of the fixture's target (the other targets' kinds are served).
func withoutPolicyAPI() fixtureOption { return func(c *fixtureConfig) { c.noPolicyAPI = true } }

// withoutKyverno builds a fixture whose API server does not serve
// kyverno.io/v1.
func withoutKyverno() fixtureOption { return withoutPolicyAPI() }

// targetKinds are the kinds a target renders, as the fake API server
// serves them.
func targetKinds(t testing.TB, target render.Target) []schema.GroupVersionKind {
	t.Helper()
	kinds, err := render.KindsOf(target)
	if err != nil {
		t.Fatal(err)
	}
	return kinds
}

// clusterScoped says whether a rendered kind is cluster-scoped: the vap
// target's two kinds, and the Kyverno targets' cluster-wide kinds (a
// namespaceSelectors scope).
func clusterScoped(gvk schema.GroupVersionKind) bool {
	return gvk.Group == "admissionregistration.k8s.io" || gvk.Kind == "ClusterPolicy" || gvk.Kind == "ValidatingPolicy"
}

func newFixture(t testing.TB, objs []client.Object, opts ...fixtureOption) *fixture {
	t.Helper()
	fc := fixtureConfig{target: render.TargetKyverno}
	for _, o := range opts {
		o(&fc)
	}
	notServed := map[schema.GroupVersionKind]bool{}
	if fc.noPolicyAPI {
		for _, gvk := range targetKinds(t, fc.target) {
			notServed[gvk] = true
		}
	}
	s, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	for gvk := range s.AllKnownTypes() {
		list := gvk.GroupVersion().WithKind(strings.TrimSuffix(gvk.Kind, "List"))
		if notServed[gvk] || notServed[list] {
			continue
		}
		scope := meta.RESTScopeNamespace
		if gvk.Kind == "Namespace" || gvk.Kind == plan.Kind || gvk.Kind == "ProtectionPlanList" || clusterScoped(list) {
			scope = meta.RESTScopeRoot
		}
		mapper.Add(gvk, scope)
	}
	for _, target := range render.Targets() {
		for _, gvk := range targetKinds(t, target) {
			if notServed[gvk] {
				continue
			}
			scope := meta.RESTScopeNamespace
			if clusterScoped(gvk) {
				scope = meta.RESTScopeRoot
			}
			if _, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err == nil {
				continue // client-go's scheme knows it already
			}
			mapper.Add(gvk, scope)
			mapper.Add(gvk.GroupVersion().WithKind(gvk.Kind+"List"), scope)
		}
	}
	mapper.Add(kube.PolicyReportListGVK.GroupVersion().WithKind("PolicyReport"), meta.RESTScopeNamespace)
	mapper.Add(kube.PolicyReportListGVK, meta.RESTScopeNamespace)

	f := &fixture{t: t, target: fc.target, clock: clocktesting.NewFakeClock(t0), recorder: events.NewFakeRecorder(1000), dir: t.TempDir()}
	// do counts a write, asks f.fault, and makes the request.
	do := func(verb string, obj client.Object, call func() error) error {
		gvk, _ := apiutil.GVKForObject(obj, s)
		f.mu.Lock()
		f.writes = append(f.writes, verb+" "+gvk.Kind+" "+obj.GetNamespace()+"/"+obj.GetName())
		fault := f.fault
		f.mu.Unlock()
		return f.inject(fault, verb, gvk.Kind, call)
	}
	f.c = fake.NewClientBuilder().
		WithScheme(s).
		WithRESTMapper(mapper).
		WithObjects(objs...).
		WithStatusSubresource(&plan.ProtectionPlan{}).
		WithIndex(&corev1.Event{}, "reason", func(o client.Object) []string { return []string{o.(*corev1.Event).Reason} }).
		WithInterceptorFuncs(interceptor.Funcs{
			// The real client maps every kind through discovery: a list of
			// a kind the API server does not serve fails before any
			// request. The fake client does not consult its mapper there.
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				var listGVK schema.GroupVersionKind
				switch l := list.(type) {
				case *unstructured.UnstructuredList:
					listGVK = l.GroupVersionKind()
				case *metav1.PartialObjectMetadataList:
					listGVK = l.GroupVersionKind()
				}
				if item := listGVK.GroupVersion().WithKind(strings.TrimSuffix(listGVK.Kind, "List")); notServed[item] {
					return &meta.NoKindMatchError{GroupKind: item.GroupKind(), SearchedVersions: []string{item.Version}}
				}
				gvk, _ := apiutil.GVKForObject(list, s)
				f.mu.Lock()
				fault := f.fault
				f.mu.Unlock()
				return f.inject(fault, "list", strings.TrimSuffix(gvk.Kind, "List"), func() error { return c.List(ctx, list, opts...) })
			},
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				return do("create", obj, func() error { return c.Create(ctx, obj, opts...) })
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				return do("update", obj, func() error { return c.Update(ctx, obj, opts...) })
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				return do("patch", obj, func() error { return c.Patch(ctx, obj, patch, opts...) })
			},
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				return do("delete", obj, func() error { return c.Delete(ctx, obj, opts...) })
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				return do("update/"+sub, obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				return do("patch/"+sub, obj, func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
			},
			Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
				// The fake client has no schema for Kyverno's policies to
				// merge with: an apply is a create or a full update here.
				u := applied(t, obj)
				return do("apply", u, func() error {
					if gvk := u.GroupVersionKind(); notServed[gvk] {
						return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
					}
					return applyAsReplace(ctx, c, u, obj)
				})
			},
		}).
		Build()
	cfg, err := Config{
		Target: fc.target, Compact: fc.compact, ReportsDir: f.dir, Clock: f.clock, NoEnforcementCheck: !fc.enforcement,
		Timing: reconcile.Timing{TickInterval: 2 * time.Second, ReportCheckpoint: 10 * time.Second},
	}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	f.r = newReconciler(cfg, f.c, f.c, f.recorder)
	registerMetrics()
	return f
}

// injection is what a fixture's fault does to one request: err, when not
// nil, fails it; stored says the request is carried out first, as when a
// timeout comes back for a write the API server made.
type injection struct {
	err    error
	stored bool
}

// inject makes a request through fault (nil: no fault).
func (f *fixture) inject(fault func(verb, kind string) injection, verb, kind string, call func() error) error {
	if fault == nil {
		return call()
	}
	in := fault(verb, kind)
	switch {
	case in.err == nil:
		return call()
	case in.stored:
		if err := call(); err != nil {
			return err
		}
	}
	return in.err
}

// applied returns the object of an unstructured apply configuration.
func applied(t testing.TB, ac runtime.ApplyConfiguration) *unstructured.Unstructured {
	t.Helper()
	u, ok := ac.(interface{ UnstructuredContent() map[string]any })
	if !ok {
		t.Fatalf("apply of %T: want an unstructured apply configuration", ac)
	}
	return &unstructured.Unstructured{Object: u.UnstructuredContent()}
}

// applyAsReplace creates u, or replaces the live object with u, and writes
// the result back into the apply configuration (as the real client does).
func applyAsReplace(ctx context.Context, c client.WithWatch, u *unstructured.Unstructured, ac runtime.ApplyConfiguration) error {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(u.GroupVersionKind())
	err := c.Get(ctx, types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}, live)
	obj := u.DeepCopy()
	switch {
	case err == nil:
		obj.SetResourceVersion(live.GetResourceVersion())
		obj.SetUID(live.GetUID())
		err = c.Update(ctx, obj)
	case client.IgnoreNotFound(err) == nil:
		err = c.Create(ctx, obj)
	}
	if err != nil {
		return err
	}
	if setter, ok := ac.(interface{ SetUnstructuredContent(map[string]any) }); ok {
		setter.SetUnstructuredContent(obj.Object)
	}
	return nil
}

// pass runs one reconcile pass and returns the writes it made.
func (f *fixture) pass() []string {
	f.t.Helper()
	f.mu.Lock()
	f.writes = nil
	f.mu.Unlock()
	f.r.reconcileAll(context.Background())
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.writes...)
}

// tick advances the clock by d and runs a pass.
func (f *fixture) tick(d time.Duration) []string {
	f.t.Helper()
	f.clock.Step(d)
	return f.pass()
}

func (f *fixture) plan(name string) *plan.ProtectionPlan {
	f.t.Helper()
	p := &plan.ProtectionPlan{}
	if err := f.c.Get(context.Background(), types.NamespacedName{Name: name}, p); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// policies lists the policies of the fixture's target in namespace ns:
// its Policies (kyverno), NamespacedValidatingPolicies (kyverno-cel), or
// the ValidatingAdmissionPolicies named for ns (vap; their bindings are in
// objects).
func (f *fixture) policies(ns string) []unstructured.Unstructured {
	f.t.Helper()
	gvk := targetKinds(f.t, f.target)[0]
	if !clusterScoped(gvk) {
		return f.list(gvk, ns)
	}
	var out []unstructured.Unstructured
	for _, u := range f.list(gvk, "") {
		if strings.HasSuffix(u.GetName(), "."+ns) {
			out = append(out, u)
		}
	}
	return out
}

// objects lists every object of the fixture's target, in every namespace
// and cluster-wide, as "<Kind> <namespace>/<name>", sorted.
func (f *fixture) objects() []string {
	f.t.Helper()
	var out []string
	for _, gvk := range targetKinds(f.t, f.target) {
		for _, u := range f.list(gvk, "") {
			out = append(out, gvk.Kind+" "+u.GetNamespace()+"/"+u.GetName())
		}
	}
	slices.Sort(out)
	return out
}

func (f *fixture) list(gvk schema.GroupVersionKind, ns string) []unstructured.Unstructured {
	f.t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	var opts []client.ListOption
	if ns != "" {
		opts = append(opts, client.InNamespace(ns))
	}
	if err := f.c.List(context.Background(), list, opts...); err != nil {
		f.t.Fatal(err)
	}
	return list.Items
}

// get reads one object of the fixture's target kinds.
func (f *fixture) get(gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	f.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) policy(ns, name string) *unstructured.Unstructured {
	f.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(policyGVK)
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
		f.t.Fatal(err)
	}
	return u
}

// storeStatus writes a plan's status as an embedder would (the API server
// example, or a test acting for it).
func (f *fixture) storeStatus(p *plan.ProtectionPlan) {
	f.t.Helper()
	if err := f.c.Status().Update(context.Background(), p); err != nil {
		f.t.Fatal(err)
	}
}

// drainEvents returns the Kubernetes events recorded so far.
func (f *fixture) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func (f *fixture) readFile(planID, name string) []byte {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, planID, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

func (f *fixture) readJSON(planID, name string, v any) {
	f.t.Helper()
	if err := json.Unmarshal(f.readFile(planID, name), v); err != nil {
		f.t.Fatal(err)
	}
}

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// kubectlPlan is a plan as `kubectl apply` stores it: a spec, no status,
// no approvalMode.
func kubectlPlan(name string, mode plan.Mode, namespaces []string, templates ...string) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: plan.Spec{
			Name:   "Plan " + name,
			Scope:  plan.Scope{Namespaces: namespaces},
			Window: window.Spec{Type: window.Permanent},
			Mode:   mode,
		},
	}
	for _, t := range templates {
		p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: t})
	}
	return p
}

func condition(p *plan.ProtectionPlan, typ string) metav1.Condition {
	c := meta.FindStatusCondition(p.Status.Conditions, typ)
	if c == nil {
		return metav1.Condition{}
	}
	return *c
}
