package health

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

func TestVerified(t *testing.T) {
	p := samplePlan(nil)
	res := mustRender(t, p)
	first := Check(Input{Plan: p, Render: res, Live: liveSamples(t), Now: now})
	if first.Verified.Len() != 9 {
		t.Fatalf("a healthy check remembers %d objects, want 9", first.Verified.Len())
	}

	tests := []struct {
		name   string
		edit   func(live []*unstructured.Unstructured)
		states map[string]State
	}{
		{
			name:   "an object verified at the same resourceVersion is ok without being compared again",
			edit:   func(live []*unstructured.Unstructured) { live[0].SetLabels(nil) }, // impossible without a new resourceVersion
			states: map[string]State{},
		},
		{
			name: "an object written since (a new resourceVersion) is compared again",
			edit: func(live []*unstructured.Unstructured) {
				set(t, named(t, live, "summer-freeze-scaling"), "Audit", "spec", "validationFailureAction")
				named(t, live, "summer-freeze-scaling").SetResourceVersion("351")
			},
			states: map[string]State{"shop/summer-freeze-scaling": StateActionChanged},
		},
		{
			name: "an object recreated under the same name (a new uid) is compared again",
			edit: func(live []*unstructured.Unstructured) {
				o := named(t, live, "summer-freeze-scaling")
				set(t, o, "Audit", "spec", "validationFailureAction")
				o.SetUID("11111111-2222-4333-8444-555555555555")
			},
			states: map[string]State{"shop/summer-freeze-scaling": StateActionChanged},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			live := liveSamples(t)
			tt.edit(live)
			got := verdictOf(Check(Input{Plan: p, Render: res, Live: live, Now: now, Verified: first.Verified})).States
			if diff := cmp.Diff(tt.states, got); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("a new render (the plan changed) compares every object again", func(t *testing.T) {
		edited := samplePlan(nil)
		edited.Spec.Mode = plan.ModeAudit
		r := Check(Input{Plan: edited, Render: mustRender(t, edited), Live: liveSamples(t), Now: now, Verified: first.Verified})
		if r.Summary.Outdated != 9 {
			t.Errorf("%+v", r.Summary)
		}
	})

	t.Run("a check that changes nothing remembers the same objects", func(t *testing.T) {
		r := Check(Input{Plan: p, Render: res, Live: liveSamples(t), Now: now, Verified: first.Verified})
		if r.Verified.Len() != 9 || !r.Summary.healthy() {
			t.Errorf("remembers %d; %+v", r.Verified.Len(), r.Summary)
		}
	})

	t.Run("only ok objects are remembered", func(t *testing.T) {
		live := liveSamples(t)
		set(t, named(t, live, "summer-freeze-scaling"), "Audit", "spec", "validationFailureAction")
		if n := Check(Input{Plan: p, Render: res, Live: live, Now: now}).Verified.Len(); n != 8 {
			t.Errorf("remembers %d, want 8", n)
		}
	})
}
