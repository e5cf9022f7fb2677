//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/policytest"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// TestPlanTestFiles runs the test files of examples/tests (the suite that
// protectctl test and policytest.TestFiles run from render.Explain) on
// the real admission chain, for each target and layout the files name:
// each case's plans are rendered as an operator holds them at the case's
// instant and applied, the object the request acts on is put in place,
// and the request is sent as the case's requester (impersonated), as a
// server dry run. A case passes when the live answer is the file's:
// blocked is a refusal quoting the deciding plan's message; audited,
// exempt and admitted are admissions; on vap, audited and exempt
// requests answer the plan's warning and admitted ones none. (Kyverno's
// audits leave no trace on a dry run, so on the Kyverno targets audited
// and exempt are checked as admitted.) So a passing protectctl test means
// the real enforcer agrees.
//
// The files' objects are written for Explain and may lack what the API
// server requires (a Deployment's selector): complete fills in a
// selector and its template labels, which no template reads, and Explain
// must still give the file's answer for the completed request. The
// objects are put in place by a kube-system service account, which every
// plan exempts (render.Exemptions). No operator runs.
func TestPlanTestFiles(t *testing.T) {
	if s.run != nil {
		t.Fatal("an operator is running")
	}
	ctx := t.Context()
	if left, err := anyManagedObject(ctx); err != nil || left != "" {
		t.Fatalf("managed policies left by an earlier test: %s %v", left, err)
	}
	suites, err := policytest.LoadDir(os.DirFS("../.."), "tests")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) { planTestPhase(t, target, suites) })
	}
}

// liveCase is one case of a file on one target and layout, with the
// policies in force at its instant.
type liveCase struct {
	suite    policytest.Suite
	c        policytest.Case
	layout   policytest.Layout
	policies []*unstructured.Unstructured
	key      string // the policies, as one string: cases that share it share a deployment
}

