package approval_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

func holidayFreeze() *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "holiday"},
		Spec: plan.Spec{
			Name:      "Holiday freeze",
			Scope:     plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "all-writes"}},
			Window: window.Spec{Type: window.TimeRange,
				StartAt: &metav1.Time{Time: time.Date(2026, 12, 24, 17, 0, 0, 0, time.UTC)},
				EndAt:   &metav1.Time{Time: time.Date(2026, 12, 27, 5, 0, 0, 0, time.UTC)}},
			Mode:        plan.ModeEnforce,
			Environment: "Production",
		},
	}
}

// A Production plan waits for an approver other than its creator.
func Example() {
	carol := approval.Caller{Username: "carol", Roles: []approval.Role{approval.Owner()}}
	olivia := approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}
	carl := approval.Caller{Username: "carl", Roles: []approval.Role{approval.Contributor()}}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	p := holidayFreeze()
	fmt.Println("carl may create:", approval.Authorize(carl, approval.ActionCreate, p))
	fmt.Println("carol may create:", approval.Authorize(carol, approval.ActionCreate, p))

	md, _ := approval.DeriveMode(plan.ApprovalAutomatic, p.Spec.Environment, carol, approval.Config{})
	fmt.Println("approval mode:", md.Mode, "ignored request:", md.Ignored)
	p.Spec.ApprovalMode = md.Mode

	res, _ := plan.Create(p, carol.Username, now)
	p = res.Plan
	fmt.Println(p.Status.Phase, "notify:", approval.Deciders(p, []approval.Caller{carol, olivia, carl}))
	fmt.Println(approval.MayDecide(p, carol))

	id := p.Status.ApprovalRequest.ID
	res, _ = approval.Approve(p, id, olivia, now.Add(time.Hour))
	fmt.Println(res.Plan.Status.Phase, "until", res.NextEdge.UTC().Format(time.RFC3339))

	_, err := approval.Approve(res.Plan, id, olivia, now.Add(2*time.Hour))
	fmt.Println(plan.CodeOf(err), err)
	// Output:
	// carl may create: carl may not create: enforcing a namespace scope needs Owner on protection-plans; use audit mode, scope the plan to applications, or ask an Owner
	// carol may create: <nil>
	// approval mode: required ignored request: true
	// pending_approval notify: [olivia]
	// carol may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide
	// scheduled until 2026-12-24T17:00:00Z
	// 409 stale decision: request "holiday-r1-20261201T100000Z" was already approved by olivia at 2026-12-01T11:00:00Z
}

// A custom role withholds one action from an Owner: the deny wins.
func ExampleParseRole() {
	noCancel, err := approval.ParseRole("no-cancel", "protection-plans.cancel.deny")
	if err != nil {
		panic(err)
	}
	ops := approval.Caller{Username: "ops", Roles: []approval.Role{approval.Owner(), noCancel}}
	fmt.Println(approval.Check(ops, approval.ActionCancel, nil))
	fmt.Println(approval.Check(ops, approval.ActionReactivate, nil))

	_, err = approval.ParseRole("typo", "protection-plans.cancle.deny")
	fmt.Println(plan.CodeOf(err))
	// Output:
	// {false role "no-cancel" withholds cancel (protection-plans.cancel.deny), and a deny wins over every grant; ask whoever manages roles to lift it}
	// {true granted by role "Owner"}
	// 400
}
