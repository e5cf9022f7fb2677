package health_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/telark/protectionplans/health"
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

// The operator's tick: one list of every plan's policies, one check per
// plan, then the sweep. Here the "cluster" is the render itself, with one
// policy deleted by hand and one failure action flipped to Audit.
func ExampleCheck() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := examplePlan()
	rendered, err := render.Render(render.Input{Plan: p, Now: now})
	if err != nil {
		panic(err)
	}
	var list []*unstructured.Unstructured // what the operator lists with health.ListSelector
	for _, o := range rendered.Objects()[1:] {
		list = append(list, o.DeepCopy())
	}
	_ = unstructured.SetNestedField(list[0].Object, "Audit", "spec", "validationFailureAction")

	live := health.GroupByPlan(list)[p.Name]
	res := health.Check(health.Input{Plan: p, Render: rendered, Live: live, Now: now, Repair: true})
	for _, ps := range res.Policies {
		fmt.Println(ps.Namespace, ps.Name, ps.State)
	}
	c := res.Condition(plan.ConditionPoliciesHealthy)
	fmt.Println(c.Status, c.Reason+":", c.Message)
	for _, a := range res.Actions {
		fmt.Println(a.Kind, a.Object.GetNamespace(), a.Object.GetName())
	}
	fmt.Println(len(health.Sweep(list, sets.New(p.Name))), "policies to sweep")
	// Output:
	// payments black-friday-image-change missing
	// payments black-friday-scaling action_changed
	// shop black-friday-image-change ok
	// shop black-friday-scaling ok
	// False PoliciesMissing: 1 of 4 policies missing in payments: being re-applied; 1 of 4 policies with a changed failure action in payments: being patched back to enforce
	// Apply payments black-friday-image-change
	// PatchFailureAction payments black-friday-scaling
	// 0 policies to sweep
}

// "Refresh health" computes the same states without repairing: no
// actions, and the message says the next tick repairs.
func ExampleCheck_refresh() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := examplePlan()
	rendered, _ := render.Render(render.Input{Plan: p, Now: now})
	res := health.Check(health.Input{Plan: p, Render: rendered, Live: nil, Now: now})
	fmt.Println(res.Condition(plan.ConditionPoliciesHealthy).Message)
	fmt.Println(len(res.Actions), "actions")
	// Output:
	// 4 of 4 policies missing in payments, shop: re-applied on the next tick
	// 0 actions
}
