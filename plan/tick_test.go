package plan

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

// step is one tick of a scenario and what it must produce.
type step struct {
	at       string
	phase    Phase
	nextEdge string // "" for none
	events   []string
}

func runSteps(t *testing.T, p *ProtectionPlan, steps []step) *ProtectionPlan {
	t.Helper()
	for _, s := range steps {
		before := p.DeepCopy()
		res := Tick(p, at(s.at))
		if diff := cmp.Diff(before, p); diff != "" {
			t.Fatalf("%s: Tick changed its input:\n%s", s.at, diff)
		}
		if res.Plan.Status.Phase != s.phase {
			t.Errorf("%s: phase = %s, want %s", s.at, res.Plan.Status.Phase, s.phase)
		}
		var want *time.Time
		if s.nextEdge != "" {
			want = timePtr(at(s.nextEdge))
		}
		if diff := cmp.Diff(want, res.NextEdge); diff != "" {
			t.Errorf("%s: NextEdge (-want +got):\n%s", s.at, diff)
		}
		var got []string
		for _, e := range res.Events {
			got = append(got, string(e.Type)+" "+e.Message)
		}
		if diff := cmp.Diff(s.events, got); diff != "" {
			t.Errorf("%s: events (-want +got):\n%s", s.at, diff)
		}
		p = res.Plan
	}
	return p
}

func TestTick_TimeRange(t *testing.T) {
	p := mustCreate(t, holiday(), "alice", at("Tue Dec 1 2026 10:00 UTC"))
	p = runSteps(t, p, []step{
		{at: "Thu Dec 24 2026 17:59 Europe/Berlin", phase: PhaseScheduled, nextEdge: "Thu Dec 24 2026 18:00 Europe/Berlin"},
		{at: "Thu Dec 24 2026 18:00 Europe/Berlin", phase: PhaseActive, nextEdge: "Sun Dec 27 2026 06:00 Europe/Berlin",
			events: []string{"PhaseChanged scheduled → active: the window is open until 2026-12-27T05:00:00Z"}},
		{at: "Sat Dec 26 2026 12:00 Europe/Berlin", phase: PhaseActive, nextEdge: "Sun Dec 27 2026 06:00 Europe/Berlin"},
		{at: "Sun Dec 27 2026 06:00 Europe/Berlin", phase: PhaseTerminated,
			events: []string{"PhaseChanged active → terminated: the window ended"}},
		{at: "Mon Dec 28 2026 09:00 Europe/Berlin", phase: PhaseTerminated},
	})
	if !p.Status.StartedAt.Time.Equal(at("Thu Dec 24 2026 18:00 Europe/Berlin")) {
		t.Errorf("StartedAt = %v, want the start of the window", p.Status.StartedAt)
	}
}

func TestTick_RecurringGoesBackToScheduledBetweenOccurrences(t *testing.T) {
	p := mustCreate(t, nightly(), "alice", at("Tue Dec 1 2026 10:00 UTC"))
	p = runSteps(t, p, []step{
		{at: "Tue Dec 1 2026 22:00 Europe/Berlin", phase: PhaseActive, nextEdge: "Wed Dec 2 2026 06:00 Europe/Berlin",
			events: []string{"PhaseChanged scheduled → active: the window is open until 2026-12-02T05:00:00Z"}},
		{at: "Wed Dec 2 2026 06:00 Europe/Berlin", phase: PhaseScheduled, nextEdge: "Wed Dec 2 2026 22:00 Europe/Berlin",
			events: []string{"PhaseChanged active → scheduled: the window closed; it opens again at 2026-12-02T21:00:00Z"}},
		{at: "Wed Dec 2 2026 22:00 Europe/Berlin", phase: PhaseActive, nextEdge: "Thu Dec 3 2026 06:00 Europe/Berlin",
			events: []string{"PhaseChanged scheduled → active: the window is open until 2026-12-03T05:00:00Z"}},
	})
	if !p.Status.StartedAt.Time.Equal(at("Tue Dec 1 2026 22:00 Europe/Berlin")) {
		t.Errorf("StartedAt is the first activation of the run, got %v", p.Status.StartedAt)
	}
}

