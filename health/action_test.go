package health

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// The live sample of the scaling template, as the API server returned it.
const (
	scalingUID = "df1909a5-d38f-4156-aa4c-c22740476e53"
	scalingRV  = "350"
)

func onlyAction(t *testing.T, r Result) Action {
	t.Helper()
	if len(r.Actions) != 1 {
		t.Fatalf("want one action, got %d: %+v", len(r.Actions), r.Actions)
	}
	return r.Actions[0]
}

func TestAction_ApplyCarriesACopyOfTheRenderedObject(t *testing.T) {
	p := samplePlan(nil)
	res := mustRender(t, p)
	r := Check(Input{Plan: p, Render: res, Live: drop(liveSamples(t), "shop", "summer-freeze-scaling"), Now: now, Repair: true})
	a := onlyAction(t, r)
	want := named(t, res.Objects(), "summer-freeze-scaling")
	if diff := cmp.Diff(want.Object, a.Object.Object); diff != "" {
		t.Errorf("Apply object (-rendered +action):\n%s", diff)
	}
	a.Object.SetName("changed")
	if want.GetName() != "summer-freeze-scaling" {
		t.Error("changing the action's object changed the render")
	}
	if a.Preconditions() != nil {
		t.Errorf("Apply has preconditions %+v", a.Preconditions())
	}
}

func TestAction_PatchFailureActionCarriesOnlyTheFailureActionAndTheLiveIdentity(t *testing.T) {
	p, live := samplePlan(nil), liveSamples(t)
	set(t, named(t, live, "summer-freeze-scaling"), "Audit", "spec", "validationFailureAction")
	r := Check(Input{Plan: p, Render: mustRender(t, p), Live: live, Now: now, Repair: true})
	a := onlyAction(t, r)
	want := map[string]any{
		"apiVersion": "kyverno.io/v1",
		"kind":       "Policy",
		"metadata": map[string]any{
			"name": "summer-freeze-scaling", "namespace": "shop",
			"uid": scalingUID, "resourceVersion": scalingRV,
		},
		"spec": map[string]any{"validationFailureAction": "Enforce"},
	}
	if diff := cmp.Diff(want, a.Object.Object); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
	pt, body, err := a.MergePatch()
	if err != nil || pt != types.MergePatchType {
		t.Fatalf("MergePatch: %s, %v", pt, err)
	}
	const wantBody = `{"apiVersion":"kyverno.io/v1","kind":"Policy","metadata":{"name":"summer-freeze-scaling","namespace":"shop","resourceVersion":"350","uid":"` +
		scalingUID + `"},"spec":{"validationFailureAction":"Enforce"}}`
	if string(body) != wantBody {
		t.Errorf("MergePatch body\n got %s\nwant %s", body, wantBody)
	}
	wantPre := &metav1.Preconditions{UID: ptr.To(types.UID(scalingUID)), ResourceVersion: ptr.To(scalingRV)}
	if diff := cmp.Diff(wantPre, a.Preconditions()); diff != "" {
		t.Errorf("Preconditions (-want +got):\n%s", diff)
	}
}

func TestAction_TheFailureActionPatchGivesBackTheRenderHash(t *testing.T) {
	p, live := samplePlan(nil), liveSamples(t)
	edited := named(t, live, "summer-freeze-scaling")
	set(t, edited, "Audit", "spec", "validationFailureAction")
	a := onlyAction(t, Check(Input{Plan: p, Render: mustRender(t, p), Live: live, Now: now, Repair: true}))
	patched := &unstructured.Unstructured{Object: mergePatch(edited.Object, a.Object.Object)}
	h, err := render.HashOf(patched)
	if err != nil || h != patched.GetAnnotations()[render.AnnotationRenderHash] {
		t.Errorf("HashOf(patched) = %s (%v), annotation %s", h, err, patched.GetAnnotations()[render.AnnotationRenderHash])
	}
}

