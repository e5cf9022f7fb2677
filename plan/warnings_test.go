package plan

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateWarnings(t *testing.T) {
	lead := func(d time.Duration) *Warnings { return &Warnings{Lead: &metav1.Duration{Duration: d}} }
	cases := []struct {
		name string
		w    *Warnings
		want string
	}{
		{name: "no warnings setting is valid", w: nil},
		{name: "warnings switched off without a lead are valid", w: &Warnings{Disabled: true}},
		{name: "a lead of 20 minutes is valid", w: lead(20 * time.Minute)},
		{name: "a lead of a week is valid", w: lead(MaxWarningLead)},
		{name: "a lead under a minute is refused naming the field", w: lead(30 * time.Second),
			want: `spec.warnings.lead: Invalid value: "30s": must be from 1m to 168h0m0s`},
		{name: "a lead over a week is refused naming the field", w: lead(MaxWarningLead + time.Hour),
			want: `spec.warnings.lead: Invalid value: "169h0m0s": must be from 1m to 168h0m0s`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateWarnings(tc.w, fieldPath("spec.warnings"))
			got := ""
			if len(errs) > 0 {
				got = errs.ToAggregate().Error()
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSpec_LeadOr(t *testing.T) {
	cases := []struct {
		name string
		spec Spec
		on   bool
		want time.Duration
	}{
		{name: "a plan that says nothing warns with the default lead", spec: Spec{}, on: true, want: time.Hour},
		{name: "a plan's own lead wins over the default", spec: Spec{Warnings: &Warnings{Lead: &metav1.Duration{Duration: 20 * time.Minute}}}, on: true, want: 20 * time.Minute},
		{name: "a plan with warnings off keeps its lead for pre-arming", spec: Spec{Warnings: &Warnings{Disabled: true, Lead: &metav1.Duration{Duration: 5 * time.Minute}}}, on: false, want: 5 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.spec.LeadOr(time.Hour); got != tc.want {
				t.Errorf("LeadOr = %s, want %s", got, tc.want)
			}
			if got := tc.spec.WarningsOn(); got != tc.on {
				t.Errorf("WarningsOn = %t, want %t", got, tc.on)
			}
		})
	}
}
