package plan

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

// condState is the part of a condition a test asserts.
type condState struct {
	Status metav1.ConditionStatus
	Reason string
}

func conds(p *ProtectionPlan) map[string]condState {
	out := map[string]condState{}
	for _, c := range p.Status.Conditions {
		out[c.Type] = condState{c.Status, c.Reason}
	}
	return out
}

func timePtr(t time.Time) *time.Time { return &t }

func TestCreate(t *testing.T) {
	cases := map[string]struct {
		plan      func() *ProtectionPlan
		now       string
		phase     Phase
		nextEdge  *time.Time
		started   bool
		events    []EventType
		conds     map[string]condState
		proposers []string
	}{
		"an automatic plan created before its window is scheduled, its timer at the start": {
			plan: holiday, now: "Tue Dec 1 2026 10:00 UTC",
			phase: PhaseScheduled, nextEdge: timePtr(at("Thu Dec 24 2026 18:00 Europe/Berlin")),
			events: []EventType{EventCreated},
			conds: map[string]condState{
				ConditionReady:           {metav1.ConditionTrue, "Scheduled"},
				ConditionApproved:        {metav1.ConditionTrue, "NotRequired"},
				ConditionPoliciesHealthy: {metav1.ConditionUnknown, "NotChecked"},
				ConditionReconciling:     {metav1.ConditionFalse, "Scheduled"},
				ConditionStalled:         {metav1.ConditionFalse, "Scheduled"},
			},
		},
		"an automatic plan created inside its window is active and has started": {
			plan: holiday, now: "Thu Dec 24 2026 20:00 Europe/Berlin",
			phase: PhaseActive, nextEdge: timePtr(at("Sun Dec 27 2026 06:00 Europe/Berlin")), started: true,
			events: []EventType{EventCreated},
			conds: map[string]condState{
				ConditionReady:           {metav1.ConditionTrue, "Active"},
				ConditionApproved:        {metav1.ConditionTrue, "NotRequired"},
				ConditionPoliciesHealthy: {metav1.ConditionUnknown, "NotChecked"},
				ConditionReconciling:     {metav1.ConditionFalse, "Active"},
				ConditionStalled:         {metav1.ConditionFalse, "Active"},
			},
		},
		"a plan created after its window is terminated (Validate refuses it first)": {
			plan: holiday, now: "Mon Dec 28 2026 09:00 Europe/Berlin",
			phase:  PhaseTerminated,
			events: []EventType{EventCreated},
			conds: map[string]condState{
				ConditionReady:           {metav1.ConditionTrue, "Terminated"},
				ConditionApproved:        {metav1.ConditionTrue, "NotRequired"},
				ConditionPoliciesHealthy: {metav1.ConditionUnknown, "NotChecked"},
				ConditionReconciling:     {metav1.ConditionFalse, "Terminated"},
				ConditionStalled:         {metav1.ConditionFalse, "Terminated"},
			},
		},
		"a plan that requires approval waits for it, with its creator as proposer": {
			plan: func() *ProtectionPlan { return required(holiday()) }, now: "Thu Dec 24 2026 20:00 Europe/Berlin",
			phase:  PhasePendingApproval,
			events: []EventType{EventCreated, EventApprovalRequired},
			conds: map[string]condState{
				ConditionReady:           {metav1.ConditionFalse, "PendingApproval"},
				ConditionApproved:        {metav1.ConditionFalse, "Pending"},
				ConditionPoliciesHealthy: {metav1.ConditionUnknown, "NotChecked"},
				ConditionReconciling:     {metav1.ConditionFalse, "PendingApproval"},
				ConditionStalled:         {metav1.ConditionFalse, "PendingApproval"},
			},
			proposers: []string{"alice"},
		},
		"a recurring plan created between two occurrences is scheduled for the next one": {
			plan: nightly, now: "Tue Dec 1 2026 10:00 UTC",
			phase: PhaseScheduled, nextEdge: timePtr(at("Tue Dec 1 2026 22:00 Europe/Berlin")),
			events: []EventType{EventCreated},
			conds: map[string]condState{
				ConditionReady:           {metav1.ConditionTrue, "Scheduled"},
				ConditionApproved:        {metav1.ConditionTrue, "NotRequired"},
				ConditionPoliciesHealthy: {metav1.ConditionUnknown, "NotChecked"},
				ConditionReconciling:     {metav1.ConditionFalse, "Scheduled"},
				ConditionStalled:         {metav1.ConditionFalse, "Scheduled"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in := tc.plan()
			before := in.DeepCopy()
			res, err := Create(in, "alice", at(tc.now))
			if err != nil {
				t.Fatal(err)
			}
			p := res.Plan
			if p.Status.Phase != tc.phase {
				t.Errorf("phase = %s, want %s", p.Status.Phase, tc.phase)
			}
			if diff := cmp.Diff(tc.nextEdge, res.NextEdge); diff != "" {
				t.Errorf("NextEdge (-want +got):\n%s", diff)
			}
			if got := p.Status.StartedAt != nil; got != tc.started {
				t.Errorf("started = %v, want %v", got, tc.started)
			}
			if diff := cmp.Diff(tc.events, eventTypes(res.Events)); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.conds, conds(p)); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.proposers, p.Status.Proposers); diff != "" {
				t.Errorf("proposers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, in); diff != "" {
				t.Errorf("Create changed its input:\n%s", diff)
			}
		})
	}
}

