//go:build e2e

package matrix

import (
	"fmt"
	"slices"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// testHealthRepairs (a subtest of testLifecycle) breaks a healthy plan's
// policies four ways and times each repair, with the target under test:
// a policy deleted by hand (for vap, the ValidatingAdmissionPolicy), its
// failure action flipped to audit (for vap, the binding's
// validationActions), a rule edited under an intact hash annotation, a
// stray object carrying the plan's label.
func testHealthRepairs(t *testing.T) {
	t.Parallel()
	ns, id := tgt.id("lc-health"), tgt.id("lc-health")
	lifecycleNamespace(t, ns)
	p := matrixPlan(id, "Lifecycle health", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling", "image-change")
	if err := s.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	healthy := func() (string, bool) {
		p := getPlan(t, id)
		c := findCondition(p, plan.ConditionPoliciesHealthy)
		return fmt.Sprint(c), c != nil && c.Status == metav1.ConditionTrue && len(planPolicies(t, id)) == 2
	}
	waitFor(t, time.Minute, "the plan healthy", healthy)
	ctx := t.Context()
	objNS := ns // the namespace of the target's objects
	if tgt.vap() {
		objNS = ""
	}
	scalingName, imageName := tgt.policyName(id, "scaling", ns), tgt.policyName(id, "image-change", ns)
	getKind := func(gvk schema.GroupVersionKind, name string) (*unstructured.Unstructured, error) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, s.c.Get(ctx, types.NamespacedName{Namespace: objNS, Name: name}, u)
	}
	get := func(name string) (*unstructured.Unstructured, error) { return getKind(tgt.policyKind(), name) }
	mustGet := func(gvk schema.GroupVersionKind, name string) *unstructured.Unstructured {
		u, err := getKind(gvk, name)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	// holder is the kind of object carrying the failure action: the
	// binding under vap.
	holder := tgt.policyKind()
	if tgt.vap() {
		holder = tgt.kinds[1]
	}
	intact := func(gvk schema.GroupVersionKind, name string) (string, bool) {
		u, err := getKind(gvk, name)
		if err != nil {
			return err.Error(), false
		}
		h, err := render.HashOf(u)
		ok := err == nil && h == u.GetAnnotations()[render.AnnotationRenderHash]
		if gvk == holder {
			mode, _ := render.FailureAction(u)
			ok = ok && mode == plan.ModeEnforce
		}
		return fmt.Sprint(h, err), ok
	}
	// The hand edits, as a person would write them for each target.
	auditPatch := map[render.Target]string{
		render.TargetKyverno:    `{"spec":{"validationFailureAction":"Audit"}}`,
		render.TargetKyvernoCEL: `{"spec":{"validationActions":["Audit"]}}`,
		render.TargetVAP:        `{"spec":{"validationActions":["Audit","Warn"]}}`,
	}[tgt.target]
	messagePath := "/spec/validations/0/message"
	if tgt.target == render.TargetKyverno {
		messagePath = "/spec/rules/0/validate/message"
	}
	limit := tick + 2*time.Second // one tick, plus the API round trips
	type repair struct {
		what string
		took time.Duration
	}
	var repairs []repair
	check := func(what string, took time.Duration) {
		repairs = append(repairs, repair{what, took})
		if took > limit {
			t.Errorf("%s: repaired after %s, more than one tick (%s)", what, took, tick)
		}
		waitFor(t, 3*tick, "the plan healthy again after: "+what, healthy)
	}

	// 1. A policy deleted by hand.
	old := mustGet(tgt.policyKind(), scalingName)
	if err := s.c.Delete(ctx, old); err != nil {
		t.Fatal(err)
	}
	check("policy deleted by hand", waitFor(t, 3*tick, "the deleted policy re-applied", func() (string, bool) {
		u, err := get(scalingName)
		return fmt.Sprint(err), err == nil && u.GetUID() != old.GetUID()
	}))

	// 2. Its failure action edited (enforce -> audit).
	edited := mustGet(holder, imageName)
	if err := s.c.Patch(ctx, edited, client.RawPatch(types.MergePatchType, []byte(auditPatch))); err != nil {
		t.Fatal(err)
	}
	if mode, _ := render.FailureAction(edited); mode != plan.ModeAudit {
		t.Fatalf("the hand edit %s of %s %s reads as %s", auditPatch, holder.Kind, imageName, mode)
	}
	check("failure action edited", waitFor(t, 3*tick, "the failure action patched back", func() (string, bool) { return intact(holder, imageName) }))

	// 3. A rule edited under an intact hash annotation.
	if err := s.c.Patch(ctx, mustGet(tgt.policyKind(), scalingName), client.RawPatch(types.JSONPatchType,
		[]byte(`[{"op":"replace","path":"`+messagePath+`","value":"edited by hand"}]`))); err != nil {
		t.Fatal(err)
	}
	check("rule edited under an intact hash", waitFor(t, 3*tick, "the rule re-applied", func() (string, bool) { return intact(tgt.policyKind(), scalingName) }))

	// 4. A stray policy carrying the plan's label.
	stray := mustGet(tgt.policyKind(), scalingName).DeepCopy()
	stray.SetName(id + "-stray")
	stray.SetResourceVersion("")
	stray.SetUID("")
	stray.SetManagedFields(nil)
	stray.SetLabels(map[string]string{render.LabelPlan: id})
	delete(stray.Object, "status")
	if err := s.c.Create(ctx, stray); err != nil {
		t.Fatal(err)
	}
	check("stray policy with the plan label", waitFor(t, 3*tick, "the stray policy deleted", func() (string, bool) {
		_, err := get(stray.GetName())
		return fmt.Sprint(err), apierrors.IsNotFound(err)
	}))

	for _, r := range repairs {
		t.Logf("health (%s): %s: repaired in %s (tick %s)", tgt.target, r.what, r.took.Round(time.Millisecond), tick)
	}
	// The operator said so on the plan: Kubernetes events and the timeline.
	waitFor(t, 10*time.Second, "the repair events on the plan", func() (string, bool) {
		reasons := planEventReasons(t, id)
		for _, want := range []string{reconcile.EventPoliciesApplied, reconcile.EventFailureActionRestored, reconcile.EventPoliciesDeleted, string(plan.EventHealthChanged)} {
			if !slices.Contains(reasons, want) {
				return fmt.Sprintf("no %s event in %v", want, reasons), false
			}
		}
		return "", true
	})
	n := 0
	for _, e := range getPlan(t, id).Status.Timeline {
		if e.Type == plan.EventHealthChanged {
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d HealthChanged timeline events, want the drifts and the recoveries", n)
	}
}

// planEventReasons lists the reasons of the events.k8s.io events regarding
// a plan.
func planEventReasons(t *testing.T, id string) []string {
	t.Helper()
	var list eventsv1.EventList
	if err := s.c.List(t.Context(), &list, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == plan.Kind && e.Regarding.Name == id {
			out = append(out, e.Reason)
		}
	}
	return out
}
