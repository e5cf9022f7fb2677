package overview_test

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
)

// A plan's row in a list, and what its page offers a Viewer, two hours
// into its window.
func Example() {
	res, _ := plan.Create(blackFriday(), "carl", start.Add(-24*time.Hour))
	p := plan.Tick(res.Plan, start).Plan
	meta.SetStatusCondition(&p.Status.Conditions, metav1.Condition{Type: plan.ConditionPoliciesHealthy,
		Status: metav1.ConditionFalse, Reason: health.ReasonPoliciesMissing, Message: "1 of 4 policies missing"})
	now := start.Add(2 * time.Hour)

	row := overview.RowOf(p)
	fmt.Println(row.Name, "·", overview.PhaseLabel(row.Phase), "·", row.Scope)
	fmt.Println(row.Health.Label, row.Health.Tone, "·", row.Health.Detail)
	next := overview.At(*row.NextEdge, now)
	fmt.Println("next edge", next.Abs, next.Rel)

	viewer := approval.Caller{Username: "vera", Roles: []approval.Role{approval.Viewer()}}
	fmt.Printf("%+v\n", overview.OffersFor(viewer, p, true, now))
	// Output:
	// Black Friday · active · namespaces shop, payments
	// Policies missing bad · 1 of 4 policies missing
	// next edge Mon 30 Nov 2026 00:00 UTC in 2d 22h
	// {Cancel:false Health:true Violations:true Reports:true Generate:true GenerateWhy:}
}