func TestTick_RecurringWithValidityEndTerminates(t *testing.T) {
	in := nightly()
	in.Spec.Window.EndAt = mt("Thu Dec 3 2026 12:00 Europe/Berlin")
	p := mustCreate(t, in, "alice", at("Wed Dec 2 2026 12:00 Europe/Berlin"))
	runSteps(t, p, []step{
		{at: "Wed Dec 2 2026 22:00 Europe/Berlin", phase: PhaseActive, nextEdge: "Thu Dec 3 2026 06:00 Europe/Berlin",
			events: []string{"PhaseChanged scheduled → active: the window is open until 2026-12-03T05:00:00Z"}},
		{at: "Thu Dec 3 2026 06:00 Europe/Berlin", phase: PhaseTerminated,
			events: []string{"PhaseChanged active → terminated: the window ended"}},
	})
}

func TestTick_PermanentNeverEnds(t *testing.T) {
	in := holiday()
	in.Spec.Window = window.Spec{Type: window.Permanent}
	p := mustCreate(t, in, "alice", at("Tue Dec 1 2026 10:00 UTC"))
	runSteps(t, p, []step{
		{at: "Fri Jan 1 2100 00:00 UTC", phase: PhaseActive},
	})
}

func TestTick_TwiceAtTheSameInstantAppendsNothing(t *testing.T) {
	p := mustCreate(t, nightly(), "alice", at("Tue Dec 1 2026 10:00 UTC"))
	now := at("Tue Dec 1 2026 22:00 Europe/Berlin")
	first := Tick(p, now)
	second := Tick(first.Plan, now)
	if len(first.Events) != 1 || len(second.Events) != 0 {
		t.Fatalf("events: first %d, second %d; want 1 then 0", len(first.Events), len(second.Events))
	}
	if diff := cmp.Diff(first.Plan, second.Plan); diff != "" {
		t.Errorf("the second tick changed the plan:\n%s", diff)
	}
}

func TestTick_Approval(t *testing.T) {
	created := at("Tue Dec 1 2026 10:00 UTC")
	cases := map[string]struct {
		decide func(p *ProtectionPlan, now time.Time) *ProtectionPlan
		now    string
		phase  Phase
		reason string // Approved condition reason
	}{
		"a pending plan with an open request stays pending, even inside its window": {
			decide: func(p *ProtectionPlan, now time.Time) *ProtectionPlan { return Tick(p, now).Plan },
			now:    "Fri Dec 25 2026 12:00 Europe/Berlin", phase: PhasePendingApproval, reason: "Pending",
		},
		"an approved plan before its window becomes scheduled": {
			decide: func(p *ProtectionPlan, now time.Time) *ProtectionPlan { return approve(p, "bob", now) },
			now:    "Wed Dec 2 2026 09:00 UTC", phase: PhaseScheduled, reason: "Approved",
		},
		"an approved plan inside its window becomes active": {
			decide: func(p *ProtectionPlan, now time.Time) *ProtectionPlan { return approve(p, "bob", now) },
			now:    "Fri Dec 25 2026 12:00 Europe/Berlin", phase: PhaseActive, reason: "Approved",
		},
		"a rejected plan left pending by its decider is canceled by the next tick": {
			decide: func(p *ProtectionPlan, now time.Time) *ProtectionPlan {
				p = p.DeepCopy()
				p.Status.LastDecision = &ApprovalDecision{RequestID: p.Status.ApprovalRequest.ID,
					Decision: DecisionRejected, DecidedBy: "bob", Comment: "not during the sale"}
				p.Status.ApprovalRequest = nil
				return Tick(p, now).Plan
			},
			now: "Wed Dec 2 2026 09:00 UTC", phase: PhaseCanceled, reason: "Rejected",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := mustCreate(t, required(holiday()), "alice", created)
			p = tc.decide(p, at(tc.now))
			if p.Status.Phase != tc.phase {
				t.Errorf("phase = %s, want %s", p.Status.Phase, tc.phase)
			}
			if c := meta.FindStatusCondition(p.Status.Conditions, ConditionApproved); c.Reason != tc.reason {
				t.Errorf("Approved reason = %s, want %s", c.Reason, tc.reason)
			}
		})
	}
}

