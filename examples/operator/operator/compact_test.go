package operator

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// The operator with --compact: one policy per namespace for all of a
// plan's templates, kept in place and repaired like any other; switching
// the layout replaces one set with the other.

// compactCase is a target's compact objects for the plan "freeze"
// (scaling and image-change) in the namespaces shop and cart.
type compactCase struct {
	target  render.Target
	objects []string
	// policy is the object holding the validations (edited by hand).
	policy          string
	policyNamespace string
}

func compactCases() []compactCase {
	return []compactCase{
		{target: render.TargetKyverno,
			objects:         []string{"Policy cart/freeze-compact", "Policy shop/freeze-compact"},
			policy:          "freeze-compact",
			policyNamespace: "shop"},
		{target: render.TargetKyvernoCEL,
			objects:         []string{"NamespacedValidatingPolicy cart/freeze-compact", "NamespacedValidatingPolicy shop/freeze-compact"},
			policy:          "freeze-compact",
			policyNamespace: "shop"},
		{target: render.TargetVAP,
			objects: []string{
				"ValidatingAdmissionPolicy /freeze-compact.cart", "ValidatingAdmissionPolicy /freeze-compact.shop",
				"ValidatingAdmissionPolicyBinding /freeze-compact.cart", "ValidatingAdmissionPolicyBinding /freeze-compact.shop",
			},
			policy: "freeze-compact.shop"},
	}
}

// fixture is an operator with the case's target and --compact, and the
// plan "freeze" in shop and cart.
func (tc compactCase) fixture(t *testing.T) *fixture {
	return newFixture(t, []client.Object{namespace("shop"), namespace("cart"),
		kubectlPlan("freeze", plan.ModeEnforce, []string{"shop", "cart"}, "scaling", "image-change")},
		withTarget(tc.target), withCompact())
}

func TestCompact_PutInPlaceRepairedAndSteady(t *testing.T) {
	for _, tc := range compactCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := tc.fixture(t)
			f.pass()
			if got := f.objects(); !slices.Equal(got, tc.objects) {
				t.Fatalf("objects = %q, want %q", got, tc.objects)
			}
			p := f.plan("freeze")
			if c := condition(p, plan.ConditionPoliciesHealthy); c.Status != metav1.ConditionTrue || c.Reason != health.ReasonInPlace {
				t.Errorf("PoliciesHealthy = %s %s %q", c.Status, c.Reason, c.Message)
			}
			if len(p.Status.Policies) != 2 || p.Status.Policies[0].Template != render.CompactTemplate {
				t.Errorf("status.policies = %+v, want 2 compact policies", p.Status.Policies)
			}
			for i := range 3 {
				if writes := f.tick(2 * time.Second); len(writes) > 0 {
					t.Fatalf("pass %d in the steady state wrote %q", i+2, writes)
				}
			}
			// A validation loosened by hand under the intact hash.
			gvk, field, key, loose := gvkNVPol, "validations", "expression", any("true")
			switch tc.target {
			case render.TargetVAP:
				gvk = gvkVAP
			case render.TargetKyverno:
				gvk, field, key, loose = gvkPolicy, "rules", "validate", map[string]any{"message": "nothing", "deny": map[string]any{}}
			}
			live := f.get(gvk, tc.policyNamespace, tc.policy)
			vals, _, _ := unstructured.NestedSlice(live.Object, "spec", field)
			vals[0].(map[string]any)[key] = loose
			if err := unstructured.SetNestedSlice(live.Object, vals, "spec", field); err != nil {
				t.Fatal(err)
			}
			if err := f.c.Update(context.Background(), live); err != nil {
				t.Fatal(err)
			}
			writes := f.tick(2 * time.Second)
			if len(writes) == 0 || writes[0] != "apply "+gvk.Kind+" "+tc.policyNamespace+"/"+tc.policy {
				t.Errorf("repair writes = %q", writes)
			}
			vals, _, _ = unstructured.NestedSlice(f.get(gvk, tc.policyNamespace, tc.policy).Object, "spec", field)
			if reflect.DeepEqual(vals[0].(map[string]any)[key], loose) {
				t.Error("the loosened rule was not restored")
			}
		})
	}
}

// TestCompact_SwitchingTheLayoutReplacesThePolicies: an operator restarted
// without --compact applies the per-template policies and deletes the
// compact ones (they carry the plan's label but are not in the render),
// and back.
func TestCompact_SwitchingTheLayoutReplacesThePolicies(t *testing.T) {
	for _, tc := range compactCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := tc.fixture(t)
			f.pass()
			compact := f.objects()
			f.r.cfg.Compact = false
			f.tick(2 * time.Second)
			perTemplate := f.objects()
			if len(perTemplate) != 2*len(compact) || slices.ContainsFunc(perTemplate, func(o string) bool { return strings.Contains(o, "-compact") }) {
				t.Errorf("after switching to per template: %q", perTemplate)
			}
			// The pass after the switch writes the status (what was
			// repaired); the one after it nothing.
			if writes := f.tick(2 * time.Second); !slices.Equal(writes, []string{"update/status ProtectionPlan /freeze"}) {
				t.Errorf("the pass after the switch wrote %q, want only the status", writes)
			}
			if writes := f.tick(2 * time.Second); len(writes) > 0 {
				t.Errorf("the second pass after the switch wrote %q", writes)
			}
			f.r.cfg.Compact = true
			f.tick(2 * time.Second)
			if got := f.objects(); !slices.Equal(got, compact) {
				t.Errorf("after switching back: %q, want %q", got, compact)
			}
		})
	}
}
