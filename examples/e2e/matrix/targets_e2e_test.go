//go:build e2e

package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// The three render targets, one after the other, on the one control plane:
// for each, an operator as its ServiceAccount (only the generated RBAC),
// the lifecycle, the matrix, the metrics; then every plan of the run is
// deleted, the operator sweeps its policies, and it stops. One operator at
// a time: plans carry no target, so two operators with different targets
// would fight over them.
//
// The target is set as a user sets it (targetSpec.flag): kyverno-cel by no
// --target at all (auto, which picks it where Kyverno 1.19 runs), kyverno
// and vap by --target, as config/overlays/<target> pins them: a plan
// carries no target, and auto never picks them on this cluster.

func TestKyverno(t *testing.T)    { runTarget(t, render.TargetKyverno) }
func TestKyvernoCEL(t *testing.T) { runTarget(t, render.TargetKyvernoCEL) }
func TestVAP(t *testing.T)        { runTarget(t, render.TargetVAP) }

// tgt is the target under test.
var tgt targetSpec

// targetSpec is what the tests need to know of a target.
type targetSpec struct {
	target render.Target
	// prefix is put before every namespace, plan ID and application name
	// of the target's run, so that the runs never share an object: ""
	// for kyverno (its names are those of the recorded fixtures),
	// "cel-" and "vap-".
	prefix string
	// suffix is appended to the plans' display names.
	suffix string
	// flag is the operator's --target for the target: render.TargetAuto
	// (none given) where auto picks it on the harness.
	flag  render.Target
	kinds []schema.GroupVersionKind
}

func specOf(target render.Target) targetSpec {
	kinds, err := render.KindsOf(target)
	if err != nil {
		panic(err)
	}
	ts := targetSpec{target: target, flag: target, kinds: kinds}
	switch target {
	case render.TargetKyvernoCEL:
		ts.prefix, ts.suffix = "cel-", " (kyverno-cel)"
		ts.flag = render.TargetAuto
	case render.TargetVAP:
		ts.prefix, ts.suffix = "vap-", " (vap)"
	}
	return ts
}

// id is a namespace, plan ID or application name of the run.
func (ts targetSpec) id(base string) string { return ts.prefix + base }

// vap says whether the target is the API server's own policies.
func (ts targetSpec) vap() bool { return ts.target == render.TargetVAP }

// policyName names the policy (for vap: the ValidatingAdmissionPolicy and
// its binding) of template in namespace ns for plan planID.
func (ts targetSpec) policyName(planID, template, ns string) string {
	if ts.vap() {
		return render.VAPName(planID, template, ns)
	}
	return render.PolicyName(planID, template)
}

// policyKind is the kind of the object that names a policy in refusals,
// events and Status.Policies.
func (ts targetSpec) policyKind() schema.GroupVersionKind { return ts.kinds[0] }

// clusterPolicyKinds are the cluster-wide kinds a namespaceSelectors scope
// renders for the Kyverno targets (issue 23).
var clusterPolicyKinds = map[string]bool{"ClusterPolicy": true, "ValidatingPolicy": true}

// namesPolicy says whether objects of gvk are policies readiness is
// checked on: policyKind, or a cluster-wide Kyverno kind.
func (ts targetSpec) namesPolicy(gvk schema.GroupVersionKind) bool {
	return gvk == ts.policyKind() || (!ts.vap() && clusterPolicyKinds[gvk.Kind])
}