func TestTick_CanceledAndTerminatedStay(t *testing.T) {
	p := mustCreate(t, holiday(), "alice", at("Tue Dec 1 2026 10:00 UTC"))
	res, err := Cancel(p, "alice", at("Wed Dec 2 2026 10:00 UTC"))
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, res.Plan, []step{{at: "Fri Dec 25 2026 12:00 Europe/Berlin", phase: PhaseCanceled}})
}

func TestTick_FailedPlanIsRetriedQuietly(t *testing.T) {
	p := mustCreate(t, holiday(), "alice", at("Thu Dec 24 2026 18:00 Europe/Berlin"))
	t1, t2, t3 := at("Thu Dec 24 2026 18:01 Europe/Berlin"), at("Thu Dec 24 2026 18:02 Europe/Berlin"), at("Thu Dec 24 2026 18:03 Europe/Berlin")

	failed, err := Fail(p, ReasonPolicyAPIMissing, "kyverno.io/v1 Policy is not served", t1)
	if err != nil {
		t.Fatal(err)
	}
	if got := eventTypes(failed.Events); !cmp.Equal(got, []EventType{EventFailed}) {
		t.Fatalf("first failure events = %v", got)
	}
	if r := meta.FindStatusCondition(failed.Plan.Status.Conditions, ConditionReady); r.Status != metav1.ConditionFalse ||
		r.Reason != ReasonPolicyAPIMissing || r.Message != "kyverno.io/v1 Policy is not served" {
		t.Fatalf("Ready = %+v", r)
	}

	retry := Tick(failed.Plan, t2)
	if retry.Plan.Status.Phase != PhaseActive || len(retry.Events) != 0 {
		t.Fatalf("the retry moves to active without events: %s %v", retry.Plan.Status.Phase, retry.Events)
	}
	if r := meta.FindStatusCondition(retry.Plan.Status.Conditions, ConditionReady); r.Reason != ReasonRetrying ||
		r.Message != "retrying after PolicyAPIMissing: kyverno.io/v1 Policy is not served" {
		t.Fatalf("Ready = %+v", r)
	}

	again, _ := Fail(retry.Plan, ReasonPolicyAPIMissing, "kyverno.io/v1 Policy is not served", t2)
	if again.Plan.Status.Phase != PhaseFailed || len(again.Events) != 0 {
		t.Fatalf("the same failure again is failed without a new event: %s %v", again.Plan.Status.Phase, again.Events)
	}
	other, _ := Fail(Tick(again.Plan, t3).Plan, ReasonPoliciesRefused, "admission webhook denied", t3)
	if got := eventTypes(other.Events); !cmp.Equal(got, []EventType{EventFailed}) {
		t.Fatalf("a different failure is recorded, got %v", got)
	}

	retried := Tick(other.Plan, t3.Add(31*time.Second))
	sameInstant := Tick(retried.Plan, t3.Add(31*time.Second))
	recovered := Tick(sameInstant.Plan, t3.Add(62*time.Second))
	if len(sameInstant.Events) != 0 {
		t.Errorf("a tick at the retry's instant records nothing, got %v", sameInstant.Events)
	}
	if got := eventTypes(recovered.Events); !cmp.Equal(got, []EventType{EventRecovered}) {
		t.Fatalf("a later tick without a failure records the recovery, got %v", got)
	}
	if r := meta.FindStatusCondition(recovered.Plan.Status.Conditions, ConditionReady); r.Status != metav1.ConditionTrue {
		t.Errorf("Ready after recovery = %+v", r)
	}
}

