package kube

import (
	"context"
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

var (
	kyvernoPolicy = schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "Policy"}
	vapBinding    = schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"}
	policyReport  = PolicyReportListGVK.GroupVersion().WithKind("PolicyReport")
)

// cluster is a fake client holding objs; the kinds in notServed answer a
// list as an API server without them would (no REST mapping), and the
// lists made are counted in lists.
type cluster struct {
	client.WithWatch
	lists map[string]int
}

func newCluster(t *testing.T, notServed []schema.GroupVersionKind, objs ...client.Object) *cluster {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, gvk := range []schema.GroupVersionKind{kyvernoPolicy, policyReport} {
		s.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
		s.AddKnownTypeWithName(gvk.GroupVersion().WithKind(gvk.Kind+"List"), &unstructured.UnstructuredList{})
	}
	c := &cluster{lists: map[string]int{}}
	c.WithWatch = fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithIndex(&corev1.Event{}, "reason", func(o client.Object) []string { return []string{o.(*corev1.Event).Reason} }).
		WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			gvk := list.GetObjectKind().GroupVersionKind()
			if gvk.Empty() {
				gvks, _, err := s.ObjectKinds(list)
				if err != nil {
					return err
				}
				gvk = gvks[0]
			}
			c.lists[gvk.Kind]++
			item := gvk.GroupVersion().WithKind(strings.TrimSuffix(gvk.Kind, "List"))
			if slices.Contains(notServed, item) {
				return &meta.NoKindMatchError{GroupKind: item.GroupKind(), SearchedVersions: []string{item.Version}}
			}
			return cl.List(ctx, list, opts...)
		}}).Build()
	return c
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
}

