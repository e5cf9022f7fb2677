// Package lint finds the mistakes in protection plans' schedules that
// nobody sees until the night: two plans frozen at once on the same
// namespaces or applications, a schedule that adds nothing, a cron that
// never fires, a start in an hour the clocks skip, a freeze that never
// ends, a window that has already ended. It is pure: plans and the
// instant in, findings out; no clock, no I/O.
//
//	findings := lint.Lint(plans, now)
//	for _, f := range findings { fmt.Println(f.Severity, f.Code, f.Message) }
//	failed := lint.Errors(findings) // protectctl lint exits 1
//
// Each Finding has a Severity (error, warning, info), a stable Code, the
// plans and field paths concerned, the instants concerned and a message
// that says what to do. Findings come most severe first.
//
// # What it looks for
//
//	Code                 Severity        When
//	InvalidWindow        error           the window does not parse (one finding per field)
//	WindowEnded          error           the window has ended for good at now
//	CronNeverFires       error           a cron matches no day ("0 0 31 2 *")
//	PlansOverlap         warning / info  two plans are active at once on shared namespaces
//	                                     (listed, or selected: WithNamespaces) or applications: a
//	                                     warning when they share a template, info otherwise
//	ScheduleShadowed     warning         every occurrence of a schedule falls inside an occurrence
//	                                     of another schedule of the same window
//	StartInSkippedHour   warning         a schedule starts at a local time the clocks skip
//	StartInRepeatedHour  info            a schedule starts at a local time that occurs twice
//	WindowNeverEnds      warning         a recurring window is frozen without a break for longer than
//	                                     the horizon: occurrences that chain without a gap, or an
//	                                     allow window that does not open
//	CalendarUnreadable   error           a calendar an exception names cannot be read
//	CalendarNotGiven     info            a calendar an exception names was not given (WithCalendars)
//
// The findings about time hold within a horizon (a year by default,
// WithHorizon): the windows are asked, through the window package's own
// queries (Occurrences, Ended), for their intervals from now to the
// horizon, with the horizon as their look-around, so that every shape the
// window package knows is linted as it behaves: an allow window (freeze:
// outside) in the time it freezes, exceptions subtracted, the calendars
// given with WithCalendars read by calendar.Import as the operator reads
// them. A schedule is also compiled alone, without the window's freeze
// and exceptions, to compare it with the others and with the zone's
// changes. Plans scoped by
// applications are compared with plans scoped by applications only:
// which namespaces an application lives in is the embedder's to resolve.
package lint