// objects lists every live object of the target carrying the plan label
// with value id (id "": any plan).
func (ts targetSpec) objects(ctx context.Context, id string) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	for _, gvk := range ts.kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		opt := client.ListOption(client.HasLabels{render.LabelPlan})
		if id != "" {
			opt = client.MatchingLabels{render.LabelPlan: id}
		}
		if err := s.c.List(ctx, list, opt); err != nil {
			return nil, err
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// ready says whether the live policy ns/name is in force: a kyverno.io/v1
// Policy with Ready=True; a NamespacedValidatingPolicy with
// status.conditionStatus.ready; a ValidatingAdmissionPolicy and its binding
// that exist (the harness has no controller manager to write a VAP's
// status; the API server loads it from its informer).
func (ts targetSpec) ready(ctx context.Context, ns, name string) (bool, string) {
	for _, gvk := range ts.kinds {
		if !ts.vap() && clusterPolicyKinds[gvk.Kind] != (ns == "") {
			continue // a Kyverno policy of the other scope
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := s.c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
			return false, gvk.Kind + ": " + err.Error()
		}
		switch gvk.Kind {
		case harness.PolicyGVK.Kind, "ClusterPolicy":
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			ok := false
			for _, c := range conds {
				if m, _ := c.(map[string]any); m["type"] == "Ready" && m["status"] == "True" {
					ok = true
				}
			}
			if !ok {
				return false, fmt.Sprintf("not Ready: %v", conds)
			}
		case harness.NamespacedValidatingPolicyGVK.Kind, "ValidatingPolicy":
			if r, _, _ := unstructured.NestedBool(u.Object, "status", "conditionStatus", "ready"); !r {
				st, _, _ := unstructured.NestedMap(u.Object, "status")
				return false, fmt.Sprintf("not ready: %v", st)
			}
		}
	}
	return true, ""
}

// applyPolicies server-side applies rendered objects as owner, without an
// operator, and waits until the target's policies among them are ready.
// When the test ends they are deleted again (even if it failed: the next
// test starts from a cluster without managed policies), and Kyverno is
// given the moment it takes to take its webhooks down.
func (ts targetSpec) applyPolicies(t *testing.T, objs []*unstructured.Unstructured, owner string) {
	t.Helper()
	ctx := t.Context()
	t.Cleanup(func() {
		for _, o := range objs {
			if err := s.c.Delete(context.Background(), o.DeepCopy()); client.IgnoreNotFound(err) != nil {
				t.Error(err)
			}
		}
		time.Sleep(3 * time.Second)
	})
	for _, o := range objs {
		if err := s.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner(owner), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	eventually(t, 2*time.Minute, "the policies ready", func() (string, bool) {
		for _, o := range objs {
			if !ts.namesPolicy(o.GroupVersionKind()) {
				continue
			}
			if ok, why := ts.ready(ctx, o.GetNamespace(), o.GetName()); !ok {
				return o.GetName() + ": " + why, false
			}
		}
		return "", true
	})
}

// runTarget runs every end-to-end test of the package with target.
func runTarget(t *testing.T, target render.Target) {
	began := time.Now()
	tgt = specOf(target)
	dir := filepath.Join(s.env.Dir, string(target))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if left, err := anyManagedObject(t.Context()); err != nil || left != "" {
		t.Fatalf("managed policies left by an earlier test: %s %v", left, err)
	}
	r, err := startOperator(t.Context(), tgt.flag, target, dir)
	if err != nil {
		t.Fatal(err)
	}
	s.run = r
	t.Logf("operator (--target=%s) with target %s leading and reconciling %s after start", tgt.flag, target, time.Since(began).Round(time.Millisecond))
	metricsBefore := scrapeOperatorMetrics(t)
	defer func() {
		withdrawAll(t)
		if err := r.stop(); err != nil {
			t.Errorf("stopping the operator: %v", err)
		}
		s.run = nil
		t.Logf("target %s: %s in all", target, time.Since(began).Round(time.Second))
	}()

	t.Run("lifecycle", testLifecycle)
	t.Run("matrix", testMatrix)
	t.Run("namespace selectors", testSelectorPlanOperator)
	t.Run("API warnings shown once", testAPIWarnings)
	t.Run("metrics", func(t *testing.T) { testMetrics(t, metricsBefore) })
	t.Run("listeners on loopback", testListenersOnLoopback)
	t.Run("command", testCommand)
	t.Run("advance warnings", testWarnings)
}

// anyManagedObject names a live object of any target carrying the plan
// label, or returns "".
func anyManagedObject(ctx context.Context) (string, error) {
	for _, target := range render.Targets() {
		objs, err := specOf(target).objects(ctx, "")
		if err != nil {
			return "", err
		}
		if len(objs) > 0 {
			return objs[0].GetKind() + " " + objs[0].GetNamespace() + "/" + objs[0].GetName(), nil
		}
	}
	return "", nil
}

// withdrawAll deletes every plan and waits until the operator swept every
// object of its target: the next target's run starts from a cluster with
// no managed policy (and the latency test's cells are not skewed by a
// webhook left registered).
func withdrawAll(t *testing.T) {
	ctx := context.Background()
	var list plan.ProtectionPlanList
	if err := s.c.List(ctx, &list); err != nil {
		t.Error(err)
		return
	}
	for i := range list.Items {
		if err := s.c.Delete(ctx, &list.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	}
	start := time.Now()
	for {
		objs, err := tgt.objects(ctx, "")
		var plans plan.ProtectionPlanList
		if err == nil {
			err = s.c.List(ctx, &plans)
		}
		if err == nil && len(objs) == 0 && len(plans.Items) == 0 {
			t.Logf("every plan deleted and its policies swept by the operator in %s", time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > time.Minute {
			t.Errorf("after a minute: %d objects of %s and %d plans left (%v)", len(objs), tgt.target, len(plans.Items), err)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// refused says whether an admission error is a policy's refusal: Kyverno's
// webhook ("denied the request") or the API server's
// ValidatingAdmissionPolicy ("denied request").
func refused(text string) bool {
	return strings.Contains(text, "denied the request") || strings.Contains(text, "denied request: ")
}
