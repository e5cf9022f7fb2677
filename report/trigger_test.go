package report

import (
	"errors"
	"net/http"
	"testing"

	"github.com/telark/protectionplans/plan"
)

// phased is a plan in phase ph; started says whether its run started.
func phased(ph plan.Phase, started bool) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{}
	p.Name = "summer-freeze"
	p.Status.Phase = ph
	if started {
		p.Status.StartedAt = mt(at("Thu Jul 23 2026 08:00:00"))
	}
	return p
}

func TestFinalTrigger(t *testing.T) {
	tests := []struct {
		name          string
		before, after *plan.ProtectionPlan
		want          Trigger
		wantOK        bool
	}{
		{"an active plan whose window ends makes an end report",
			phased(plan.PhaseActive, true), phased(plan.PhaseTerminated, true), TriggerEnd, true},
		{"an active plan that is canceled makes a cancel report",
			phased(plan.PhaseActive, true), phased(plan.PhaseCanceled, true), TriggerCancel, true},
		{"a recurring plan canceled between two occurrences had a run: cancel report",
			phased(plan.PhaseScheduled, true), phased(plan.PhaseCanceled, true), TriggerCancel, true},
		{"a failed plan that had run and is canceled makes a cancel report",
			phased(plan.PhaseFailed, true), phased(plan.PhaseCanceled, true), TriggerCancel, true},
		{"a plan rejected while pending never started: none",
			phased(plan.PhasePendingApproval, false), phased(plan.PhaseCanceled, false), "", false},
		{"a plan canceled while scheduled, before its first start: none",
			phased(plan.PhaseScheduled, false), phased(plan.PhaseCanceled, false), "", false},
		{"a plan whose window ended before it ever started: none",
			phased(plan.PhaseScheduled, false), phased(plan.PhaseTerminated, false), "", false},
		{"a tick that leaves a terminated plan terminated makes no second report",
			phased(plan.PhaseTerminated, true), phased(plan.PhaseTerminated, true), "", false},
		{"an active plan that stays active makes none",
			phased(plan.PhaseActive, true), phased(plan.PhaseActive, true), "", false},
		{"an active plan whose occurrence closes (scheduled) makes none",
			phased(plan.PhaseActive, true), phased(plan.PhaseScheduled, true), "", false},
		{"an active plan that fails makes none",
			phased(plan.PhaseActive, true), phased(plan.PhaseFailed, true), "", false},
		{"no plan before makes none", nil, phased(plan.PhaseTerminated, true), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FinalTrigger(tt.before, tt.after)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("FinalTrigger = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// The operator's view: the real lifecycle's steps of the nightly run make
// exactly one final report, at the end.
func TestFinalTrigger_NightlyLifecycle(t *testing.T) {
	end := nightlyRun(t)
	before := end.DeepCopy()
	before.Status.Phase = plan.PhaseActive
	if got, ok := FinalTrigger(before, end); got != TriggerEnd || !ok {
		t.Errorf("the end of the nightly run: %q, %v; want end", got, ok)
	}
	res, err := plan.Cancel(before, "carol", nightlyNow)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := FinalTrigger(before, res.Plan); got != TriggerCancel || !ok {
		t.Errorf("canceling the running plan: %q, %v; want cancel", got, ok)
	}
}

func TestCheckManual(t *testing.T) {
	tests := []struct {
		name       string
		p          *plan.ProtectionPlan
		wantReason string
	}{
		{"an active plan may have one", phased(plan.PhaseActive, true), ""},
		{"a recurring plan between occurrences, once started, may", phased(plan.PhaseScheduled, true), ""},
		{"a terminated plan that ran may", phased(plan.PhaseTerminated, true), ""},
		{"a canceled plan that ran may", phased(plan.PhaseCanceled, true), ""},
		{"a failed plan that ran may", phased(plan.PhaseFailed, true), ""},
		{"a plan waiting for approval may not",
			phased(plan.PhasePendingApproval, false), "the plan is waiting for approval and has not started; a report is available once it has been active"},
		{"a plan waiting for its window may not",
			phased(plan.PhaseScheduled, false), "the plan is waiting for its window and has not started; a report is available once it has been active"},
		{"a plan canceled before it started may not",
			phased(plan.PhaseCanceled, false), "the plan ended without ever becoming active, so there is nothing to report"},
		{"a plan that failed before it was put in place may not",
			phased(plan.PhaseFailed, false), "the plan failed before it was ever put in place, so there is nothing to report"},
		{"a plan not created yet may not", phased("", false), "the plan has not been created yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckManual(tt.p)
			if tt.wantReason == "" {
				if err != nil {
					t.Fatalf("CheckManual: %v, want nil", err)
				}
				return
			}
			var ns *NotStartedError
			if !errors.As(err, &ns) {
				t.Fatalf("CheckManual = %v, want a *NotStartedError", err)
			}
			if ns.Reason != tt.wantReason {
				t.Errorf("reason %q, want %q", ns.Reason, tt.wantReason)
			}
			if plan.CodeOf(err) != http.StatusConflict {
				t.Errorf("code %d, want 409", plan.CodeOf(err))
			}
		})
	}
}

func TestParseTriggerAndFormat(t *testing.T) {
	for _, s := range []string{"manual", "cancel", "end"} {
		if got, err := ParseTrigger(s); err != nil || string(got) != s {
			t.Errorf("ParseTrigger(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseTrigger("weekly"); plan.CodeOf(err) != http.StatusBadRequest {
		t.Errorf("ParseTrigger(weekly): %v, want 400", err)
	}
	for in, want := range map[string]Format{"html": HTML, "HTML": HTML, "md": Markdown, "markdown": Markdown, "json": JSON, " csv ": CSV} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseFormat("pdf")
	if plan.CodeOf(err) != http.StatusBadRequest || err.Error() != `report: format "pdf": must be "html", "markdown", "json" or "csv"` {
		t.Errorf("ParseFormat(pdf): %v", err)
	}
	if _, err := Render(Report{}, "pdf"); plan.CodeOf(err) != http.StatusBadRequest {
		t.Errorf("Render(pdf): %v, want 400", err)
	}
}
