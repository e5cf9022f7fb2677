package report

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

func TestBuild_NightlyRun(t *testing.T) {
	r := mustBuild(t, nightlyInput(t))
	if r.RunStart != at("Mon Jul 20 2026 20:00:00") || r.RunEnd != at("Wed Jul 22 2026 04:00:00") {
		t.Errorf("run %s → %s, want Mon Jul 20 20:00 → Wed Jul 22 04:00", r.RunStart, r.RunEnd)
	}
	wantPhases := []PhaseBand{
		{plan.PhasePendingApproval, at("Mon Jul 20 2026 12:05:00"), at("Mon Jul 20 2026 13:30:00")},
		{plan.PhaseScheduled, at("Mon Jul 20 2026 13:30:00"), at("Mon Jul 20 2026 20:00:00")},
		{plan.PhaseActive, at("Mon Jul 20 2026 20:00:00"), at("Tue Jul 21 2026 04:00:00")},
		{plan.PhaseScheduled, at("Tue Jul 21 2026 04:00:00"), at("Tue Jul 21 2026 20:00:00")},
		{plan.PhaseActive, at("Tue Jul 21 2026 20:00:00"), at("Wed Jul 22 2026 04:00:00")},
	}
	if diff := gocmp.Diff(wantPhases, r.Timeline.Phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	wantSummary := Summary{ActiveSeconds: 16 * 3600, ActivePeriods: 2, UnhealthySeconds: 40, UnhealthyPeriods: 1,
		Violations: 12, Blocked: 9, Audited: 3, Decisions: 20, Resources: 6}
	if diff := gocmp.Diff(wantSummary, r.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	wantUnhealthy := []UnhealthyPeriod{{Start: at("Tue Jul 21 2026 23:12:20"), End: at("Tue Jul 21 2026 23:13:00"), Seconds: 40,
		Reason: "PoliciesMissing", Message: "policy shop-batch/nightly-image-freeze-image-change is missing (deleted outside the plan); re-applied"}}
	if diff := gocmp.Diff(wantUnhealthy, r.Health.Unhealthy); diff != "" {
		t.Errorf("unhealthy (-want +got):\n%s", diff)
	}
	if r.ID != "nightly-image-freeze-end-20260722T040002Z" || r.Scope.Namespaces[1] != "shop-batch" || r.Plan.Window.Description == "" {
		t.Errorf("id %q, scope %v, window %q", r.ID, r.Scope, r.Plan.Window.Description)
	}
}

func TestBuild_CanceledRunEndsAtTheCancel(t *testing.T) {
	r := mustBuild(t, canceledInput(t))
	if r.RunEnd != at("Tue Jul 21 2026 23:30:00") || r.Trigger != TriggerCancel {
		t.Errorf("run ends %s (%s), want at the cancel, Tue Jul 21 23:30", r.RunEnd, r.Trigger)
	}
	last := r.Timeline.Events[len(r.Timeline.Events)-1]
	if last.Type != plan.EventCanceled || last.Actor != "carol@example.com" {
		t.Errorf("last event %+v, want carol's cancel", last)
	}
	if r.Summary.ActiveSeconds != 8*3600+3*3600+30*60 {
		t.Errorf("active %ds, want 11h30m", r.Summary.ActiveSeconds)
	}
}

func TestBuild_Refusals(t *testing.T) {
	started := activeNamespacesPlan()
	pending := activeNamespacesPlan()
	pending.Status = plan.Status{Phase: plan.PhasePendingApproval}
	now := at("Thu Jul 23 2026 12:00:00")
	tests := []struct {
		name string
		in   Input
		code int
		msg  string
	}{
		{"no plan", Input{Trigger: TriggerManual, Now: now}, http.StatusBadRequest, `report: plan "": a report needs a plan`},
		{"an unknown trigger", Input{Plan: started, Trigger: "weekly", Now: now}, http.StatusBadRequest,
			`report: trigger "weekly": must be "manual", "cancel" or "end"`},
		{"no time", Input{Plan: started, Trigger: TriggerManual}, http.StatusBadRequest,
			`report: now "0001-01-01T00:00:00Z": the time the report is made is required`},
		{"an on-demand report of a plan waiting for approval", Input{Plan: pending, Trigger: TriggerManual, Now: now}, http.StatusConflict,
			"no manual report of plan summer-freeze (pending_approval): the plan is waiting for approval and has not started; a report is available once it has been active"},
		{"a final report of a plan that never started", Input{Plan: pending, Trigger: TriggerCancel, Now: now}, http.StatusConflict,
			"no cancel report of plan summer-freeze (pending_approval): the plan is waiting for approval and has not started; a report is available once it has been active"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(tt.in)
			if plan.CodeOf(err) != tt.code || err.Error() != tt.msg {
				t.Errorf("Build: %v (%d), want %q (%d)", err, plan.CodeOf(err), tt.msg, tt.code)
			}
		})
	}
}

func TestBuild_DoesNotChangeItsInput(t *testing.T) {
	in := nightlyInput(t)
	planBefore := in.Plan.DeepCopy()
	violationsBefore := append([]violations.Violation(nil), in.Violations...)
	healthBefore := append([]HealthSample(nil), in.Health...)
	policiesBefore := append([]PolicyInfo(nil), in.Policies...)
	mustBuild(t, in)
	if diff := gocmp.Diff(planBefore, in.Plan); diff != "" {
		t.Errorf("the plan changed (-before +after):\n%s", diff)
	}
	if !gocmp.Equal(violationsBefore, in.Violations) || !gocmp.Equal(healthBefore, in.Health) || !gocmp.Equal(policiesBefore, in.Policies) {
		t.Error("the inputs changed")
	}
}

func TestBuild_KeepsTheNewestViolations(t *testing.T) {
	in := bigInput(t, MaxViolations+3)
	in.ViolationsTruncated, in.ViolationsDropped = true, 40
	r := mustBuild(t, in)
	if len(r.Violations.Items) != MaxViolations || !r.Violations.Truncated || r.Violations.Dropped != 43 {
		t.Errorf("%d items, truncated %v, dropped %d; want %d, true, 43", len(r.Violations.Items), r.Violations.Truncated, r.Violations.Dropped, MaxViolations)
	}
	sorted := append([]violations.Violation(nil), in.Violations...)
	slices.SortStableFunc(sorted, func(a, b violations.Violation) int {
		return cmp.Or(a.Timestamp.Compare(b.Timestamp), strings.Compare(a.Key, b.Key))
	})
	want := sorted[3:]
	for i := range want {
		if want[i].Key != r.Violations.Items[i].Key {
			t.Fatalf("item %d is %s, want %s: the newest %d, oldest first", i, r.Violations.Items[i].Key, want[i].Key, MaxViolations)
		}
	}
}

func TestBuild_TheRunBeginsAtTheLastReactivation(t *testing.T) {
	p := activeNamespacesPlan()
	old := at("Mon Jun 1 2026 08:00:00")
	p.Status.Timeline = nil
	for _, ev := range []plan.TimelineEvent{
		{Time: metav1.NewTime(old), Type: plan.EventCreated, Phase: plan.PhaseActive, Message: "first run"},
		{Time: metav1.NewTime(old.Add(time.Hour)), Type: plan.EventCanceled, Phase: plan.PhaseCanceled, Message: "canceled"},
		{Time: metav1.NewTime(at("Thu Jul 23 2026 07:00:00")), Type: plan.EventReactivated, Phase: plan.PhaseScheduled, Message: "reactivated"},
		{Time: metav1.NewTime(at("Thu Jul 23 2026 08:00:00")), Type: plan.EventPhaseChanged, Phase: plan.PhaseActive, Message: "open"},
	} {
		plan.AppendEvent(p, ev)
	}
	r := mustBuild(t, Input{Plan: p, Trigger: TriggerManual, Now: at("Thu Jul 23 2026 10:00:00")})
	if len(r.Timeline.Events) != 2 || r.Timeline.Events[0].Type != plan.EventReactivated {
		t.Errorf("events %+v, want the reactivation and what followed", r.Timeline.Events)
	}
	want := []PhaseBand{
		{plan.PhaseScheduled, at("Thu Jul 23 2026 07:00:00"), at("Thu Jul 23 2026 08:00:00")},
		{plan.PhaseActive, at("Thu Jul 23 2026 08:00:00"), at("Thu Jul 23 2026 10:00:00")},
	}
	if diff := gocmp.Diff(want, r.Timeline.Phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
}

func TestUnhealthyPeriods(t *testing.T) {
	day := func(s string) time.Time { return at("Mon Jul 20 2026 " + s) }
	active := []PhaseBand{
		{plan.PhaseActive, day("10:00:00"), day("12:00:00")},
		{plan.PhaseScheduled, day("12:00:00"), day("14:00:00")},
		{plan.PhaseActive, day("14:00:00"), day("16:00:00")},
	}
	ok := func(s string) HealthSample { return HealthSample{At: day(s), Healthy: true} }
	bad := func(s, reason string) HealthSample { return HealthSample{At: day(s), Reason: reason} }
	period := func(from, to, reason string) UnhealthyPeriod {
		return UnhealthyPeriod{Start: day(from), End: day(to), Seconds: int64(day(to).Sub(day(from)) / time.Second), Reason: reason}
	}
	tests := []struct {
		name    string
		samples []HealthSample
		want    []UnhealthyPeriod
	}{
		{"a healthy run has no unhealthy time", []HealthSample{ok("10:00:00"), ok("11:00:00")}, []UnhealthyPeriod{}},
		{"an unhealthy sample holds until the next sample",
			[]HealthSample{ok("10:00:00"), bad("10:30:00", "Missing"), ok("10:30:40")}, []UnhealthyPeriod{period("10:30:00", "10:30:40", "Missing")}},
		{"consecutive unhealthy samples merge and keep the first reason",
			[]HealthSample{bad("10:30:00", "Missing"), bad("10:30:31", "Outdated"), ok("10:31:02")}, []UnhealthyPeriod{period("10:30:00", "10:31:02", "Missing")}},
		{"an unhealthy sample holds at most until its active period ends",
			[]HealthSample{bad("11:59:00", "Missing"), ok("14:00:05")}, []UnhealthyPeriod{period("11:59:00", "12:00:00", "Missing")}},
		{"an unhealthy sample does not carry over into the next active period",
			[]HealthSample{bad("11:59:00", "Missing"), ok("15:00:00")}, []UnhealthyPeriod{period("11:59:00", "12:00:00", "Missing")}},
		{"a sample taken while scheduled counts for nothing",
			[]HealthSample{bad("13:00:00", "Missing"), ok("14:00:05")}, []UnhealthyPeriod{}},
		{"the last unhealthy sample holds until the run ends",
			[]HealthSample{ok("14:00:00"), bad("15:30:00", "Unexpected")}, []UnhealthyPeriod{period("15:30:00", "15:45:00", "Unexpected")}},
		{"time before the first sample of a period is not counted",
			[]HealthSample{ok("14:10:00")}, []UnhealthyPeriod{}},
		{"two incidents in two periods are two periods",
			[]HealthSample{bad("10:00:00", "A"), ok("10:00:31"), bad("14:00:00", "B"), ok("14:01:00")},
			[]UnhealthyPeriod{period("10:00:00", "10:00:31", "A"), period("14:00:00", "14:01:00", "B")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := UnhealthyPeriods(tt.samples, active, day("15:45:00"))
			if diff := gocmp.Diff(tt.want, got); diff != "" {
				t.Errorf("UnhealthyPeriods (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorsHaveCodes(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code int
	}{
		{&NotStartedError{}, http.StatusConflict},
		{&InputError{}, http.StatusBadRequest},
		{&BusyError{}, http.StatusTooManyRequests},
	} {
		var c plan.Coder
		if !errors.As(tt.err, &c) || c.HTTPCode() != tt.code {
			t.Errorf("%T: code %d, want %d", tt.err, plan.CodeOf(tt.err), tt.code)
		}
	}
}