func TestCreate_RequiredOpensRequestCreated(t *testing.T) {
	res, err := Create(required(holiday()), "alice", at("Tue Dec 1 2026 11:00 Europe/Berlin"))
	if err != nil {
		t.Fatal(err)
	}
	want := &ApprovalRequest{ID: "holiday-r1-20261201T100000Z", Reason: "created", RequestedBy: "alice",
		RequestedAt: metav1.NewTime(at("Tue Dec 1 2026 11:00 Europe/Berlin"))}
	if diff := cmp.Diff(want, res.Plan.Status.ApprovalRequest); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
	if got := res.Events[1].Message; got != "approval request holiday-r1-20261201T100000Z opened (created)" {
		t.Errorf("message = %q", got)
	}
	if res.NextEdge != nil {
		t.Errorf("a pending plan has no timer, got %v", res.NextEdge)
	}
}

func TestCreate_DefaultsAndDescribesTheWindow(t *testing.T) {
	p := holiday()
	p.Spec.Window = window.Spec{Type: window.Permanent}
	p.Spec.ApprovalMode = ""
	now := at("Tue Dec 1 2026 10:00 UTC").Add(1500 * time.Millisecond)
	res, err := Create(p, "alice", now)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Plan
	if want := at("Tue Dec 1 2026 10:00 UTC").Add(time.Second); !got.Spec.Window.StartAt.Time.Equal(want) {
		t.Errorf("a permanent window without a start starts at creation, to the second: got %v, want %v", got.Spec.Window.StartAt, want)
	}
	if got.Spec.ApprovalMode != ApprovalAutomatic {
		t.Errorf("an empty approval mode outside Production becomes automatic, got %q", got.Spec.ApprovalMode)
	}
	if got.Status.Phase != PhaseActive || res.NextEdge != nil {
		t.Errorf("a permanent plan is active without a next edge: %s %v", got.Status.Phase, res.NextEdge)
	}
	if want := "permanent from 2026-12-01 10:00:01 UTC"; got.Status.Window != want {
		t.Errorf("status.window = %q, want %q", got.Status.Window, want)
	}
	if want := "created: permanent from 2026-12-01 10:00:01 UTC"; res.Events[0].Message != want {
		t.Errorf("event message = %q, want %q", res.Events[0].Message, want)
	}
	if r := meta.FindStatusCondition(got.Status.Conditions, ConditionReady); !r.LastTransitionTime.Time.Equal(now) {
		t.Errorf("conditions take the time given, got %v", r.LastTransitionTime)
	}
}
