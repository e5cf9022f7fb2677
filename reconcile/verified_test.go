package reconcile_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/reconcile"
)

// TestDecideVerified: Input.Verified (the previous pass's
// Output.Health.Verified) spares the comparison of the live policies
// unwritten since, and changes no decision: the output is the one without
// it, in the steady state and when a policy was changed since.
func TestDecideVerified(t *testing.T) {
	for name, tc := range map[string]struct {
		change     func(live []*unstructured.Unstructured)
		wantRepair bool
		// trusted: the change keeps the resourceVersion, which no API
		// server does: Verified trusts the policy, which proves it was
		// not compared again.
		trusted bool
	}{
		"a steady pass decides as without it, and remembers every policy": {change: func([]*unstructured.Unstructured) {}},
		"a policy written since (a new resourceVersion) is compared again and repaired": {change: func(live []*unstructured.Unstructured) {
			if err := unstructured.SetNestedField(live[0].Object, "Audit", "spec", "validationFailureAction"); err != nil {
				t.Fatal(err)
			}
			unstructured.RemoveNestedField(live[0].Object, "spec", "rules")
			live[0].SetResourceVersion("changed")
		}, wantRepair: true},
		"a policy changed under the same resourceVersion is trusted: it is not compared again": {change: func(live []*unstructured.Unstructured) {
			unstructured.RemoveNestedField(live[0].Object, "spec", "rules")
		}, trusted: true},
	} {
		t.Run(name, func(t *testing.T) {
			w := inPlace(t)
			now := start.Add(time.Hour)
			for i, u := range w.all() { // as an API server stores them
				u.SetUID(types.UID(fmt.Sprintf("uid-%d", i)))
				u.SetResourceVersion(fmt.Sprint(100 + i))
			}
			first := reconcile.Decide(w.input("xmas", now))
			if first.Health == nil || first.Health.Verified.Len() != len(w.live("xmas")) {
				t.Fatalf("the first pass's Verified remembers %v, want every live policy", first.Health)
			}
			tc.change(w.all())
			without := reconcile.Decide(w.input("xmas", now))
			in := w.input("xmas", now)
			in.Verified = first.Health.Verified
			with := reconcile.Decide(in)
			if tc.trusted {
				if len(with.Actions) != 0 || len(without.Actions) == 0 {
					t.Errorf("actions with Verified %v, without %v: want none with it (the comparison spared), a repair without", with.Actions, without.Actions)
				}
				return
			}
			opts := cmp.Options{cmpopts.IgnoreUnexported(health.Verified{}), cmpopts.EquateEmpty()}
			if diff := cmp.Diff(without, with, opts); diff != "" {
				t.Errorf("Decide with Verified differs from without (-without +with):\n%s", diff)
			}
			if got := len(with.Actions) > 0; got != tc.wantRepair {
				t.Errorf("actions %v, want a repair: %v", with.Actions, tc.wantRepair)
			}
		})
	}
}