func planTestPhase(t *testing.T, target render.Target, suites []policytest.Suite) {
	ctx := t.Context()
	var cases []liveCase
	namespaces := map[string]bool{}
	for _, su := range suites {
		if su.Targets != nil && !slices.Contains(su.Targets, target) {
			continue
		}
		layouts := su.Layouts
		if layouts == nil {
			layouts = []policytest.Layout{policytest.PerTemplate}
		}
		if su.Cluster != nil {
			for _, ns := range su.Cluster.Namespaces {
				namespaces[ns] = true
			}
		}
		for _, c := range su.Cases {
			if c.Targets != nil && !slices.Contains(c.Targets, target) {
				continue
			}
			namespaces[c.Request.Namespace] = true
			c.Request = complete(c.Request)
			c.Request.Name = nameOf(c.Request)
			for _, l := range layouts {
				objs := policiesAt(t, su, target, l, c)
				cases = append(cases, liveCase{suite: su, c: c, layout: l, policies: objs, key: keyOf(t, objs)})
			}
		}
	}
	for ns := range namespaces {
		if err := createNamespace(ctx, s.c, ns); err != nil {
			t.Fatal(err)
		}
	}
	// Cases that share their policies run together: each set is put in
	// place once.
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].key < cases[j].key })
	ts := specOf(target)
	var current []*unstructured.Unstructured
	t.Cleanup(func() {
		syncPolicies(t, ts, current, nil)
		// The next test starts from no managed policy, and Kyverno from
		// no webhook rule of ours.
		// (t.Context is canceled by now: eventually would stop at once.)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(250 * time.Millisecond) {
			left, err := anyManagedObject(context.Background())
			if err == nil && left == "" {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("policies left after a minute: %s %v", left, err)
				break
			}
		}
		time.Sleep(3 * time.Second)
	})
	fixtures := impersonated(t, "system:serviceaccount:kube-system:e2e-fixtures", nil)
	var sets, agreed int
	for i, lc := range cases {
		if i == 0 || lc.key != cases[i-1].key {
			syncPolicies(t, ts, current, lc.policies)
			current = lc.policies
			sets++
		}
		name := fmt.Sprintf("%s: %s [%s %s]", lc.suite.Name, lc.c.Name, target, lc.layout)
		// Explain answers the completed request as the file says.
		want := explainOne(t, lc, target)
		if !want.Passed() {
			t.Errorf("%s: Explain of the completed request: %s", name, want.Failure)
			continue
		}
		if err := putInPlace(ctx, fixtures, lc.c.Request); err != nil {
			t.Fatalf("%s: the object the request acts on: %v", name, err)
		}
		// Kyverno reconfigures its webhooks, and the API server its
		// policies, asynchronously: the answer must settle on the file's.
		deadline := time.Now().Add(45 * time.Second)
		for {
			why, ok := liveAgrees(ctx, t, target, lc, want.Got)
			if ok {
				agreed++
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: %s at %s: the real enforcer disagrees with the file: %s",
					name, lc.c.Request.Summary(), lc.c.At.Format(time.RFC3339), why)
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	t.Logf("%s: %d cases of %d files in %d policy sets: %d answered live as the files say", target, len(cases), len(suites), sets, agreed)
	if len(cases) < 40 {
		t.Errorf("%d cases ran on %s, want the suite's (at least 40)", len(cases), target)
	}
}

// policiesAt renders the suite's plans as an operator holds them at the
// case's instant (reconcile.Offline.Preview, as policytest does).
func policiesAt(t *testing.T, su policytest.Suite, target render.Target, l policytest.Layout, c policytest.Case) []*unstructured.Unstructured {
	off := reconcile.Offline{User: "policytest", Approver: "policytest-approver"}
	if su.Cluster != nil {
		off.Cluster, off.Applications, off.Names = *su.Cluster, *su.Cluster, *su.Cluster
	}
	var objs []*unstructured.Unstructured
	for _, p := range su.Plans {
		pv, err := off.Preview(p, c.At, su.Pending)
		if err != nil {
			t.Fatalf("%s: %s: %v", su.Name, c.Name, err)
		}
		res, err := render.Render(pv.Input(target, l == policytest.Compact))
		if err != nil {
			t.Fatalf("%s: %s: %v", su.Name, c.Name, err)
		}
		objs = append(objs, res.Objects()...)
	}
	return objs
}

func keyOf(t *testing.T, objs []*unstructured.Unstructured) string {
	var parts []string
	for _, o := range objs {
		b, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	sort.Strings(parts)
	return strings.Join(parts, "\n")
}

// explainOne runs the case alone, on one target and layout, through
// policytest: its check, with every plan's decision.
func explainOne(t *testing.T, lc liveCase, target render.Target) policytest.Check {
	su := lc.suite
	su.Targets, su.Layouts = []render.Target{target}, []policytest.Layout{lc.layout}
	c := lc.c
	c.Targets = nil
	su.Cases = []policytest.Case{c}
	res, err := su.Run()
	if err != nil || len(res.Checks) != 1 {
		t.Fatalf("%s: %s: %v (%d checks)", su.Name, c.Name, err, len(res.Checks))
	}
	return res.Checks[0]
}

// syncPolicies replaces the policies in force: those of from that want
// lacks are deleted, want is applied, and the test waits until every
// policy of want is ready.
func syncPolicies(t *testing.T, ts targetSpec, from, want []*unstructured.Unstructured) {
	t.Helper()
	ctx := context.Background()
	id := func(o *unstructured.Unstructured) string {
		return o.GroupVersionKind().String() + "/" + o.GetNamespace() + "/" + o.GetName()
	}
	keep := map[string]bool{}
	for _, o := range want {
		keep[id(o)] = true
	}
	for _, o := range from {
		if !keep[id(o)] {
			if err := s.c.Delete(ctx, o.DeepCopy()); client.IgnoreNotFound(err) != nil {
				t.Error(err)
			}
		}
	}
	for _, o := range want {
		if err := s.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner("e2e-plantests"), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	eventually(t, 2*time.Minute, "the policies ready", func() (string, bool) {
		for _, o := range want {
			if o.GroupVersionKind() != ts.policyKind() {
				continue
			}
			if ok, why := ts.ready(ctx, o.GetNamespace(), o.GetName()); !ok {
				return o.GetName() + ": " + why, false
			}
		}
		return "", true
	})
}

// impersonated is a client that acts as user (with groups, and
// system:masters so that RBAC lets the request reach admission: no plan
// reads that group), collecting the API server's warnings into the
// request's context (withWarnings).
func impersonated(t *testing.T, user string, groups []string) client.Client {
	cfg := rest.CopyConfig(s.env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(slices.Clone(groups), "system:masters")}
	cfg.WarningHandlerWithContext = warningCollector{}
	c, err := client.New(cfg, client.Options{Scheme: s.c.Scheme(), Mapper: s.c.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// complete makes the request's objects acceptable to the API server: a
// workload without a selector gets one, and its pod template the label
// it selects; one without containers gets one. Both objects get the
// same, so the change stays the file's.
func complete(req render.Request) render.Request {
	fill := func(o map[string]any) map[string]any {
		if o == nil {
			return nil
		}
		u := &unstructured.Unstructured{Object: runtimeCopy(o)}
		switch u.GetKind() {
		case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet":
		default:
			return u.Object
		}
		if _, found, _ := unstructured.NestedMap(u.Object, "spec", "selector"); !found {
			label := map[string]any{"e2e.telark.io/fixture": u.GetName()}
			_ = unstructured.SetNestedMap(u.Object, map[string]any{"matchLabels": label}, "spec", "selector")
			labels, _, _ := unstructured.NestedMap(u.Object, "spec", "template", "metadata", "labels")
			if labels == nil {
				labels = map[string]any{}
			}
			labels["e2e.telark.io/fixture"] = u.GetName()
			_ = unstructured.SetNestedMap(u.Object, labels, "spec", "template", "metadata", "labels")
		}
		if _, found, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers"); !found {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "app", "image": "registry.example/fixture:1"}},
				"spec", "template", "spec", "containers")
		}
		return u.Object
	}
	req.Object, req.OldObject = fill(req.Object), fill(req.OldObject)
	return req
}

func runtimeCopy(o map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: o}).DeepCopy().Object
}

// putInPlace makes the cluster hold what the request acts on, as an
// exempt requester: for an update or a delete, the old object (for
// /scale, its parent with the Scale's replicas and the parent's labels);
// for a create, nothing of that name.
func putInPlace(ctx context.Context, c client.Client, req render.Request) error {
	var fixture *unstructured.Unstructured
	switch {
	case req.Operation == render.OpCreate:
		fixture = &unstructured.Unstructured{Object: runtimeCopy(req.Object)}
	case req.Subresource == "scale":
		replicas, _, _ := unstructured.NestedInt64(req.OldObject, "spec", "replicas")
		fixture = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": req.Kind.GroupVersion().String(), "kind": req.Kind.Kind,
			"metadata": map[string]any{"name": req.Name, "namespace": req.Namespace, "labels": toAny(req.Labels)},
			"spec": map[string]any{
				"replicas": replicas,
				"selector": map[string]any{"matchLabels": map[string]any{"e2e.telark.io/fixture": req.Name}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"e2e.telark.io/fixture": req.Name}},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.example/fixture:1"}}},
				},
			},
		}}
	default:
		fixture = &unstructured.Unstructured{Object: runtimeCopy(req.OldObject)}
	}
	fixture.SetNamespace(req.Namespace)
	if fixture.GetName() == "" {
		fixture.SetName(req.Name)
	}
	// Replace whatever holds the name (no controller finalizes objects on
	// this control plane: a delete is immediate).
	old := &unstructured.Unstructured{}
	old.SetGroupVersionKind(fixture.GroupVersionKind())
	err := c.Get(ctx, types.NamespacedName{Namespace: fixture.GetNamespace(), Name: fixture.GetName()}, old)
	switch {
	case err == nil:
		if err := c.Delete(ctx, old, client.GracePeriodSeconds(0)); client.IgnoreNotFound(err) != nil {
			return err
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			err := c.Get(ctx, types.NamespacedName{Namespace: fixture.GetNamespace(), Name: fixture.GetName()}, old)
			if apierrors.IsNotFound(err) {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s %s still there after its delete: %v", fixture.GetKind(), fixture.GetName(), err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	case !apierrors.IsNotFound(err):
		return err
	}
	if req.Operation == render.OpCreate {
		return nil
	}
	return c.Create(ctx, fixture)
}

// nameOf is the request's object name: its own, or its objects'.
func nameOf(req render.Request) string {
	for _, o := range []map[string]any{req.Object, req.OldObject} {
		if n := (&unstructured.Unstructured{Object: o}).GetName(); req.Name == "" && o != nil && n != "" {
			return n
		}
	}
	return req.Name
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// liveAgrees sends the request and compares the answer with the
// decisions Explain gave for it.
func liveAgrees(ctx context.Context, t *testing.T, target render.Target, lc liveCase, got policytest.Outcome) (string, bool) {
	req := lc.c.Request
	w := &warnings{}
	ctx = withWarnings(ctx, w)
	c := impersonated(t, req.UserInfo.Username, req.UserInfo.Groups)
	err := send(ctx, c, req)
	var messages []string
	for _, pd := range got.Plans {
		if pd.Verdict() == string(got.Decision) && pd.Message != "" {
			messages = append(messages, pd.Message)
		}
	}
	quotes := func(text string) bool {
		return slices.ContainsFunc(messages, func(m string) bool { return strings.Contains(text, m) })
	}
	ours := slices.DeleteFunc(w.all(), func(s string) bool { return !strings.Contains(s, "protection plan") })
	switch {
	case err != nil && !refused(err.Error()):
		t.Fatalf("%s: not an admission answer: %v", req.Summary(), err)
	case got.Decision == policytest.Blocked && err == nil:
		return "admitted, want a refusal quoting " + strings.Join(messages, " or "), false
	case got.Decision == policytest.Blocked && !quotes(err.Error()):
		return fmt.Sprintf("refused without the deciding plan's message %q: %v", messages, err), false
	case got.Decision == policytest.Blocked:
		return "", true
	case err != nil:
		return fmt.Sprintf("refused, want %s: %v", got.Decision, err), false
	case target != render.TargetVAP:
		return "", true
	case got.Warned && !slices.ContainsFunc(ours, quotes):
		return fmt.Sprintf("admitted with warnings %q, want one quoting %q", ours, messages), false
	case !got.Warned && len(ours) > 0:
		return fmt.Sprintf("admitted with warnings %q, want none of a plan", ours), false
	}
	return "", true
}

// send makes the request, as a server dry run.
func send(ctx context.Context, c client.Client, req render.Request) error {
	obj := &unstructured.Unstructured{}
	switch req.Operation {
	case render.OpCreate:
		obj.Object = runtimeCopy(req.Object)
		obj.SetNamespace(req.Namespace)
		return c.Create(ctx, obj, client.DryRunAll)
	case render.OpDelete:
		obj.SetGroupVersionKind(req.Kind)
		obj.SetNamespace(req.Namespace)
		obj.SetName(req.Name)
		return c.Delete(ctx, obj, client.DryRunAll)
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(req.Kind)
	if err := c.Get(ctx, types.NamespacedName{Namespace: req.Namespace, Name: req.Name}, live); err != nil {
		return err
	}
	if req.Subresource == "scale" {
		scale := &unstructured.Unstructured{Object: runtimeCopy(req.Object)}
		scale.SetNamespace(req.Namespace)
		scale.SetName(req.Name)
		return c.SubResource("scale").Update(ctx, live, client.WithSubResourceBody(scale), client.DryRunAll)
	}
	if req.Subresource != "" {
		return errors.New("subresource " + req.Subresource + " is not sent by this test")
	}
	obj.Object = runtimeCopy(req.Object)
	obj.SetNamespace(req.Namespace)
	obj.SetResourceVersion(live.GetResourceVersion())
	return c.Update(ctx, obj, client.DryRunAll)
}
