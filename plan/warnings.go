package plan

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Warnings configures a plan's advance warnings (issue 20, seed 004): an
// admission warning on writes in scope within the lead before the start
// (BeforeStart), while the window is open (Active), and within the lead
// before the end (BeforeEnd). Warnings never refuse. Nil: on wherever the
// embedder renders warnings (render.Input.Warnings; the example
// operator's --warnings, on by default), with the embedder's lead (the
// operator's --lead, else an hour).
// +kubebuilder:object:generate=true
type Warnings struct {
	// Disabled switches the plan's advance warnings off.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// Lead is how long before the start (and before the end) the
	// warnings begin, and, on targets that read the clock, how long
	// before the start the plan's policies are put in place. From 1m to
	// MaxWarningLead; unset takes the embedder's default.
	// +optional
	Lead *metav1.Duration `json:"lead,omitempty"`
}

// MaxWarningLead is the longest lead a plan may set: a week, so that a
// weekly window's warnings start at most at the previous occurrence.
const MaxWarningLead = 7 * 24 * time.Hour

// WarningsOn reports whether the plan warns ahead of its edges.
func (s Spec) WarningsOn() bool { return s.Warnings == nil || !s.Warnings.Disabled }

// LeadOr is the plan's lead, or def when the plan sets none.
func (s Spec) LeadOr(def time.Duration) time.Duration {
	if s.Warnings != nil && s.Warnings.Lead != nil && s.Warnings.Lead.Duration > 0 {
		return s.Warnings.Lead.Duration
	}
	return def
}

// ValidateWarnings checks spec.warnings: a lead from 1m to MaxWarningLead.
func ValidateWarnings(w *Warnings, fld *field.Path) field.ErrorList {
	if w == nil || w.Lead == nil {
		return nil
	}
	if d := w.Lead.Duration; d < time.Minute || d > MaxWarningLead {
		return field.ErrorList{field.Invalid(fld.Child("lead"), d.String(), fmt.Sprintf("must be from 1m to %s", MaxWarningLead))}
	}
	return nil
}
