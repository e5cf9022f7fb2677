package health

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// MaxRecordedPolicies is how many policies Record stores in
// Status.Policies. A plan of 2,000 namespaces and 9 templates has 18,000
// policies, about 1.7 MB of JSON: more than the API server accepts in one
// object. Beyond the cap Record keeps every policy that is not ok first,
// then ok ones, sorted by namespace and name, and counts the others in
// Status.PoliciesOmitted; PoliciesHealthy's message still counts them all.
const MaxRecordedPolicies = 1000

// Record stores a check on a copy of p, the plan it checked: the Approved
// and PoliciesHealthy conditions (with plan.SetCondition, so a transition
// time moves only when a status changes), Status.Policies (at most
// MaxRecordedPolicies of them), and a
// HealthChanged timeline event when PoliciesHealthy changes status or
// reason (a first PoliciesHealthy that is not True is recorded too): the
// "health over the run" of a report. Ready is the lifecycle's and is left
// alone. "Refresh health" (R-H3) does not call it.
//
// The returned plan.Result holds the copy, the event appended (if any) and
// the plan's next edge, unchanged.
func Record(p *plan.ProtectionPlan, r Result, now time.Time) plan.Result {
	out := p.DeepCopy()
	var before *metav1.Condition
	if c := meta.FindStatusCondition(out.Status.Conditions, plan.ConditionPoliciesHealthy); c != nil {
		before = c.DeepCopy()
	}
	for _, typ := range []string{plan.ConditionApproved, plan.ConditionPoliciesHealthy} {
		if c := r.Condition(typ); c != nil {
			plan.SetCondition(out, *c, now)
		}
	}
	all := r.PolicyStatuses()
	out.Status.Policies = recorded(all)
	out.Status.PoliciesOmitted = int64(len(all) - len(out.Status.Policies))
	return resultOf(out, before, plan.ConditionPoliciesHealthy, plan.EventHealthChanged, now)
}

// resultOf is the Result of recording a check on out: a timeline event of
// type ev when condition typ changed from before (healthChanged), and the
// plan's next edge.
func resultOf(out *plan.ProtectionPlan, before *metav1.Condition, typ string, ev plan.EventType, now time.Time) plan.Result {
	res := plan.Result{Plan: out}
	after := meta.FindStatusCondition(out.Status.Conditions, typ)
	if healthChanged(before, after) {
		e := plan.TimelineEvent{
			Time: metav1.NewTime(now), Type: ev, Phase: out.Status.Phase,
			Message: after.Reason + ": " + after.Message,
		}
		plan.AppendEvent(out, e)
		res.Events = []plan.TimelineEvent{e}
	}
	if e := out.Status.NextEdge; e != nil {
		t := e.Time
		res.NextEdge = &t
	}
	return res
}

func healthChanged(before, after *metav1.Condition) bool {
	switch {
	case after == nil:
		return false
	case before == nil:
		return after.Status != metav1.ConditionTrue
	}
	return before.Status != after.Status || before.Reason != after.Reason
}

// recorded caps ps at MaxRecordedPolicies, keeping those not ok first, in
// their order.
func recorded(ps []plan.PolicyStatus) []plan.PolicyStatus {
	if len(ps) <= MaxRecordedPolicies {
		return ps
	}
	keep := make([]bool, len(ps))
	n := 0
	for _, okPass := range []bool{false, true} {
		for i, p := range ps {
			if n < MaxRecordedPolicies && (p.State == string(StateOK)) == okPass {
				keep[i] = true
				n++
			}
		}
	}
	out := make([]plan.PolicyStatus, 0, n)
	for i, p := range ps {
		if keep[i] {
			out = append(out, p)
		}
	}
	return out
}
