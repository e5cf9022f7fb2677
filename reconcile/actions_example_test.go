package reconcile_test

import (
	"fmt"
	"time"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// A server's approve pipeline: the approver names the request and the
// generation they read; the library decides, the server writes the
// status with the resourceVersion it read.
func ExampleApplyVerdict() {
	p := freeze("xmas", "shop")
	p.Spec.ApprovalMode = plan.ApprovalRequired
	res, _ := plan.Create(p, "carl", start.Add(-2*time.Hour))
	stored := res.Plan
	stored.Generation = 1

	olivia := approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}
	_, err := reconcile.ApplyVerdict(reconcile.VerdictInput{Plan: stored, Generation: 2, Caller: olivia, Now: start.Add(-time.Hour),
		Verdict: approval.Verdict{RequestID: stored.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}})
	fmt.Println(plan.CodeOf(err), err)

	res, err = reconcile.ApplyVerdict(reconcile.VerdictInput{Plan: stored, Generation: 1, Caller: olivia, Now: start.Add(-time.Hour),
		Verdict: approval.Verdict{RequestID: stored.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}})
	fmt.Println(err, res.Plan.Status.Phase, res.Plan.Status.LastDecision.DecidedBy)
	// Output:
	// 409 plan "xmas" was edited since you read it (generation 2, now 1); re-read it before deciding
	// <nil> scheduled olivia
}
