package health

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

func TestConditions_PerPhase(t *testing.T) {
	tests := []struct {
		name    string
		plan    func() *plan.ProtectionPlan
		ready   condition
		appr    condition
		healthy condition
	}{
		{
			name:    "an active plan whose policies are in place is ready and healthy",
			plan:    func() *plan.ProtectionPlan { return samplePlan(nil) },
			ready:   condition{metav1.ConditionTrue, "Active", "the window is open until 2026-07-24T04:00:00Z"},
			appr:    condition{metav1.ConditionTrue, "NotRequired", "the plan does not require approval"},
			healthy: condition{metav1.ConditionTrue, ReasonInPlace, "all 9 policies are in place and match the plan"},
		},
		{
			name: "a plan waiting for approval is not ready, not approved, and has nothing deployed",
			plan: func() *plan.ProtectionPlan {
				p := samplePlan(nil)
				p.Spec.ApprovalMode = plan.ApprovalRequired
				p.Status.Phase = plan.PhasePendingApproval
				p.Status.ApprovalRequest = &plan.ApprovalRequest{ID: "summer-freeze-r1-20260722T090000Z", Reason: "created", RequestedBy: "alice"}
				plan.SetCondition(p, metav1.Condition{Type: plan.ConditionReady, Status: metav1.ConditionFalse, Reason: "PendingApproval",
					Message: "waiting for a decision on approval request summer-freeze-r1-20260722T090000Z; nothing is deployed"}, earlier)
				return p
			},
			ready: condition{metav1.ConditionFalse, "PendingApproval",
				"waiting for a decision on approval request summer-freeze-r1-20260722T090000Z; nothing is deployed"},
			appr: condition{metav1.ConditionFalse, "Pending",
				"waiting for a decision on approval request summer-freeze-r1-20260722T090000Z (created)"},
			healthy: condition{metav1.ConditionTrue, ReasonNothingDeployed, "nothing is deployed while the plan waits for approval"},
		},
		{
			name: "a failed plan keeps the lifecycle's failure reason in Ready",
			plan: func() *plan.ProtectionPlan {
				p := samplePlan(nil)
				p.Status.Phase = plan.PhaseFailed
				plan.SetCondition(p, metav1.Condition{Type: plan.ConditionReady, Status: metav1.ConditionFalse,
					Reason: plan.ReasonPolicyAPIMissing, Message: "kyverno.io/v1 Policy is not served by the cluster"}, earlier)
				return p
			},
			ready: condition{metav1.ConditionFalse, plan.ReasonPolicyAPIMissing, "kyverno.io/v1 Policy is not served by the cluster"},
			appr:  condition{metav1.ConditionTrue, "NotRequired", "the plan does not require approval"},
			healthy: condition{metav1.ConditionTrue, ReasonNothingDeployed,
				"nothing is deployed while the plan is failed; the next tick retries it"},
		},
		{
			name: "a terminated plan with no policy left is healthy",
			plan: func() *plan.ProtectionPlan {
				return withPhase(samplePlan(nil), plan.PhaseTerminated, "Terminated", "the window ended; nothing is deployed")
			},
			ready:   condition{metav1.ConditionTrue, "Terminated", "the window ended; nothing is deployed"},
			appr:    condition{metav1.ConditionTrue, "NotRequired", "the plan does not require approval"},
			healthy: condition{metav1.ConditionTrue, ReasonNothingDeployed, "the window ended; no policy is left"},
		},
		{
			name: "a canceled plan with no policy left is healthy",
			plan: func() *plan.ProtectionPlan {
				p := samplePlan(nil)
				p.Status.Phase = plan.PhaseCanceled
				plan.SetCondition(p, metav1.Condition{Type: plan.ConditionReady, Status: metav1.ConditionFalse, Reason: "Canceled",
					Message: "canceled by alice; reactivate the plan to run it again"}, earlier)
				return p
			},
			ready:   condition{metav1.ConditionFalse, "Canceled", "canceled by alice; reactivate the plan to run it again"},
			appr:    condition{metav1.ConditionTrue, "NotRequired", "the plan does not require approval"},
			healthy: condition{metav1.ConditionTrue, ReasonNothingDeployed, "the plan is canceled; no policy is left"},
		},
		{
			name: "a plan whose lifecycle never set Ready reports it Unknown",
			plan: func() *plan.ProtectionPlan {
				p := samplePlan(nil)
				p.Status = plan.Status{}
				return p
			},
			ready:   condition{metav1.ConditionUnknown, ReasonNotObserved, "the lifecycle has not set Ready yet"},
			appr:    condition{metav1.ConditionTrue, "NotRequired", "the plan does not require approval"},
			healthy: condition{metav1.ConditionTrue, ReasonNothingDeployed, "nothing is deployed: the plan has no phase yet"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.plan()
			var live = liveSamples(t)
			if p.Status.Phase != plan.PhaseActive {
				live = nil
			}
			r := Check(Input{Plan: p, Render: mustRender(t, p), Live: live, Now: now, Repair: true})
			var got []condition
			var types []string
			for _, c := range r.Conditions {
				types = append(types, c.Type)
				got = append(got, condition{c.Status, c.Reason, c.Message})
			}
			if diff := cmp.Diff([]string{plan.ConditionReady, plan.ConditionApproved, plan.ConditionPoliciesHealthy}, types); diff != "" {
				t.Errorf("condition types (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]condition{tt.ready, tt.appr, tt.healthy}, got); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			if len(r.Actions) != 0 {
				t.Errorf("actions: %+v", r.Actions)
			}
		})
	}
}

func TestConditions_TransitionTimeMovesOnlyWhenTheStatusChanges(t *testing.T) {
	p := samplePlan(nil)
	plan.SetCondition(p, metav1.Condition{Type: plan.ConditionPoliciesHealthy, Status: metav1.ConditionTrue,
		Reason: ReasonInPlace, Message: "all 9 policies are in place and match the plan"}, earlier)
	res := mustRender(t, p)

	same := Check(Input{Plan: p, Render: res, Live: liveSamples(t), Now: now}).Condition(plan.ConditionPoliciesHealthy)
	if !same.LastTransitionTime.Time.Equal(earlier) || same.ObservedGeneration != 3 {
		t.Errorf("healthy again: transition %v, generation %d; want %v, 3", same.LastTransitionTime, same.ObservedGeneration, earlier)
	}
	changed := Check(Input{Plan: p, Render: res, Live: liveSamples(t)[1:], Now: now}).Condition(plan.ConditionPoliciesHealthy)
	if !changed.LastTransitionTime.Time.Equal(now) {
		t.Errorf("turned unhealthy: transition %v, want %v", changed.LastTransitionTime, now)
	}
	ready := Check(Input{Plan: p, Render: res, Live: liveSamples(t), Now: now}).Condition(plan.ConditionReady)
	if !ready.LastTransitionTime.Time.Equal(earlier) {
		t.Errorf("Ready transition %v, want the plan's %v", ready.LastTransitionTime, earlier)
	}
}

func TestConditions_NoPlan(t *testing.T) {
	r := Check(Input{Live: liveSamples(t), Now: now, Repair: true})
	want := []metav1.Condition{{Type: plan.ConditionPoliciesHealthy, Status: metav1.ConditionUnknown,
		Reason: ReasonInconsistentInput, Message: "no plan to check", LastTransitionTime: metav1.NewTime(now)}}
	if diff := cmp.Diff(want, r.Conditions); diff != "" || len(r.Actions) != 0 {
		t.Errorf("conditions (-want +got):\n%s\nactions %+v", diff, r.Actions)
	}
}

func TestConditions_AMessageListsACountOfOnePolicyInTheSingular(t *testing.T) {
	p := samplePlan(nil, "scaling")
	c := Check(Input{Plan: p, Render: mustRender(t, p), Live: liveSamples(t, "scaling"), Now: now}).Condition(plan.ConditionPoliciesHealthy)
	if c.Message != "the plan's only policy is in place and matches the plan" {
		t.Errorf("message %q", c.Message)
	}
}
