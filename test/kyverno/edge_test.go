package kyverno_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// TestEdgeExecutorExemption runs a plan's exemption of its edge executor
// through the real engines of the CEL targets (Kyverno's CEL engine, the
// API server's ValidatingAdmissionPolicy plugin), and Explain must agree:
// the executor's scale naming the plan under the edge field manager is
// admitted; the same account without the marker, or naming another plan,
// or under another manager, is refused as anyone else.
func TestEdgeExecutorExemption(t *testing.T) {
	at := time.Date(2026, 7, 23, 12, 0, 0, 0, time.UTC)
	zero := int32(0)
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "summer-freeze", UID: "7f7c1c57-0000-4000-8000-000000000001"},
		Spec: plan.Spec{
			Name: "Summer freeze", Scope: plan.Scope{Namespaces: []string{"shop"}},
			Templates:   []plan.TemplateRef{{Name: "scaling"}},
			Window:      window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: at.Add(-time.Hour)}, EndAt: &metav1.Time{Time: at.Add(time.Hour)}},
			Mode:        plan.ModeEnforce,
			EdgeActions: []edge.Action{{Name: edge.ScaleTo, Replicas: &zero}},
		},
		Status: plan.Status{Phase: plan.PhaseActive},
	}
	sa := plan.ServiceAccountUser("protectionplans:edge-executor")
	scale := func(who string, extra map[string][]string, manager string) render.Request {
		return render.Request{
			Operation: "UPDATE", Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Subresource: "scale", Namespace: "shop", Name: "web",
			Object:       map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "web", "namespace": "shop"}, "spec": map[string]any{"replicas": int64(0)}},
			OldObject:    map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "web", "namespace": "shop"}, "spec": map[string]any{"replicas": int64(3)}},
			UserInfo:     render.UserInfo{Username: who, Extra: extra},
			FieldManager: manager,
		}
	}
	own := map[string][]string{render.EdgeExtraKey: {string(p.UID)}}
	other := map[string][]string{render.EdgeExtraKey: {"7f7c1c57-0000-4000-8000-000000000002"}}
	cases := []struct {
		name    string
		req     render.Request
		blocked bool
	}{
		{"the executor's scale naming the plan under the edge field manager is admitted", scale(sa, own, edge.DefaultFieldManager), false},
		{"the same service account without the marker is refused", scale(sa, nil, edge.DefaultFieldManager), true},
		{"the executor naming another plan is refused", scale(sa, other, edge.DefaultFieldManager), true},
		{"the executor under another field manager is refused", scale(sa, own, "kubectl"), true},
		{"another user with the plan's marker is refused", scale("alice", own, edge.DefaultFieldManager), true},
	}
	run := engines()
	for _, target := range render.Targets() {
		for _, c := range cases {
			t.Run(string(target)+"/"+c.name, func(t *testing.T) {
				in := render.Input{Plan: p, Now: at, Target: target, EdgeExecutor: "protectionplans:edge-executor"}
				want, err := render.Explain(in, c.req)
				if err != nil {
					t.Fatal(err)
				}
				res, err := render.Render(in)
				if err != nil {
					t.Fatal(err)
				}
				got := run[target](t, res, c.req)
				if want.Blocked != c.blocked || got.blocked != c.blocked {
					t.Fatalf("blocked: engine %v (%q), Explain %v (%s); want %v", got.blocked, got.messages, want.Blocked, want.Reason, c.blocked)
				}
			})
		}
	}
}
