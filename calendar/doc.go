// Package calendar writes a protection plan's window as an iCalendar file
// (RFC 5545) that calendar apps import: one event per interval of a
// window.Listing. It reads no clock (the stamp of the events is passed
// in), does no I/O beyond the io.Writer it is given, and starts no
// goroutine.
//
//	l := w.List(from, time.Time{})            // the intervals to publish
//	cal := calendar.ForPlan(p, l, now)        // the events
//	err := cal.Encode(out)                    // the .ics stream
//
// What matters for calendar apps, and is tested:
//
//   - lines end with CRLF and are folded at 75 octets (a CRLF and a space;
//     never inside a UTF-8 sequence);
//   - TEXT values escape backslash, semicolon, comma and line breaks, and
//     drop other control characters, so a plan's name or description can
//     never start a property or an event of its own;
//   - UIDs are "<plan ID>-<start as Unix seconds>@protectionplans.telark.io",
//     the same on every run for the same plan and interval, so importing
//     the file again updates the events instead of doubling them;
//   - DTSTAMP is the instant given; DTSTART and DTEND are UTC ("Z" form),
//     which every calendar app reads without a VTIMEZONE.
//
// # Reading calendars
//
// Import reads a calendar (RFC 5545) that a person made elsewhere, such as
// a holiday calendar or a release calendar, and lists its events'
// occurrences in a range, for plans that take exceptions from it:
//
//	occs, err := calendar.Import(icsBytes, planZone, from, to)
//
// It is pure like the rest: the embedder reads the bytes (from a file, a
// ConfigMap, a URL) and passes them in. golang-ical reads the file
// (content lines, folding, parameters, components); rrule-go expands
// RRULE. What Import decides:
//
//   - An all-day event (DTSTART;VALUE=DATE) has no zone: it covers its
//     dates in the plan's zone, from local midnight to local midnight, so
//     a holiday on the day clocks go forward lasts 23 hours. A public
//     holiday calendar means the same date wherever the plan runs.
//   - A floating time (no Z, no TZID) is read on the plan's clock.
//   - A TZID is an IANA name ("Europe/Berlin", also at the end of a
//     vendor prefix such as "/mozilla.org/20050126_1/Europe/Berlin"), a
//     Windows name as Outlook and Exchange write ("W. Europe Standard
//     Time", mapped to an IANA zone by the territory-001 rows of CLDR's
//     windowsZones), or the TZID of one of the calendar's VTIMEZONEs:
//     its X-LIC-LOCATION when that is an IANA name, else its STANDARD and
//     DAYLIGHT rules (Outlook's "Customized Time Zone"). Go's zone
//     database wins where it knows the zone: exporters write only the
//     current rules.
//   - A local time that does not exist (clocks go forward) is read with
//     the offset before the gap (02:30 is 03:30); one that occurs twice
//     is its first occurrence (RFC 5545 3.3.5).
//   - DTEND gives every instance the same elapsed length (RFC 5545
//     3.8.5.3); DURATION's days and weeks are calendar days, its hours,
//     minutes and seconds elapsed time. No DTEND or DURATION: an all-day
//     event lasts its day, a timed one has no length.
//   - DTSTART is always an instance, RRULE adds its instances (BYDAY,
//     BYSETPOS, UNTIL, COUNT and the rest, as rrule-go reads them), RDATE
//     adds dates, EXDATE removes instances (with their TZID; a DATE
//     removes that day's instance of a timed event). An event with
//     RECURRENCE-ID replaces the instance it names, or removes it when
//     its STATUS is CANCELLED; RANGE=THISANDFUTURE is read as this
//     instance only. Cancelled events, and components other than VEVENT,
//     are left out.
//   - Nothing runs long: the file is at most MaxImportBytes, a rule
//     without end is cut at the range's end, no rule expands to more
//     than MaxExpansion instances, a calendar has at most MaxRules rules
//     and Import returns at most MaxOccurrences occurrences (*LimitError,
//     413). A malformed calendar is an *ImportError (400) naming the
//     line, the event's UID and the property.
package calendar
