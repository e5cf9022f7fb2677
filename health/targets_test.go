package health

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestCheck_EveryTarget runs the same drifts against every target render
// supports (targets not supported yet are skipped): health goes through
// render's per-target functions only, whatever a target's objects look
// like (the vap target renders a policy as two cluster-scoped objects).
func TestCheck_EveryTarget(t *testing.T) {
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) {
			if !render.Supported(target) {
				t.Skipf("render does not support %s yet", target)
			}
			p := samplePlan([]string{"payments", "shop"}, "scaling", "delete")
			res, err := render.Render(render.Input{Plan: p, Now: now, Target: target})
			if err != nil {
				t.Fatal(err)
			}
			check := func(live []*unstructured.Unstructured) Result {
				return Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
			}

			t.Run("steady state has zero actions", func(t *testing.T) {
				r := check(servedAll(res))
				if len(r.Actions) != 0 || r.Summary != (Summary{Rendered: 4, OK: 4}) {
					t.Errorf("%+v, actions %+v", r.Summary, r.Actions)
				}
			})

			t.Run("a failure action flipped to audit is patched back by a merge patch", func(t *testing.T) {
				live := servedAll(res)
				var flipped *unstructured.Unstructured
				for _, o := range live {
					if _, err := render.FailureAction(o); err == nil {
						flipped = o
						break
					}
				}
				if err := render.SetFailureAction(flipped, plan.ModeAudit); err != nil {
					t.Fatal(err)
				}
				r := check(live)
				if r.Summary.ActionChanged != 1 || len(r.Actions) != 1 || r.Actions[0].Kind != PatchFailureAction {
					t.Fatalf("%+v, actions %+v", r.Summary, r.Actions)
				}
				patched := &unstructured.Unstructured{Object: mergePatch(flipped.Object, r.Actions[0].Object.Object)}
				if h, err := render.HashOf(patched); err != nil || h != patched.GetAnnotations()[render.AnnotationRenderHash] {
					t.Errorf("the patched object hashes to %s (%v), not its annotation", h, err)
				}
			})

			t.Run("a deleted object is re-applied, alone", func(t *testing.T) {
				live := servedAll(res)
				gone := live[0]
				r := check(live[1:])
				if r.Summary.Missing != 1 || len(r.Actions) != 1 || r.Actions[0].Kind != Apply || keyOf(r.Actions[0].Object) != keyOf(gone) {
					t.Errorf("%+v, actions %+v", r.Summary, r.Actions)
				}
			})

			t.Run("a canceled plan's objects are all deleted", func(t *testing.T) {
				canceled := withPhase(samplePlan([]string{"payments", "shop"}, "scaling", "delete"), plan.PhaseCanceled, "Canceled", "canceled by alice")
				live := servedAll(res)
				r := Check(Input{Plan: canceled, Live: live, Now: now, Repair: true})
				if len(r.Actions) != len(live) || r.Summary.Unexpected != len(live) {
					t.Errorf("%+v, %d actions for %d objects", r.Summary, len(r.Actions), len(live))
				}
			})
		})
	}
}