func TestTick_FailedPlanWhoseWindowEndedTerminates(t *testing.T) {
	p := mustCreate(t, holiday(), "alice", at("Thu Dec 24 2026 18:00 Europe/Berlin"))
	failed, _ := Fail(p, ReasonNamespaceGone, `namespace "payments" was deleted`, at("Thu Dec 24 2026 19:00 Europe/Berlin"))
	runSteps(t, failed.Plan, []step{{at: "Sun Dec 27 2026 06:00 Europe/Berlin", phase: PhaseTerminated,
		events: []string{"PhaseChanged failed → terminated: no longer failed; the window ended"}}})
}

func TestTick_UnparsableWindowFailsThePlan(t *testing.T) {
	p := mustCreate(t, nightly(), "alice", at("Tue Dec 1 2026 10:00 UTC"))
	p.Spec.Window.TimeZone = "Mars/Olympus_Mons"
	res := Tick(p, at("Tue Dec 1 2026 22:00 Europe/Berlin"))
	if res.Plan.Status.Phase != PhaseFailed {
		t.Fatalf("phase = %s, want failed", res.Plan.Status.Phase)
	}
	if r := meta.FindStatusCondition(res.Plan.Status.Conditions, ConditionReady); r.Reason != ReasonInvalidWindow {
		t.Errorf("Ready reason = %s, want %s", r.Reason, ReasonInvalidWindow)
	}
}

func TestTick_PlanNotCreatedIsReturnedUnchanged(t *testing.T) {
	p := holiday()
	res := Tick(p, at("Tue Dec 1 2026 10:00 UTC"))
	if diff := cmp.Diff(p, res.Plan); diff != "" || res.Events != nil {
		t.Errorf("Tick changed a plan without a phase:\n%s", diff)
	}
}

func TestAppendEvent_CapsTheTimelineAndCountsWhatItDrops(t *testing.T) {
	p := holiday()
	for i := range MaxTimeline + 44 {
		AppendEvent(p, TimelineEvent{Type: EventHealthChanged, Message: string(rune('a' + i%26))})
	}
	if len(p.Status.Timeline) != MaxTimeline || p.Status.TimelineDropped != 44 {
		t.Fatalf("timeline = %d events, dropped %d; want %d and 44", len(p.Status.Timeline), p.Status.TimelineDropped, MaxTimeline)
	}
	if got := p.Status.Timeline[0].Message; got != string(rune('a'+44%26)) {
		t.Errorf("the oldest events are dropped; first kept = %q", got)
	}
}

// An operator writes status only when it changed. A failure that lasts is
// retried and failed again on every tick; its Ready condition must come out
// of each retry exactly as it went in, or every tick writes.
func TestTick_LastingFailureKeepsItsTransitionTime(t *testing.T) {
	t0 := at("Thu Dec 24 2026 18:01 Europe/Berlin")
	p := mustCreate(t, holiday(), "alice", at("Thu Dec 24 2026 18:00 Europe/Berlin"))
	failed, err := Fail(p, ReasonNamespaceGone, "namespace shop does not exist", t0)
	if err != nil {
		t.Fatal(err)
	}
	for i, now := range []time.Time{t0.Add(31 * time.Second), t0.Add(62 * time.Second), t0.Add(93 * time.Second)} {
		again, err := Fail(Tick(failed.Plan, now).Plan, ReasonNamespaceGone, "namespace shop does not exist", now)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(failed.Plan.Status, again.Plan.Status); diff != "" {
			t.Fatalf("retry %d changed the status of a lasting failure (-before +after):\n%s", i+1, diff)
		}
		failed = again
	}
}
