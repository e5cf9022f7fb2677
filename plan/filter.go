package plan

import (
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Phases returns every phase, in lifecycle order: what a list of plans
// may be filtered by.
func Phases() []Phase {
	return []Phase{PhasePendingApproval, PhaseScheduled, PhaseActive, PhaseTerminated, PhaseCanceled, PhaseFailed}
}

// Filter selects plans for a list (R-P10). Every field is optional; the
// zero Filter keeps every plan.
type Filter struct {
	// Phase keeps the plans in this phase.
	Phase Phase
	// Environment keeps the plans of this environment and Tag those that
	// carry this tag, comparing names as categories do (SameName).
	Environment string
	Tag         string
	// Text keeps the plans whose ID, display name or description contains
	// it, ignoring case.
	Text string
}

// ParseFilter reads a filter from a query: ?phase=&environment=&tag=&text=.
// The text is trimmed. An unknown phase is a *ValidationError on "phase"
// (400); other parameters are ignored.
func ParseFilter(q url.Values) (Filter, error) {
	f := Filter{Phase: Phase(q.Get("phase")), Environment: q.Get("environment"), Tag: q.Get("tag"),
		Text: strings.TrimSpace(q.Get("text"))}
	if f.Phase != "" && !slices.Contains(Phases(), f.Phase) {
		return f, NewValidationError(field.ErrorList{{Type: field.ErrorTypeNotSupported, Field: "phase", BadValue: string(f.Phase),
			Detail: "unknown phase (known: pending_approval, scheduled, active, terminated, canceled, failed)"}})
	}
	return f, nil
}

// IsZero reports whether f keeps every plan.
func (f Filter) IsZero() bool { return f == Filter{} }

// Match reports whether p passes every field of f.
func (f Filter) Match(p *ProtectionPlan) bool {
	switch {
	case f.Phase != "" && p.Status.Phase != f.Phase:
		return false
	case f.Environment != "" && !SameName(f.Environment, p.Spec.Environment):
		return false
	case f.Tag != "" && !slices.ContainsFunc(p.Spec.Tags, func(t string) bool { return SameName(t, f.Tag) }):
		return false
	case f.Text != "":
		t := strings.ToLower(f.Text)
		return strings.Contains(strings.ToLower(p.Name), t) || strings.Contains(strings.ToLower(p.Spec.Name), t) ||
			strings.Contains(strings.ToLower(p.Spec.Description), t)
	}
	return true
}

// Select returns the plans of all that pass f, sorted as SortByName
// sorts. It reuses all's storage: all is not usable afterwards.
func (f Filter) Select(all []ProtectionPlan) []ProtectionPlan {
	out := all[:0]
	for i := range all {
		if f.Match(&all[i]) {
			out = append(out, all[i])
		}
	}
	SortByName(out)
	return out
}

// SortByName sorts plans by display name ignoring case, then by ID: the
// order of every list of plans shown to people.
func SortByName(plans []ProtectionPlan) {
	slices.SortFunc(plans, func(a, b ProtectionPlan) int {
		if c := strings.Compare(strings.ToLower(a.Spec.Name), strings.ToLower(b.Spec.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// NamesIn is PlanNames over plans read at once: the IDs of those whose
// display name is name (SameName). It never fails.
func NamesIn(plans []ProtectionPlan) PlanNames {
	return PlanNamesFunc(func(name string) ([]string, error) {
		var ids []string
		for i := range plans {
			if SameName(plans[i].Spec.Name, name) {
				ids = append(ids, plans[i].Name)
			}
		}
		return ids, nil
	})
}
