package health

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/telark/protectionplans/render"
)

// ofPlan is the live scaling sample relabelled for plan id, named
// <id>-scaling.
func ofPlan(t *testing.T, id string) *unstructured.Unstructured {
	t.Helper()
	o := liveSample(t, "scaling")
	o.SetName(id + "-scaling")
	l := o.GetLabels()
	l[render.LabelPlan] = id
	o.SetLabels(l)
	return o
}

func TestSweep(t *testing.T) {
	tests := []struct {
		name   string
		live   func(t *testing.T) []*unstructured.Unstructured
		active sets.Set[string]
		want   []action
	}{
		{
			name: "the policies of active plans are kept",
			live: func(t *testing.T) []*unstructured.Unstructured {
				return append(liveSamples(t), ofPlan(t, "winter-freeze"))
			},
			active: sets.New("summer-freeze", "winter-freeze"),
		},
		{
			name: "the policies of a plan that ended or no longer exists are deleted",
			live: func(t *testing.T) []*unstructured.Unstructured {
				return append(liveSamples(t, "scaling", "delete"), ofPlan(t, "winter-freeze"))
			},
			active: sets.New("winter-freeze"),
			want: []action{
				{Delete, "Policy shop/summer-freeze-delete", "Policy shop/summer-freeze-delete belongs to plan summer-freeze, which is not active or no longer exists"},
				{Delete, "Policy shop/summer-freeze-scaling", "Policy shop/summer-freeze-scaling belongs to plan summer-freeze, which is not active or no longer exists"},
			},
		},
		{
			name: "a policy without our managed-by label is never deleted by the sweep",
			live: func(t *testing.T) []*unstructured.Unstructured {
				o := ofPlan(t, "gone")
				l := o.GetLabels()
				delete(l, render.LabelManagedBy)
				o.SetLabels(l)
				return []*unstructured.Unstructured{o}
			},
		},
		{
			name: "a policy managed by someone else is never deleted by the sweep",
			live: func(t *testing.T) []*unstructured.Unstructured {
				o := ofPlan(t, "gone")
				l := o.GetLabels()
				l[render.LabelManagedBy] = "Helm"
				o.SetLabels(l)
				return []*unstructured.Unstructured{o}
			},
		},
		{
			name: "a managed policy without a plan label is never deleted by the sweep",
			live: func(t *testing.T) []*unstructured.Unstructured {
				o := ofPlan(t, "gone")
				l := o.GetLabels()
				delete(l, render.LabelPlan)
				o.SetLabels(l)
				return []*unstructured.Unstructured{o}
			},
		},
		{
			name: "an object of a kind no target renders is never deleted by the sweep",
			live: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "notes", "namespace": "shop",
						"labels": map[string]any{render.LabelPlan: "gone", render.LabelManagedBy: render.ManagedBy}}}}}
			},
		},
		{
			name: "a policy listed twice is deleted once",
			live: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{ofPlan(t, "gone"), ofPlan(t, "gone"), nil}
			},
			want: []action{{Delete, "Policy shop/gone-scaling", "Policy shop/gone-scaling belongs to plan gone, which is not active or no longer exists"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []action
			for _, a := range Sweep(tt.live(t), tt.active) {
				got = append(got, action{a.Kind, describe(a.Object), a.Reason})
				if a.Preconditions() == nil || a.Preconditions().UID == nil || a.Preconditions().ResourceVersion == nil {
					t.Errorf("%s has no uid and resourceVersion preconditions", describe(a.Object))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Sweep (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGroupByPlan_SplitsOneListByPlanAndDropsUnlabelledObjects(t *testing.T) {
	unlabelled := liveSample(t, "delete")
	unlabelled.SetLabels(nil)
	list := []*unstructured.Unstructured{ofPlan(t, "b"), liveSample(t, "scaling"), ofPlan(t, "a"), unlabelled, nil, liveSample(t, "create")}
	got := map[string][]string{}
	for id, objs := range GroupByPlan(list) {
		for _, o := range objs {
			got[id] = append(got[id], o.GetName())
		}
	}
	want := map[string][]string{
		"a":             {"a-scaling"},
		"b":             {"b-scaling"},
		"summer-freeze": {"summer-freeze-scaling", "summer-freeze-create"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GroupByPlan (-want +got):\n%s", diff)
	}
}