func TestAction_DeleteNamesTheLiveObjectWithItsUIDAndResourceVersion(t *testing.T) {
	p := withPhase(samplePlan(nil), plan.PhaseCanceled, "Canceled", "canceled by alice")
	r := Check(Input{Plan: p, Live: liveSamples(t, "scaling"), Now: now, Repair: true})
	a := onlyAction(t, r)
	want := map[string]any{
		"apiVersion": "kyverno.io/v1",
		"kind":       "Policy",
		"metadata": map[string]any{
			"name": "summer-freeze-scaling", "namespace": "shop",
			"uid": scalingUID, "resourceVersion": scalingRV,
		},
	}
	if diff := cmp.Diff(want, a.Object.Object); diff != "" {
		t.Errorf("delete (-want +got):\n%s", diff)
	}
	wantPre := &metav1.Preconditions{UID: ptr.To(types.UID(scalingUID)), ResourceVersion: ptr.To(scalingRV)}
	if diff := cmp.Diff(wantPre, a.Preconditions()); diff != "" {
		t.Errorf("Preconditions (-want +got):\n%s", diff)
	}
}

// TestAction_FollowingTheActionsConverges carries out the actions of a
// drifted cluster on a fake one (apply: the rendered object, served;
// merge patch; delete) and checks again: no action is left.
func TestAction_FollowingTheActionsConverges(t *testing.T) {
	p := samplePlan([]string{"edge", "payments", "shop"})
	res := mustRender(t, p)
	live := drop(servedAll(res), "shop", "summer-freeze-scaling")
	set(t, named(t, live, "summer-freeze-image-change", "edge"), "Audit", "spec", "validationFailureAction")
	editRule(t, named(t, live, "summer-freeze-delete", "payments"))
	stray := named(t, live, "summer-freeze-scaling", "edge").DeepCopy()
	stray.SetNamespace("old")
	live = append(live, stray)

	first := Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
	if len(first.Actions) != 4 {
		t.Fatalf("want 4 actions, got %+v", first.Actions)
	}
	cluster := map[objKey]*unstructured.Unstructured{}
	for _, o := range live {
		cluster[keyOf(o)] = o
	}
	for i, a := range first.Actions {
		k := keyOf(a.Object)
		switch a.Kind {
		case Apply:
			cluster[k] = served(a.Object, 9000+i)
		case PatchFailureAction:
			if cluster[k].GetResourceVersion() != a.Object.GetResourceVersion() {
				t.Fatalf("patch precondition fails for %v", k)
			}
			cluster[k] = &unstructured.Unstructured{Object: mergePatch(cluster[k].Object, a.Object.Object)}
		case Delete:
			if cluster[k].GetUID() != a.Object.GetUID() {
				t.Fatalf("delete precondition fails for %v", k)
			}
			delete(cluster, k)
		}
	}
	var after []*unstructured.Unstructured
	for _, o := range cluster {
		after = append(after, o)
	}
	second := Check(Input{Plan: p, Render: res, Live: after, Now: now, Repair: true})
	if len(second.Actions) != 0 || !second.Summary.healthy() {
		t.Errorf("after repair: %+v, actions %+v", second.Summary, second.Actions)
	}
}

// mergePatch applies a JSON merge patch (RFC 7386) to a copy of doc, as the
// API server does for types.MergePatchType.
func mergePatch(doc, patch map[string]any) map[string]any {
	b, _ := json.Marshal(doc)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	var apply func(dst, p map[string]any)
	apply = func(dst, p map[string]any) {
		for k, v := range p {
			switch pv := v.(type) {
			case nil:
				delete(dst, k)
			case map[string]any:
				d, ok := dst[k].(map[string]any)
				if !ok {
					d = map[string]any{}
					dst[k] = d
				}
				apply(d, pv)
			default:
				dst[k] = v
			}
		}
	}
	apply(out, patch)
	return out
}

func TestSortActions_AppliesThenPatchesThenDeletes(t *testing.T) {
	obj := func(ns, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kyverno.io/v1", "kind": "Policy",
			"metadata": map[string]any{"name": name, "namespace": ns}}}
	}
	as := []Action{
		{Kind: Delete, Object: obj("a", "x")},
		{Kind: Apply, Object: obj("b", "y")},
		{Kind: PatchFailureAction, Object: obj("a", "z")},
		{Kind: Apply, Object: obj("a", "y")},
		{Kind: Apply, Object: obj("a", "x")},
	}
	sortActions(as)
	var got []string
	for _, a := range as {
		got = append(got, string(a.Kind)+" "+describe(a.Object))
	}
	want := []string{"Apply Policy a/x", "Apply Policy a/y", "Apply Policy b/y", "PatchFailureAction Policy a/z", "Delete Policy a/x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
