package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
)

// edgePlan is the summer freeze of shop (scaling, image changes) with a
// scale-to action, stored (it has a UID).
func edgeFreeze(uid string, actions ...edge.Action) *plan.ProtectionPlan {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"), tpl("image-change"))
	p.UID = types.UID("7f7c1c57-0000-4000-8000-" + uid)
	p.Spec.EdgeActions = actions
	return p
}

func scaleTo(n int32) edge.Action { return edge.Action{Name: edge.ScaleTo, Replicas: &n} }

const executor = "protectionplans:edge-executor"

// edgeScale is a scale of shop/web to 0 sent as who, with extra and manager.
func edgeScale(who string, extra map[string][]string, manager string) Request {
	return Request{
		Operation: "UPDATE", Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Subresource: SubresourceScale, Namespace: "shop", Name: "web",
		Object:       map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "web", "namespace": "shop"}, "spec": map[string]any{"replicas": int64(0)}},
		OldObject:    map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "web", "namespace": "shop"}, "spec": map[string]any{"replicas": int64(3)}},
		UserInfo:     UserInfo{Username: who, Extra: extra},
		FieldManager: manager,
	}
}

func TestEdgeExemption(t *testing.T) {
	sa := plan.ServiceAccountUser(executor)
	own := map[string][]string{EdgeExtraKey: {"7f7c1c57-0000-4000-8000-000000000001"}}
	tests := []struct {
		name     string
		plan     *plan.ProtectionPlan
		executor string
		req      Request
		blocked  bool
	}{{
		name: "the executor's scale naming the plan under the edge field manager is admitted by the plan's own freeze",
		plan: edgeFreeze("000000000001", scaleTo(0)), executor: executor,
		req: edgeScale(sa, own, edge.DefaultFieldManager),
	}, {
		name: "the same service account without the extra is refused: the account alone is not the marker",
		plan: edgeFreeze("000000000001", scaleTo(0)), executor: executor,
		req: edgeScale(sa, nil, edge.DefaultFieldManager), blocked: true,
	}, {
		name: "the executor naming another plan is refused by this one",
		plan: edgeFreeze("000000000002", scaleTo(0)), executor: executor,
		req: edgeScale(sa, own, edge.DefaultFieldManager), blocked: true,
	}, {
		name: "the executor under another field manager is refused",
		plan: edgeFreeze("000000000001", scaleTo(0)), executor: executor,
		req: edgeScale(sa, own, "kubectl-client-side-apply"), blocked: true,
	}, {
		name: "another user with the plan's extra is refused",
		plan: edgeFreeze("000000000001", scaleTo(0)), executor: executor,
		req: edgeScale("alice", own, edge.DefaultFieldManager), blocked: true,
	}, {
		name: "the executor's scale is refused by a plan whose actions do not scale",
		plan: edgeFreeze("000000000001", edge.Action{Name: edge.SuspendCronJobs}), executor: executor,
		req: edgeScale(sa, own, edge.DefaultFieldManager), blocked: true,
	}, {
		name: "the executor's write of the Deployment itself is refused when the action goes through /scale",
		plan: edgeFreeze("000000000001", scaleTo(0)), executor: executor,
		req: func() Request {
			r := edgeScale(sa, own, edge.DefaultFieldManager)
			r.Subresource = ""
			r.Object = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}, "spec": map[string]any{"replicas": int64(0)}}
			r.OldObject = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}, "spec": map[string]any{"replicas": int64(3)}}
			return r
		}(),
		blocked: true,
	}, {
		name: "without a configured executor nothing is exempt",
		plan: edgeFreeze("000000000001", scaleTo(0)),
		req:  edgeScale(sa, own, edge.DefaultFieldManager), blocked: true,
	}}
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		for _, tt := range tests {
			t.Run(string(target)+"/"+tt.name, func(t *testing.T) {
				in := Input{Plan: tt.plan, Now: now, Target: target, EdgeExecutor: tt.executor}
				want, err := Explain(in, tt.req)
				if err != nil {
					t.Fatal(err)
				}
				if want.Blocked != tt.blocked {
					t.Fatalf("Explain: blocked=%v, want %v (%s)", want.Blocked, tt.blocked, want.Reason)
				}
				got := evaluateCEL(t, target, mustRender(t, in), tt.req.normalized())
				if got.blocked != tt.blocked {
					t.Fatalf("cel-go: blocked=%v, want %v (%q)", got.blocked, tt.blocked, got.messages)
				}
			})
		}
	}
}

func TestEdgeExecutorRefused(t *testing.T) {
	for _, tt := range []struct{ name, executor string }{
		{"an executor that is not namespace:name is refused naming the field", "edge-executor"},
		{"an executor with a CEL quote in it is refused, never rendered", `ns:a" || true || "`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(Input{Plan: edgeFreeze("000000000001", scaleTo(0)), Now: now, Target: TargetVAP, EdgeExecutor: tt.executor})
			if err == nil || !strings.Contains(err.Error(), "edgeExecutor") {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
