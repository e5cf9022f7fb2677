package kube

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/telark/protectionplans/render"
)

// TestHoldPolicies runs passes one after another over one Reader that
// holds the policies: each step changes the cluster (or not), then lists
// every plan's policies, which must be what a full list returns, with a
// full list made only when something was written since.
func TestHoldPolicies(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, nil, policy("shop", "freeze-a", "a"), policy("shop", "freeze-b", "b"), policy("shop", "not-ours", ""))
	r := New(c, Facts{}).HoldPolicies()
	steps := []struct {
		name     string
		change   func(t *testing.T)
		wantFull int // full lists made by the step
	}{
		{"the first pass lists each kind in full (Policy, ClusterPolicy): nothing is held", func(*testing.T) {}, 2},
		{"a pass after no write lists the metadata only", func(*testing.T) {}, 0},
		{"a policy written since is listed in full again, the other kind not", func(t *testing.T) {
			u := get(t, c, "shop", "freeze-a")
			u.SetAnnotations(map[string]string{"edited": "by hand"})
			if err := c.Update(ctx, u); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"then held again", func(*testing.T) {}, 0},
		{"a policy created since is listed in full again", func(t *testing.T) {
			if err := c.Create(ctx, policy("shop", "freeze-c", "c")); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"a policy deleted since is listed in full again", func(t *testing.T) {
			if err := c.Delete(ctx, policy("shop", "freeze-b", "b")); err != nil {
				t.Fatal(err)
			}
		}, 1},
		{"an object that is not a plan's changes nothing held", func(t *testing.T) {
			u := get(t, c, "shop", "not-ours")
			u.SetAnnotations(map[string]string{"edited": "by hand"})
			if err := c.Update(ctx, u); err != nil {
				t.Fatal(err)
			}
		}, 0},
	}
	for _, step := range steps {
		step.change(t)
		before := r.FullPolicyLists()
		got, err := r.Policies(ctx, render.TargetKyverno, AllPlans)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if full := r.FullPolicyLists() - before; full != step.wantFull {
			t.Errorf("%s: %d full lists, want %d", step.name, full, step.wantFull)
		}
		want, err := New(c, Facts{}).Policies(ctx, render.TargetKyverno, AllPlans)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range want {
			u.SetManagedFields(nil)
		}
		if diff := cmp.Diff(contents(want), contents(got)); diff != "" {
			t.Errorf("%s: the policies differ from a full list (-want +got):\n%s", step.name, diff)
		}
	}
}

// TestHoldPoliciesListFailure: a metadata list that fails is the pass's
// error, as a full list's was, and the next pass lists in full.
func TestHoldPoliciesListFailure(t *testing.T) {
	ctx := context.Background()
	c := newCluster(t, nil, policy("shop", "freeze-a", "a"))
	fail := false
	failing := interceptor.NewClient(c.WithWatch, interceptor.Funcs{List: func(ctx context.Context, cl client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
		if fail {
			return apierrors.NewForbidden(schema.GroupResource{Group: "kyverno.io", Resource: "policies"}, "", errors.New("RBAC"))
		}
		return cl.List(ctx, list, opts...)
	}})
	r := New(failing, Facts{}).HoldPolicies()
	if _, err := r.Policies(ctx, render.TargetKyverno, AllPlans); err != nil {
		t.Fatal(err)
	}
	fail = true
	if _, err := r.Policies(ctx, render.TargetKyverno, AllPlans); err == nil || IsNotServed(err) {
		t.Fatalf("Policies: %v, want the list's error", err)
	}
	fail = false
	before := r.FullPolicyLists()
	got, err := r.Policies(ctx, render.TargetKyverno, AllPlans)
	// The kind whose list failed is listed in full; the pass stopped
	// there, so the other kind is still held.
	if err != nil || len(got) != 1 || r.FullPolicyLists() != before+1 {
		t.Errorf("after a failed list: %d policies, %d full lists, %v; want 1 policy from a full list", len(got), r.FullPolicyLists()-before, err)
	}
}

func get(t *testing.T, c client.Reader, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kyvernoPolicy)
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

func contents(objs []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, len(objs))
	for i, u := range objs {
		out[i] = u.Object
	}
	return out
}