func TestRegisterFlags(t *testing.T) {
	ref := &types.NamespacedName{Namespace: "ops", Name: "frozen"}
	for _, tc := range []struct {
		name    string
		args    []string
		want    Facts
		wantErr string
	}{
		{name: "no flags give the server's defaults", want: Facts{ReleaseNamespace: "telark-system",
			Excluded: Excluded{Static: []string{"kube-system", "kube-public", "kube-node-lease"}}}},
		{name: "every flag set", args: []string{"--release-namespace=prod-system", "--excluded-namespaces=a, b,c",
			"--excluded-namespaces-configmap=ops/frozen"},
			want: Facts{ReleaseNamespace: "prod-system", Excluded: Excluded{Static: []string{"a", "b", "c"}, ConfigMap: ref}}},
		{name: "an empty excluded list excludes nothing statically", args: []string{"--excluded-namespaces="},
			want: Facts{ReleaseNamespace: "telark-system", Excluded: Excluded{Static: []string{}}}},
		{name: "a ConfigMap without a namespace is refused", args: []string{"--excluded-namespaces-configmap=frozen"},
			wantErr: "must be NAMESPACE/NAME"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var f Facts
			f.RegisterFlags(fs)
			err := fs.Parse(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, f); diff != "" {
				t.Errorf("facts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlagDefaultsInUsage(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var out strings.Builder
	fs.SetOutput(&out)
	new(Facts).RegisterFlags(fs)
	fs.PrintDefaults()
	for _, want := range []string{`(default "telark-system")`, `(default kube-system,kube-public,kube-node-lease)`, "-excluded-namespaces-configmap"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage has no %q:\n%s", want, out.String())
		}
	}
}

func TestExcluded(t *testing.T) {
	ref := &types.NamespacedName{Namespace: "ops", Name: "frozen"}
	for _, tc := range []struct {
		name     string
		excluded Excluded
		objs     []client.Object
		want     []string
		wantErr  string
	}{
		{name: "the static list alone", excluded: Excluded{Static: []string{"kube-system"}}, want: []string{"kube-system"}},
		{name: "names separated by commas, spaces and new lines follow the static ones",
			excluded: Excluded{Static: []string{"kube-system"}, ConfigMap: ref},
			objs:     []client.Object{configMap("ops", "frozen", map[string]string{"namespaces": "a,b c\nd,\n\te , "})},
			want:     []string{"kube-system", "a", "b", "c", "d", "e"}},
		{name: "another key is read when set", excluded: Excluded{ConfigMap: ref, Key: "list"},
			objs: []client.Object{configMap("ops", "frozen", map[string]string{"namespaces": "a", "list": "b"})},
			want: []string{"b"}},
		{name: "a missing ConfigMap is an error naming it", excluded: Excluded{Static: []string{"kube-system"}, ConfigMap: ref},
			wantErr: "ops/frozen"},
		{name: "a ConfigMap without the key is an error naming it and the key", excluded: Excluded{ConfigMap: ref},
			objs:    []client.Object{configMap("ops", "frozen", map[string]string{"other": "a"})},
			wantErr: `the excluded-namespace ConfigMap ops/frozen has no key "namespaces"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(newCluster(t, nil, tc.objs...), Facts{Excluded: tc.excluded})
			got, err := r.Excluded(context.Background())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Excluded: %v, want an error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Excluded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExcludedReadOnEveryCall(t *testing.T) {
	c := newCluster(t, nil, configMap("ops", "frozen", map[string]string{"namespaces": "a"}))
	r := New(c, Facts{Excluded: Excluded{ConfigMap: &types.NamespacedName{Namespace: "ops", Name: "frozen"}}})
	ctx := context.Background()
	if got, _ := r.Excluded(ctx); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("first read: %v", got)
	}
	if err := c.Update(ctx, configMap("ops", "frozen", map[string]string{"namespaces": "a b"})); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.Excluded(ctx); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("after an edit: %v, want [a b]", got)
	}
}

func TestNamespaces(t *testing.T) {
	now := metav1.Now()
	terminating := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "leaving", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"}}}
	c := newCluster(t, nil, terminating,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "payments"}})
	r := New(c, Facts{ReleaseNamespace: "telark-system", Excluded: Excluded{Static: []string{"kube-system"}}})
	got, err := r.Namespaces(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"payments", "shop"}; !slices.Equal(got, want) {
		t.Errorf("Namespaces = %v, want %v (a terminating namespace left out)", got, want)
	}

	view, err := r.ClusterView(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                   string
		has, release, excluded bool
	}{
		{name: "shop", has: true},
		{name: "leaving"},
		{name: "telark-system", release: true},
		{name: "kube-system", excluded: true},
	} {
		ex, err := view.IsExcludedNamespace(tc.name)
		if view.HasNamespace(tc.name) != tc.has || view.IsReleaseNamespace(tc.name) != tc.release || ex != tc.excluded || err != nil {
			t.Errorf("%s: has %v, release %v, excluded %v (%v); want %v, %v, %v", tc.name, view.HasNamespace(tc.name),
				view.IsReleaseNamespace(tc.name), ex, err, tc.has, tc.release, tc.excluded)
		}
	}
}

func TestClusterViewExcludedUnreadable(t *testing.T) {
	r := New(newCluster(t, nil), Facts{Excluded: Excluded{ConfigMap: &types.NamespacedName{Namespace: "ops", Name: "frozen"}}})
	view, err := r.ClusterView(context.Background())
	if err != nil {
		t.Fatalf("ClusterView: %v, want the excluded list's error in the view only", err)
	}
	if _, err := view.IsExcludedNamespace("shop"); err == nil || !strings.Contains(err.Error(), "ops/frozen") {
		t.Errorf("IsExcludedNamespace: %v, want the ConfigMap's error", err)
	}
}

func TestCategories(t *testing.T) {
	for _, tc := range []struct {
		name        string
		objs        []client.Object
		wantCustom  []string
		wantCM      bool
		wantInvalid bool
	}{
		{name: "no ConfigMap: the built-ins only, and no ConfigMap to update"},
		{name: "the custom categories of the ConfigMap", wantCM: true, wantCustom: []string{"Payments"},
			objs: []client.Object{configMap("telark-system", DefaultCategoriesConfigMap,
				map[string]string{CategoriesKey: `[{"kind":"tag","name":"Payments"}]`})}},
		{name: "JSON that does not decode is invalid content", wantInvalid: true,
			objs: []client.Object{configMap("telark-system", DefaultCategoriesConfigMap, map[string]string{CategoriesKey: `[{`})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(newCluster(t, nil, tc.objs...), Facts{ReleaseNamespace: "telark-system"})
			cats, cm, err := r.Categories(context.Background())
			if tc.wantInvalid {
				if !errors.Is(err, ErrInvalidContent) || !strings.Contains(err.Error(), "telark-system/"+DefaultCategoriesConfigMap) {
					t.Fatalf("Categories: %v, want ErrInvalidContent naming the ConfigMap", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (cm != nil) != tc.wantCM {
				t.Errorf("ConfigMap %v, want one: %v", cm, tc.wantCM)
			}
			var custom []string
			for _, c := range cats.Custom() {
				custom = append(custom, c.Name)
			}
			if !slices.Equal(custom, tc.wantCustom) {
				t.Errorf("custom categories %v, want %v", custom, tc.wantCustom)
			}
			if len(cats.All(plan.KindEnvironment)) == 0 {
				t.Error("no built-in environments")
			}
		})
	}
}

func TestCategoriesUnreadable(t *testing.T) {
	c := newCluster(t, nil)
	failing := interceptor.NewClient(c.WithWatch, interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("RBAC"))
	}})
	_, _, err := New(failing, Facts{ReleaseNamespace: "telark-system"}).Categories(context.Background())
	if err == nil || errors.Is(err, ErrInvalidContent) || !apierrors.IsForbidden(err) {
		t.Errorf("Categories: %v, want the wrapped read error", err)
	}
}

func TestCategoriesWithoutAReleaseNamespaceAreTheBuiltIns(t *testing.T) {
	c := newCluster(t, nil)
	failing := interceptor.NewClient(c.WithWatch, interceptor.Funcs{Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
		return errors.New("a namespaced Get without a namespace")
	}})
	cats, cm, err := New(failing, Facts{}).Categories(context.Background())
	if err != nil || cm != nil || !cats.Has(plan.KindEnvironment, plan.EnvironmentProduction) {
		t.Errorf("Categories = %v, %v, %v; want the built-ins, read from nowhere", cats, cm, err)
	}
}

func TestMembers(t *testing.T) {
	labeled := func(name string, labels map[string]string) *appsv1.Deployment {
		return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: labels}}
	}
	c := newCluster(t, nil,
		labeled("cart", map[string]string{plan.InstanceLabel: "shop"}),
		labeled("loose", map[string]string{"app": "loose"}),
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart", Labels: map[string]string{plan.InstanceLabel: "shop"}}},
	)
	got, err := New(c, Facts{}).Members(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []plan.LabeledObject{
		{Kind: "Deployment", Namespace: "shop", Name: "cart", Labels: map[string]string{plan.InstanceLabel: "shop"}},
		{Kind: "Service", Namespace: "shop", Name: "cart", Labels: map[string]string{plan.InstanceLabel: "shop"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Members: only the objects with the instance label (-want +got):\n%s", diff)
	}
	if n := c.lists["DeploymentList"]; n != 1 {
		t.Errorf("%d lists of Deployments, want 1", n)
	}
}

func TestApplicationsListOnFirstUse(t *testing.T) {
	c := newCluster(t, nil, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart",
		Labels: map[string]string{plan.InstanceLabel: "shop"}}})
	apps := New(c, Facts{}).Applications(context.Background())
	if n := c.lists["DeploymentList"]; n != 0 {
		t.Fatalf("%d lists before a resolution, want none", n)
	}
	for range 2 {
		if app, err := apps.ResolveApplication("shop"); err != nil || !slices.Equal(app.Namespaces, []string{"shop"}) {
			t.Errorf("ResolveApplication(shop) = %+v, %v", app, err)
		}
	}
	if _, err := apps.ResolveApplication("nope"); !errors.Is(err, plan.ErrApplicationNotFound) {
		t.Errorf("an unknown application: %v, want plan.ErrApplicationNotFound", err)
	}
	if n := c.lists["DeploymentList"]; n != 1 {
		t.Errorf("%d lists of Deployments for three resolutions, want 1", n)
	}
}

func policy(ns, name, planID string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kyvernoPolicy)
	u.SetNamespace(ns)
	u.SetName(name)
	if planID != "" {
		u.SetLabels(map[string]string{render.LabelPlan: planID})
	}
	return u
}

func objectNames(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
	}
	slices.Sort(out)
	return out
}

func TestPolicies(t *testing.T) {
	vap := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "freeze-a", Labels: map[string]string{render.LabelPlan: "a"}}}
	objs := []client.Object{policy("shop", "freeze-a", "a"), policy("shop", "freeze-b", "b"), policy("shop", "not-ours", ""), vap}
	for _, tc := range []struct {
		name          string
		target        render.Target
		planID        string
		notServed     []schema.GroupVersionKind
		want          []string
		wantNotServed bool
	}{
		{name: "every plan's policies, not the unlabelled one", target: render.TargetKyverno, planID: AllPlans,
			want: []string{"Policy shop/freeze-a", "Policy shop/freeze-b"}},
		{name: "one plan's policies", target: render.TargetKyverno, planID: "b", want: []string{"Policy shop/freeze-b"}},
		{name: "Kyverno not installed: no policies, reported as not served", target: render.TargetKyverno,
			notServed: []schema.GroupVersionKind{kyvernoPolicy}, wantNotServed: true},
		{name: "one kind of two not served: the other's policies, reported as not served", target: render.TargetVAP,
			notServed: []schema.GroupVersionKind{vapBinding}, want: []string{"ValidatingAdmissionPolicy /freeze-a"}, wantNotServed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := New(newCluster(t, tc.notServed, objs...), Facts{}).Policies(context.Background(), tc.target, tc.planID)
			if IsNotServed(err) != tc.wantNotServed {
				t.Fatalf("Policies: %v, want not served: %v", err, tc.wantNotServed)
			}
			if !tc.wantNotServed && err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, objectNames(got)); diff != "" {
				t.Errorf("Policies (-want +got):\n%s", diff)
			}
			var ns *NotServedError
			if tc.wantNotServed && (!errors.As(err, &ns) || !slices.Equal(ns.Kinds, tc.notServed)) {
				t.Errorf("Policies: %v, want a *NotServedError naming %v", err, tc.notServed)
			}
		})
	}
}

func TestIsNotServed(t *testing.T) {
	gk := schema.GroupKind{Group: "kyverno.io", Kind: "Policy"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{name: "no error", err: nil},
		{name: "no REST mapping", err: &meta.NoKindMatchError{GroupKind: gk}, want: true},
		{name: "no resource match", err: &meta.NoResourceMatchError{}, want: true},
		{name: "a 404 on the list", err: apierrors.NewNotFound(schema.GroupResource{Group: "kyverno.io", Resource: "policies"}, ""), want: true},
		{name: "a wrapped NoKindMatch", err: errors.Join(errors.New("listing"), &meta.NoKindMatchError{GroupKind: gk}), want: true},
		{name: "forbidden is not 'not served'", err: apierrors.NewForbidden(schema.GroupResource{Resource: "policies"}, "", errors.New("RBAC"))},
		{name: "a timeout is not 'not served'", err: context.DeadlineExceeded},
	} {
		if got := IsNotServed(tc.err); got != tc.want {
			t.Errorf("%s: IsNotServed(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

func TestPoliciesOtherErrors(t *testing.T) {
	c := newCluster(t, nil)
	failing := interceptor.NewClient(c.WithWatch, interceptor.Funcs{List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
		return apierrors.NewForbidden(schema.GroupResource{Group: "kyverno.io", Resource: "policies"}, "", errors.New("RBAC"))
	}})
	_, err := New(failing, Facts{}).Policies(context.Background(), render.TargetKyverno, AllPlans)
	if err == nil || IsNotServed(err) || !strings.Contains(err.Error(), "Policy") {
		t.Errorf("Policies: %v, want an error naming the kind, not 'not served'", err)
	}
}

func event(ns, name, reason string) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Reason: reason}
}

func report(ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(policyReport)
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

func TestViolationSources(t *testing.T) {
	objs := []client.Object{
		event("shop", "e1", "PolicyViolation"), event("shop", "e2", "Scheduled"),
		event("payments", "e3", "PolicyViolation"), event("elsewhere", "e4", "PolicyViolation"),
		report("shop", "r1"), report("elsewhere", "r2"),
	}
	for _, tc := range []struct {
		name        string
		namespaces  []string
		notServed   []schema.GroupVersionKind
		wantEvents  []string
		wantReports []string
		wantServed  bool
	}{
		{name: "the PolicyViolation events and the reports of the namespaces given", namespaces: []string{"shop", "payments"},
			wantEvents: []string{"shop/e1", "payments/e3"}, wantReports: []string{"PolicyReport shop/r1"}, wantServed: true},
		{name: "reports not served: the events only, no error", namespaces: []string{"shop"},
			notServed: []schema.GroupVersionKind{policyReport}, wantEvents: []string{"shop/e1"}},
		{name: "a namespace named twice and the empty name (cluster-scoped) are listed once and never",
			namespaces: []string{"shop", "", "shop"}, wantEvents: []string{"shop/e1"}, wantReports: []string{"PolicyReport shop/r1"}, wantServed: true},
		{name: "no namespaces: nothing listed", wantServed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, tc.notServed, objs...)
			src, err := New(c, Facts{}).ViolationSources(context.Background(), tc.namespaces)
			if err != nil {
				t.Fatal(err)
			}
			var evs []string
			for _, e := range src.Events {
				evs = append(evs, e.Namespace+"/"+e.Name)
			}
			if diff := cmp.Diff(tc.wantEvents, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantReports, objectNames(src.Reports)); diff != "" {
				t.Errorf("reports (-want +got):\n%s", diff)
			}
			if src.ReportsServed != tc.wantServed {
				t.Errorf("ReportsServed = %v, want %v", src.ReportsServed, tc.wantServed)
			}
			if !tc.wantServed && c.lists["PolicyReportList"] != 1 {
				t.Errorf("%d lists of PolicyReports, want 1 (not served: asked once)", c.lists["PolicyReportList"])
			}
		})
	}
}
