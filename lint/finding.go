package lint

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Severity is how much a finding matters. It is a closed set.
type Severity string

const (
	// Error: the plan does not do what it says (a window already ended, a
	// cron that never fires, a window that does not parse). protectctl
	// lint exits 1.
	Error Severity = "error"
	// Warning: probably a mistake (overlapping plans that lock the same
	// changes, a schedule that adds nothing, a start in a skipped hour, a
	// freeze that never ends).
	Warning Severity = "warning"
	// Info: worth knowing, often meant (overlapping plans that lock
	// different changes, a start in a repeated hour).
	Info Severity = "info"
)

// rank orders severities, most severe first.
func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Code names a kind of finding. Codes are stable: scripts and
// dashboards may match them.
type Code string

const (
	// InvalidWindow: the window does not parse (error).
	InvalidWindow Code = "InvalidWindow"
	// WindowEnded: the window has ended for good at now (error).
	WindowEnded Code = "WindowEnded"
	// CronNeverFires: a schedule's cron matches no day ("0 0 31 2 *")
	// (error).
	CronNeverFires Code = "CronNeverFires"
	// PlansOverlap: two plans are active at once on shared namespaces or
	// applications (warning when they share a template, info otherwise).
	PlansOverlap Code = "PlansOverlap"
	// ScheduleShadowed: every occurrence of a schedule falls inside an
	// occurrence of another schedule of the same window (warning).
	ScheduleShadowed Code = "ScheduleShadowed"
	// StartInSkippedHour: a schedule starts at a local time the clocks
	// skip; that occurrence does not happen (warning).
	StartInSkippedHour Code = "StartInSkippedHour"
	// StartInRepeatedHour: a schedule starts at a local time that occurs
	// twice; it fires twice and the two occurrences merge (info).
	StartInRepeatedHour Code = "StartInRepeatedHour"
	// WindowNeverEnds: a recurring window's occurrences chain without a
	// gap past the horizon, or an allow window does not open within it:
	// the freeze never ends (warning).
	WindowNeverEnds Code = "WindowNeverEnds"
	// CalendarUnreadable: a calendar an exception names cannot be read
	// (calendar.Import refuses it); the operator will not lift the freeze
	// on its dates (error).
	CalendarUnreadable Code = "CalendarUnreadable"
	// CalendarNotGiven: a calendar an exception names was not given to
	// the linter (WithCalendars); findings about time ignore it (info).
	CalendarNotGiven Code = "CalendarNotGiven"
)

// Finding is one thing the linter found.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     Code     `json:"code"`
	// Plans are the plans concerned (metadata.name), one or two.
	Plans []string `json:"plans"`
	// Fields are the fields concerned, each in its plan.
	Fields []Field `json:"fields"`
	// Instants are the instants concerned, in the window's zone: the
	// start and end of an overlap, the skipped starts, where the window
	// ended.
	Instants []time.Time `json:"instants,omitempty"`
	// Message says what is wrong and what to do, for a person.
	Message string `json:"message"`
}

// Field is a field path in a plan: spec.window.schedules[1].cron.
type Field struct {
	Plan string `json:"plan"`
	Path string `json:"path"`
}

// sortFindings orders findings most severe first, then by code, plans
// and field: the same input gives the same order.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.rank(), b.Severity.rank()),
			strings.Compare(string(a.Code), string(b.Code)),
			slices.Compare(a.Plans, b.Plans),
			strings.Compare(firstPath(a), firstPath(b)))
	})
}

func firstPath(f Finding) string {
	if len(f.Fields) == 0 {
		return ""
	}
	return f.Fields[0].Path
}

// Errors reports whether any finding is an error.
func Errors(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Severity == Error })
}
