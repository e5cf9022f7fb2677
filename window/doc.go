// Package window owns the time windows of protection plans: permanent, a
// time range, or recurring (cron schedules with durations in an IANA zone,
// optionally within a validity period), with exceptions that subtract
// from them and, for recurring windows, the choice to freeze outside them
// (an allow window). It answers, as pure functions of an
// instant passed in, whether a window is active, when it next changes (the
// operator's timer), the interval around an instant and the intervals in a
// range. It reads no clock, does no I/O and starts no goroutines; a Window
// is immutable and safe for concurrent use.
//
//	w, err := window.Parse(plan.Spec.Window)              // compile once
//	active := w.Active(now)                               // evaluate many times
//	next, ok := w.NextEdge(now)                           // set a timer there
//
// # Semantics
//
// Starts are inclusive and ends exclusive; overlapping and adjacent
// occurrences merge into one interval. A schedule fires at every instant
// whose local reading in the window's zone matches its cron expression
// (minute precision). A local start that does not exist (the hour skipped
// when clocks go forward) is skipped; a local start inside the repeated hour
// (clocks go back) fires twice, once per offset, and the two occurrences
// merge when they overlap or touch. Durations are elapsed time: 22:00 plus
// 8h on the night clocks go back in Europe/Berlin ends at 05:00. A recurring
// window's startAt and endAt bound a validity period: the window is the
// occurrences cut to [startAt, endAt).
//
// # Allow windows and exceptions
//
// Except lists exceptions that subtract from the intervals the schedules
// (or the range) describe: a date (the whole local day in the window's
// zone, from the first instant that reads it to the first that reads the
// next: 23 or 25 hours on a transition day, and a day whose midnight is
// skipped starts at the transition), an exact interval, a schedule (read
// as the window's are) or a calendar, whose occurrences the embedder
// passes to Parse (WithCalendar): the window reads no files. Freeze
// outside (an allow window) then makes the window active outside what
// remains, within the validity period; it is refused on permanent and
// time_range windows, which have no sensible outside (a field error on
// freeze). An exception therefore lifts a freeze and closes an allow
// window.
//
// Active combines point tests: in the raw occurrences (the day plans
// below), in an exception (a binary search in the sorted exact intervals,
// and the exception schedules' own day plans), in the validity period;
// it allocates nothing. NextEdge steps from one change of those point
// tests to the next (each found by the same searches) until Active
// changes, and allocates nothing either. The other queries of such a
// window work on interval lists over the look-around: the raw intervals
// cut to it, minus
// the exceptions that meet it, complemented inside the validity period for
// an allow window (shaped.go). Edges inside the look-around are exact;
// a side at its bound is open, for permanent and time_range windows too.
//
// Active is exact at any instant. The other recurring queries look back and
// ahead by 14 days (WithLookAround): an interval reaching further is
// reported with OpenStart or OpenEnd, never with a wrong edge. Edges of
// permanent and time_range windows and of a validity period are exact at
// any distance.
//
// # General approach
//
// Which schedules fire on a local day depends only on its month, day of
// month and weekday (robfig/cron's day rules). Parse groups the schedules
// by the days they fire on and, for each distinct set of firing schedules,
// precomputes a day plan: the merged union of that day's occurrences as
// sorted spans in nanoseconds after local midnight. There are at most
// 12*31*7 kinds of day, and in practice a handful of plans.
//
// A query works in wall days. A day is clean when all of its local times
// lie in one zone period and no other period reads any of them; then local
// minute m of the day is read exactly once, at the instant of local
// midnight plus m minutes, and the day's plan applies as is, shifted to
// that instant. A day touched by a transition is enumerated start by start
// instead: each local start is mapped to the instants that read it, none in
// a skipped hour, two in a repeated one.
//
// Active(t) looks at t's wall day, the next one (a repeated hour at
// midnight) and the days before back to the longest duration; on clean days
// it is a binary search in a plan, so it allocates nothing. The other
// queries sweep days in order, turning plans into spans ordered by start,
// and merge them into runs: a run ends where the next span starts after it.
// Runs that reach past the look-ahead are open.
//
// Zone periods (the instants sharing one offset) come from the Location's
// zone bounds, trusted only when they contain the instant asked about:
// past a zone's transition table Go puts the end of a year's last period
// on December 31 of leap years, before that instant (golang/go#81583).
// Such a period is rebuilt from offsets alone, so every period ends after
// its instant and every walk over periods moves forward; each loop has a
// visible bound. A sweep test checks every zone of Go's zone database and
// of the system's against a minute-by-minute reference.
//
// robfig/cron parses the expressions; its Next is not used, so its
// handling of transitions does not matter here.
package window
