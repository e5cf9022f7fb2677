package plan

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestFinalReportIsDueWhenAStartedRunEnds: the lifecycle step that ends a
// started run records the final report as due, once; the run's own
// steps and runs that never started record none.
func TestFinalReportIsDueWhenAStartedRunEnds(t *testing.T) {
	active := func(t *testing.T) *ProtectionPlan { return inPhase(t, PhaseActive, "") }
	cases := map[string]struct {
		step func(t *testing.T) Result
		want *FinalReportStatus
	}{
		"a run whose window ends has an end report due at the end": {
			step: func(t *testing.T) Result { return Tick(active(t), dec28) },
			want: &FinalReportStatus{Trigger: FinalReportEnd, RunEndedAt: metav1.NewTime(dec28)},
		},
		"a canceled run has a cancel report due at the cancel": {
			step: func(t *testing.T) Result { return must(Cancel(active(t), "dave", dec28)) },
			want: &FinalReportStatus{Trigger: FinalReportCancel, RunEndedAt: metav1.NewTime(dec28)},
		},
		"a failed plan that had started and is canceled has a cancel report due": {
			step: func(t *testing.T) Result { return must(Cancel(inPhase(t, PhaseFailed, ""), "dave", dec28)) },
			want: &FinalReportStatus{Trigger: FinalReportCancel, RunEndedAt: metav1.NewTime(dec28)},
		},
		"a plan canceled before its window opened has none": {
			step: func(t *testing.T) Result { return must(Cancel(inPhase(t, PhaseScheduled, ""), "dave", dec2)) },
		},
		"a tick inside the window has none": {
			step: func(t *testing.T) Result { return Tick(active(t), xmasEve.Add(time.Hour)) },
		},
		"a tick of a terminated plan keeps the report of its run, written or not": {
			step: func(t *testing.T) Result {
				p := Tick(active(t), dec28).Plan
				return Tick(p, dec28.Add(time.Hour))
			},
			want: &FinalReportStatus{Trigger: FinalReportEnd, RunEndedAt: metav1.NewTime(dec28)},
		},
		"a plan created after its window ended has none (it never started)": {
			step: func(t *testing.T) Result { return must(Create(holiday(), "alice", dec28)) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := tc.step(t).Plan.Status.FinalReport
			if (got == nil) != (tc.want == nil) || (got != nil && (got.Trigger != tc.want.Trigger || !got.RunEndedAt.Equal(&tc.want.RunEndedAt) || !got.Due())) {
				t.Errorf("final report = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReactivateStartsARunWithoutAFinalReport(t *testing.T) {
	p := Tick(inPhase(t, PhaseActive, ""), dec28).Plan
	if !p.Status.FinalReport.Due() {
		t.Fatalf("setup: %+v", p.Status.FinalReport)
	}
	p.Spec.Window.EndAt = mt("Thu Dec 31 2026 06:00 Europe/Berlin")
	res := must(Reactivate(p, "alice", dec28))
	if st := res.Plan.Status; st.FinalReport != nil || st.StartedAt == nil || !st.StartedAt.Time.Equal(dec28) {
		t.Errorf("after reactivate: final report %+v, started %v", res.Plan.Status.FinalReport, res.Plan.Status.StartedAt)
	}
}

// TestValidateExisting: a plan applied with kubectl is held to the rules
// of Validate except those of the moment of creation.
func TestValidateExisting(t *testing.T) {
	cases := map[string]struct {
		edit func(p *ProtectionPlan)
		now  time.Time
		want []fieldErr
	}{
		"a valid plan passes":                      {edit: func(*ProtectionPlan) {}, now: dec1},
		"a window that has ended is not a problem": {edit: func(*ProtectionPlan) {}, now: dec28},
		"automatic in Production is not a problem (the mode is derived first)": {
			edit: func(p *ProtectionPlan) { p.Spec.Environment = "Production" }, now: dec1,
		},
		"a plan in the release namespace fails, naming the field": {
			edit: func(p *ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"shop", "telark-system"} }, now: dec1,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaces[1]", ""}},
		},
		"a plan in an excluded namespace fails, naming the field": {
			edit: func(p *ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"kube-system"} }, now: dec1,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaces[0]", ""}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := holiday()
			tc.edit(p)
			err := ValidateExisting(p, testEnv(tc.now))
			var got []fieldErr
			if ve, ok := err.(*ValidationError); ok {
				for _, e := range ve.Errs {
					got = append(got, fieldErr{e.Type, e.Field, ""})
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) || (len(got) > 0 && (got[0].Type != tc.want[0].Type || got[0].Field != tc.want[0].Field)) {
				t.Errorf("problems = %+v (%v), want %+v", got, err, tc.want)
			}
		})
	}
}

func TestCreatorOf(t *testing.T) {
	p := holiday()
	if got := CreatorOf(p); got != DefaultActor {
		t.Errorf("no annotation: %q", got)
	}
	p.Annotations = map[string]string{CreatedByAnnotation: " alice "}
	if got := CreatorOf(p); got != "alice" {
		t.Errorf("annotated: %q", got)
	}
}
