package report

import (
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
)

func TestUnverifiedPeriods(t *testing.T) {
	t0 := time.Date(2026, 12, 24, 18, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	ev := func(s int, msg string) TimelineEvent {
		return TimelineEvent{Time: at(s), Type: plan.EventEnforcementChanged, Message: msg}
	}
	for _, tc := range []struct {
		name   string
		events []TimelineEvent
		want   []UnhealthyPeriod
	}{
		{"a run that was verified throughout has no unverified period", []TimelineEvent{ev(0, "Enforced: the freeze holds")}, nil},
		{"a stopped Kyverno is an unverified period from its event to the recovery", []TimelineEvent{
			ev(0, "Enforced: holds"), ev(10, "EnforcerNotAnswering: the enforcer did not answer"), ev(25, "Enforced: holds"),
		}, []UnhealthyPeriod{{Start: at(10), End: at(25), Seconds: 15, Reason: "EnforcerNotAnswering", Message: "the enforcer did not answer"}}},
		{"a change of reason ends one period and begins the next", []TimelineEvent{
			ev(0, "WebhookFailsOpen: fails open"), ev(30, "ProbeAdmitted: admitted"), ev(40, "Enforced: holds"),
		}, []UnhealthyPeriod{
			{Start: at(0), End: at(30), Seconds: 30, Reason: "WebhookFailsOpen", Message: "fails open"},
			{Start: at(30), End: at(40), Seconds: 10, Reason: "ProbeAdmitted", Message: "admitted"},
		}},
		{"a period still open at the run's end ends there; other events are ignored", []TimelineEvent{
			{Time: at(1), Type: plan.EventHealthChanged, Message: "PoliciesMissing: x"}, ev(50, "GuardMissing: no guard"),
		}, []UnhealthyPeriod{{Start: at(50), End: at(100), Seconds: 50, Reason: "GuardMissing", Message: "no guard"}}},
		{"the end of the window (NotEnforcing) closes a period", []TimelineEvent{
			ev(0, "PolicyExcepted: x"), ev(60, "NotEnforcing: nothing is enforced"),
		}, []UnhealthyPeriod{{Start: at(0), End: at(60), Seconds: 60, Reason: "PolicyExcepted", Message: "x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := UnverifiedPeriods(tc.events, at(100))
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("period %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
