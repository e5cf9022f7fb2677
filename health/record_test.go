package health

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

func TestRecord(t *testing.T) {
	later := now.Add(31 * time.Second)
	p := samplePlan(nil)
	res := mustRender(t, p)

	// A first healthy check: conditions and policies stored, no event.
	first := Record(p, Check(Input{Plan: p, Render: res, Live: liveSamples(t), Now: now}), now)
	if len(first.Events) != 0 {
		t.Errorf("a first healthy check recorded %+v", first.Events)
	}
	if got := len(first.Plan.Status.Policies); got != 9 || first.Plan.Status.Policies[0] !=
		(plan.PolicyStatus{Namespace: "shop", Name: "summer-freeze-all-writes", Template: "all-writes", State: "ok"}) {
		t.Errorf("policies: %d, first %+v", got, first.Plan.Status.Policies[0])
	}
	if p.Status.Policies != nil || meta.FindStatusCondition(p.Status.Conditions, plan.ConditionPoliciesHealthy) != nil {
		t.Error("Record changed its input")
	}

	// A policy deleted by hand: health turns, one event.
	second := Record(first.Plan, Check(Input{Plan: first.Plan, Render: res, Live: drop(liveSamples(t), "shop", "summer-freeze-scaling"), Now: later}), later)
	wantEvent := []plan.TimelineEvent{{
		Time: metav1.NewTime(later), Type: plan.EventHealthChanged, Phase: plan.PhaseActive,
		Message: "PoliciesMissing: 1 of 9 policies missing in shop: re-applied on the next tick",
	}}
	if diff := cmp.Diff(wantEvent, second.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEvent, second.Plan.Status.Timeline); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
	healthy := meta.FindStatusCondition(second.Plan.Status.Conditions, plan.ConditionPoliciesHealthy)
	if healthy.Status != metav1.ConditionFalse || !healthy.LastTransitionTime.Time.Equal(later) {
		t.Errorf("PoliciesHealthy %+v", healthy)
	}
	var missing []plan.PolicyStatus
	for _, ps := range second.Plan.Status.Policies {
		if ps.State != "ok" {
			missing = append(missing, ps)
		}
	}
	if diff := cmp.Diff([]plan.PolicyStatus{{Namespace: "shop", Name: "summer-freeze-scaling", Template: "scaling", State: "missing"}}, missing); diff != "" {
		t.Errorf("policies not ok (-want +got):\n%s", diff)
	}

	// The same drift again: no event, transition time kept.
	third := Record(second.Plan, Check(Input{Plan: second.Plan, Render: res, Live: drop(liveSamples(t), "shop", "summer-freeze-scaling"), Now: later.Add(time.Minute)}), later.Add(time.Minute))
	if len(third.Events) != 0 || len(third.Plan.Status.Timeline) != 1 {
		t.Errorf("the same health again recorded %+v", third.Events)
	}
	if c := meta.FindStatusCondition(third.Plan.Status.Conditions, plan.ConditionPoliciesHealthy); !c.LastTransitionTime.Time.Equal(later) {
		t.Errorf("transition moved to %v", c.LastTransitionTime)
	}

	// Ready is the lifecycle's: Record never touches it.
	wantReady := meta.FindStatusCondition(p.Status.Conditions, plan.ConditionReady)
	if diff := cmp.Diff(wantReady, meta.FindStatusCondition(third.Plan.Status.Conditions, plan.ConditionReady)); diff != "" {
		t.Errorf("Ready changed (-want +got):\n%s", diff)
	}
}

func TestRecord_AFirstUnhealthyCheckIsAnEvent(t *testing.T) {
	p := withPhase(samplePlan(nil), plan.PhaseCanceled, "Canceled", "canceled by alice")
	r := Record(p, Check(Input{Plan: p, Live: liveSamples(t, "scaling"), Now: now}), now)
	if len(r.Events) != 1 || r.Events[0].Message !=
		"UnexpectedPolicies: 1 policy still deployed in shop although the plan is canceled: deleted on the next tick" {
		t.Errorf("events %+v", r.Events)
	}
}

func TestRecord_KeepsEveryPolicyNotOkWhenThereAreTooManyToStore(t *testing.T) {
	var ps []plan.PolicyStatus
	for i := range MaxRecordedPolicies + 10 {
		st := "ok"
		if i%500 == 7 {
			st = "missing"
		}
		ps = append(ps, plan.PolicyStatus{Namespace: fmt.Sprintf("team-%04d", i), Name: "p", Template: "scaling", State: st})
	}
	got := recorded(ps)
	if len(got) != MaxRecordedPolicies {
		t.Fatalf("kept %d", len(got))
	}
	var missing []string
	for i, p := range got {
		if p.State != "ok" {
			missing = append(missing, p.Namespace)
		}
		if i > 0 && got[i-1].Namespace >= p.Namespace {
			t.Fatalf("not sorted at %d", i)
		}
	}
	if diff := cmp.Diff([]string{"team-0007", "team-0507", "team-1007"}, missing); diff != "" {
		t.Errorf("not ok kept (-want +got):\n%s", diff)
	}
}

func TestRecord_CountsThePoliciesItLeavesOut(t *testing.T) {
	tests := map[string]struct {
		namespaces   int
		wantRecorded int
		wantOmitted  int64
	}{
		"a plan whose policies all fit omits none":                  {namespaces: 2, wantRecorded: 18, wantOmitted: 0},
		"120 namespaces of 9 templates keep 1,000 and count 80 out": {namespaces: 120, wantRecorded: MaxRecordedPolicies, wantOmitted: 80},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var ns []string
			for i := range tt.namespaces {
				ns = append(ns, fmt.Sprintf("team-%03d", i))
			}
			p := samplePlan(ns)
			p.Status.PoliciesOmitted = 7 // from an earlier check: replaced
			r := Record(p, Check(Input{Plan: p, Render: mustRender(t, p), Now: now}), now).Plan
			if len(r.Status.Policies) != tt.wantRecorded || r.Status.PoliciesOmitted != tt.wantOmitted {
				t.Errorf("recorded %d, omitted %d; want %d and %d", len(r.Status.Policies), r.Status.PoliciesOmitted, tt.wantRecorded, tt.wantOmitted)
			}
		})
	}
}
