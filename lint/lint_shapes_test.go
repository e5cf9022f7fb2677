package lint

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// goodFriday is a holiday calendar as Google exports one, with Good
// Friday 2026.
const goodFriday = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Google Inc//Google Calendar 70.9054//EN\r\n" +
	"BEGIN:VEVENT\r\nDTSTART;VALUE=DATE:20260403\r\nDTEND;VALUE=DATE:20260404\r\nUID:20260403_good@google.com\r\n" +
	"SUMMARY:Good Friday\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"

var holidays = window.ConfigMapKeyRef{Name: "holidays", Key: "de.ics"}

func allow(zone string, scheds ...string) window.Spec {
	s := recurring(zone, scheds...)
	s.Freeze = window.FreezeOutside
	return s
}

func except(s window.Spec, e ...window.Exception) window.Spec {
	s.Except = e
	return s
}

// TestLint_Shapes: allow windows and exceptions (package window) are
// linted as they behave: what they freeze, not their raw schedules.
func TestLint_Shapes(t *testing.T) {
	nightly := recurring("Europe/Berlin", "0 22 * * *", "8h")
	withHolidays := except(nightly, window.Exception{Calendar: &window.CalendarSource{ConfigMapKeyRef: holidays}})
	goodFridayRange := timeRange("2026-04-03T00:00:00+02:00", "2026-04-04T00:00:00+02:00")
	cases := []struct {
		name      string
		plans     []*plan.ProtectionPlan
		calendars map[window.ConfigMapKeyRef][]byte
		want      []brief
		message   string
	}{{
		name: "an allow window that opens twice a week is not reported as never ending or ended",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			allow("Europe/Berlin", "0 10 * * 2,4", "2h"))},
		want: []brief{},
	}, {
		name: "an allow window that does not open within the horizon never ends: the plan stays frozen",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			allow("Europe/Berlin", "0 10 29 2 *", "2h"))},
		want: []brief{{Severity: Warning, Code: WindowNeverEnds, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules"}},
			Instants: []string{"2026-03-01T12:00:00Z", "2028-02-29T09:00:00Z"}}},
		message: "the allow window (",
	}, {
		name: "an allow window overlaps another plan in the time it freezes, outside its openings",
		plans: []*plan.ProtectionPlan{
			onNamespaces("allowed", []string{"shop"}, []string{"create"}, allow("Europe/Berlin", "0 10 * * 2,4", "2h")),
			onNamespaces("release", []string{"shop"}, []string{"create"}, timeRange("2026-03-03T10:00:00+01:00", "2026-03-03T13:00:00+01:00")),
		},
		want: []brief{{Severity: Warning, Code: PlansOverlap, Plans: []string{"allowed", "release"},
			Fields: []Field{{"allowed", "spec.scope.namespaces[0]"}, {"release", "spec.scope.namespaces[0]"}, {"allowed", "spec.templates[0]"},
				{"allowed", "spec.window"}, {"release", "spec.window"}},
			Instants: []string{"2026-03-03T11:00:00Z", "2026-03-03T12:00:00Z"}}},
	}, {
		name: "a start in the skipped hour of an allow window says the window does not open",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			allow("Europe/Berlin", "30 2 * * 0", "1h"))},
		want: []brief{
			{Severity: Warning, Code: StartInSkippedHour, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}, Instants: []string{"2026-03-29T01:00:00Z"}},
			{Severity: Info, Code: StartInRepeatedHour, Plans: []string{"p"}, Fields: []Field{{"p", "spec.window.schedules[0].cron"}}, Instants: []string{"2026-10-25T01:00:00Z"}},
		},
		message: `cron "30 2 * * 0" starts at Sun 2026-03-29 02:30 in Europe/Berlin, a local time the clocks skip: that occurrence does not happen (the allow window does not open then, and changes stay frozen); move the start out of the skipped hour or use a zone without DST`,
	}, {
		name: "occurrences that chain, broken by an exception schedule every Sunday, end",
		plans: []*plan.ProtectionPlan{onNamespaces("p", []string{"shop"}, []string{"create"},
			except(recurring("UTC", "0 */4 * * *", "4h"), window.Exception{Schedule: &window.Schedule{Cron: "0 0 * * 0", Duration: "1h"}}))},
		want: []brief{},
	}, {
		name: "a date exception that lifts the nightly freeze on a release day removes the overlap with the release",
		plans: []*plan.ProtectionPlan{
			onNamespaces("nightly", []string{"shop"}, []string{"create"}, except(nightly, window.Exception{Date: "2026-04-03"})),
			onNamespaces("release", []string{"shop"}, []string{"create"}, goodFridayRange),
		},
		want: []brief{},
	}, {
		name: "a holiday calendar given to the linter lifts the nightly freeze on Good Friday: no overlap with a Good Friday release",
		plans: []*plan.ProtectionPlan{
			onNamespaces("nightly", []string{"shop"}, []string{"create"}, withHolidays),
			onNamespaces("release", []string{"shop"}, []string{"create"}, goodFridayRange),
		},
		calendars: map[window.ConfigMapKeyRef][]byte{holidays: []byte(goodFriday)},
		want:      []brief{},
	}, {
		name: "a calendar not given is info, and the overlap it would lift is still reported",
		plans: []*plan.ProtectionPlan{
			onNamespaces("nightly", []string{"shop"}, []string{"create"}, withHolidays),
			onNamespaces("release", []string{"shop"}, []string{"create"}, goodFridayRange),
		},
		want: []brief{
			{Severity: Warning, Code: PlansOverlap, Plans: []string{"nightly", "release"},
				Fields: []Field{{"nightly", "spec.scope.namespaces[0]"}, {"release", "spec.scope.namespaces[0]"}, {"nightly", "spec.templates[0]"},
					{"nightly", "spec.window"}, {"release", "spec.window"}},
				Instants: []string{"2026-04-02T22:00:00Z", "2026-04-03T04:00:00Z"}},
			{Severity: Info, Code: CalendarNotGiven, Plans: []string{"nightly"}, Fields: []Field{{"nightly", "spec.window.except[0].calendar"}}},
		},
	}, {
		name: "a calendar that cannot be read is an error naming its line",
		plans: []*plan.ProtectionPlan{
			onNamespaces("nightly", []string{"shop"}, []string{"create"}, withHolidays),
		},
		calendars: map[window.ConfigMapKeyRef][]byte{holidays: []byte(strings.Replace(goodFriday, "DTSTART;VALUE=DATE:20260403", "DTSTART;VALUE=DATE:2026-04-03", 1))},
		want:      []brief{{Severity: Error, Code: CalendarUnreadable, Plans: []string{"nightly"}, Fields: []Field{{"nightly", "spec.window.except[0].calendar"}}}},
		message:   `calendar holidays/de.ics cannot be read: calendar line 5: VEVENT "20260403_good@google.com": DTSTART "2026-04-03": neither a date (YYYYMMDD) nor a date-time (YYYYMMDDTHHMMSS, Z for UTC); the operator will not lift the freeze on its dates until it is fixed`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Lint(c.plans, now, WithCalendars(c.calendars))
			if diff := cmp.Diff(c.want, briefOf(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if c.message != "" && len(got) > 0 && !strings.HasPrefix(got[0].Message, c.message) {
				t.Errorf("message\n got %s\nwant %s...", got[0].Message, c.message)
			}
		})
	}
}
