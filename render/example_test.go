package render_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

func examplePlan() *plan.ProtectionPlan {
	start := metav1.NewTime(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	end := metav1.NewTime(time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC))
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "black-friday"},
		Spec: plan.Spec{
			Name:      "Black Friday",
			Scope:     plan.Scope{Namespaces: []string{"shop", "payments"}},
			Templates: []plan.TemplateRef{{Name: "image-change"}, {Name: "scaling"}},
			Window:    window.Spec{Type: window.TimeRange, StartAt: &start, EndAt: &end},
			Mode:      plan.ModeEnforce,
		},
		Status: plan.Status{Phase: plan.PhaseActive},
	}
}

func ExampleRender() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	res, err := render.Render(render.Input{Plan: examplePlan(), Now: now})
	if err != nil {
		panic(err)
	}
	for _, p := range res.Policies {
		o := p.Objects[0]
		fmt.Println(o.GetKind(), p.Namespace, p.Name, o.GetLabels()[render.LabelPlan])
	}
	// Output:
	// Policy payments black-friday-image-change black-friday
	// Policy payments black-friday-scaling black-friday
	// Policy shop black-friday-image-change black-friday
	// Policy shop black-friday-scaling black-friday
}

func ExampleExplain() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	scale := func(replicas int64) map[string]any {
		return map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": map[string]any{"replicas": replicas}}
	}
	d, err := render.Explain(render.Input{Plan: examplePlan(), Now: now}, render.Request{
		Operation:   render.OpUpdate,
		Kind:        schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Subresource: "scale",
		Namespace:   "shop",
		Name:        "checkout",
		OldObject:   scale(3),
		Object:      scale(10),
		UserInfo:    render.UserInfo{Username: "alice"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Blocked)
	fmt.Println(d.Message)
	// Output:
	// true
	// scaling is frozen by protection plan Black Friday until 2026-11-30 06:00 UTC
}

// A plan's exempt requesters are never frozen; each write of theirs that
// the plan would have refused is admitted and recorded by the namespace's
// record policy, whose message names the requester (in base64 for the
// kyverno target, whose messages are templates).
func ExampleExplain_exemptRequester() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := examplePlan()
	p.Spec.Requesters = &plan.Requesters{Exclude: plan.RequesterSet{ServiceAccounts: []string{"ci:release-pipeline"}}}
	scale := func(replicas int64) map[string]any {
		return map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "spec": map[string]any{"replicas": replicas}}
	}
	req := render.Request{
		Operation:   render.OpUpdate,
		Kind:        schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Subresource: "scale",
		Namespace:   "shop",
		Name:        "checkout",
		OldObject:   scale(3),
		Object:      scale(10),
		UserInfo:    render.UserInfo{Username: "system:serviceaccount:ci:release-pipeline"},
	}
	for _, target := range []render.Target{render.TargetKyverno, render.TargetVAP} {
		d, err := render.Explain(render.Input{Plan: p, Now: now, Target: target}, req)
		if err != nil {
			panic(err)
		}
		fmt.Println(d.Blocked, d.Exempt, d.Policy)
		fmt.Println(d.Message)
	}
	// Output:
	// false true black-friday-exempt
	// exempt requester base64:c3lzdGVtOnNlcnZpY2VhY2NvdW50OmNpOnJlbGVhc2UtcGlwZWxpbmU= admitted by protection plan Black Friday: scaling
	// false true black-friday-exempt.shop
	// exempt requester system:serviceaccount:ci:release-pipeline admitted by protection plan Black Friday: scaling
}

func ExampleCatalog() {
	for _, t := range render.Catalog() {
		info := t.Info()
		fmt.Printf("%s: %d parameter(s)\n", info.Name, len(info.Parameters))
	}
	// Output:
	// create: 1 parameter(s)
	// delete: 1 parameter(s)
	// image-change: 0 parameter(s)
	// scaling: 1 parameter(s)
	// configmap-edits: 0 parameter(s)
	// secret-edits: 0 parameter(s)
	// storage: 0 parameter(s)
	// rollout-restart: 0 parameter(s)
	// all-writes: 1 parameter(s)
}

func ExampleHashOf() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	res, _ := render.Render(render.Input{Plan: examplePlan(), Now: now})
	live := res.Policies[0].Objects[0].DeepCopy()
	live.SetResourceVersion("4711") // set by the server: not hashed
	h, _ := render.HashOf(live)
	fmt.Println(h == live.GetAnnotations()[render.AnnotationRenderHash])
	// Output:
	// true
}

func ExamplePolicyName() {
	fmt.Println(render.PolicyName("black-friday", "scaling"))
	fmt.Println(render.PolicyName("eu.black-friday-2026-checkout-and-payments-freeze", "rollout-restart"))
	// Output:
	// black-friday-scaling
	// eu-black-friday-2026-checkout-and-pa-ac50cc2884-rollout-restart
}
