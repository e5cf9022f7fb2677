package report

import (
	"cmp"
	"net/url"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// KeepManual is how many on-demand reports of a plan retention keeps.
const KeepManual = 10

// Deletion is a stored report retention deletes, and why.
type Deletion struct {
	Report Meta
	// Reason is PlanDeleted or ManualOverflow.
	Reason DeletionReason
}

// DeletionReason says why a report is deleted.
type DeletionReason string

const (
	// PlanDeleted: the report's plan no longer exists; every report of a
	// deleted plan is deleted, final ones too.
	PlanDeleted DeletionReason = "plan_deleted"
	// ManualOverflow: an on-demand report older than its plan's newest
	// KeepManual on-demand reports.
	ManualOverflow DeletionReason = "manual_overflow"
)

// Prune returns the stored reports to delete (R-T4), newest first: every
// report of a plan for which planExists is false, and each plan's
// on-demand reports beyond its newest KeepManual. Final reports (cancel,
// end) of an existing plan are never pruned. Reports created at the same
// instant are ordered by ID, so the answer does not depend on the order of
// stored. A nil planExists means every plan exists.
func Prune(stored []Meta, planExists func(planID string) bool) []Deletion {
	var out []Deletion
	manual := map[string]int{}
	for _, m := range newestFirst(stored) {
		switch {
		case planExists != nil && !planExists(m.Plan):
			out = append(out, Deletion{Report: m, Reason: PlanDeleted})
		case m.Trigger.Final():
		default:
			manual[m.Plan]++
			if manual[m.Plan] > KeepManual {
				out = append(out, Deletion{Report: m, Reason: ManualOverflow})
			}
		}
	}
	return out
}

// Filter selects stored reports for the Reports list (R-T5). A zero field
// selects everything.
type Filter struct {
	// Plan is a plan ID.
	Plan string
	// Environment is an environment category, compared ignoring case and
	// surrounding spaces (as category names are).
	Environment string
	// Trigger is manual, cancel or end.
	Trigger Trigger
	// From and To bound CreatedAt: From inclusive, To exclusive.
	From, To time.Time
}

// Match reports whether m passes the filter.
func (f Filter) Match(m Meta) bool {
	switch {
	case f.Plan != "" && m.Plan != f.Plan:
		return false
	case f.Environment != "" && !plan.SameName(f.Environment, m.Environment):
		return false
	case f.Trigger != "" && m.Trigger != f.Trigger:
		return false
	case !f.From.IsZero() && m.CreatedAt.Before(f.From):
		return false
	case !f.To.IsZero() && !m.CreatedAt.Before(f.To):
		return false
	}
	return true
}

// List returns the stored reports that pass f, newest first (ties by ID,
// descending). It does not change stored.
func List(stored []Meta, f Filter) []Meta {
	out := make([]Meta, 0, len(stored))
	for _, m := range newestFirst(stored) {
		if f.Match(m) {
			out = append(out, m)
		}
	}
	return out
}

// newestFirst returns a sorted copy of stored: newest first, then by ID
// descending.
func newestFirst(stored []Meta) []Meta {
	s := slices.Clone(stored)
	slices.SortStableFunc(s, func(a, b Meta) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return s
}

// ParseFilter reads a list's query, ?plan=&environment=&trigger=&from=&to=
// (R-T5): from and to are RFC 3339 times or dates (midnight UTC,
// window.ParseInstant), from inclusive and to exclusive. A bad trigger is
// an *InputError, a bad instant a *plan.ValidationError on its parameter:
// both 400.
func ParseFilter(q url.Values) (Filter, error) {
	f := Filter{Plan: q.Get("plan"), Environment: q.Get("environment")}
	if t := q.Get("trigger"); t != "" {
		tr, err := ParseTrigger(t)
		if err != nil {
			return f, err
		}
		f.Trigger = tr
	}
	for _, b := range []struct {
		name string
		into *time.Time
	}{{"from", &f.From}, {"to", &f.To}} {
		v := q.Get(b.name)
		if v == "" {
			continue
		}
		t, err := window.ParseInstant(field.NewPath(b.name), v)
		if ie, ok := err.(*window.InstantError); ok {
			return f, plan.NewValidationError(field.ErrorList{ie.Err})
		}
		*b.into = t
	}
	return f, nil
}
