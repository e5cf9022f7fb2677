package window_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

func TestValidateShapes(t *testing.T) {
	cal := func(name, key string) window.Exception {
		return window.Exception{Calendar: &window.CalendarSource{ConfigMapKeyRef: window.ConfigMapKeyRef{Name: name, Key: key}}}
	}
	nightly := recurring("Europe/Berlin", "0 22 * * *", "8h")
	with := func(s window.Spec, f func(*window.Spec)) window.Spec { f(&s); return s }
	for _, c := range []struct {
		name string
		spec window.Spec
		want []string
	}{
		{name: "an allow window with every kind of exception is valid",
			spec: with(allow(nightly), func(s *window.Spec) {
				s.Except = []window.Exception{{Date: "2026-12-24"}, {StartAt: mt(jan1), EndAt: mt(jan2)},
					{Schedule: &window.Schedule{Cron: "0 12 * * *", Duration: "1h"}}, cal("holidays", "de.ics")}
			})},
		{name: "freeze during is the default written out",
			spec: with(nightly, func(s *window.Spec) { s.Freeze = window.FreezeDuring })},
		{name: "a permanent window with an exception is valid",
			spec: window.Spec{Type: window.Permanent, Except: []window.Exception{{Date: "2026-12-24"}}}},
		{name: "an unknown freeze is not supported",
			spec: with(nightly, func(s *window.Spec) { s.Freeze = "never" }),
			want: []string{`spec.window.freeze: Unsupported value: "never": supported values: "during", "outside"`}},
		{name: "a permanent allow window is refused: it has no outside",
			spec: window.Spec{Type: window.Permanent, Freeze: window.FreezeOutside},
			want: []string{`spec.window.freeze: Invalid value: "outside": a permanent window has no outside: an allow window needs type recurring (its schedules are when changes are allowed)`}},
		{name: "a time_range allow window is refused: it would freeze forever after its end",
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(jan1), EndAt: mt(jan2), Freeze: window.FreezeOutside},
			want: []string{`spec.window.freeze: Invalid value: "outside": a time_range window frozen outside would freeze forever after endAt: use type recurring, with startAt and endAt as its validity period`}},
		{name: "an empty exception names its index",
			spec: with(nightly, func(s *window.Spec) { s.Except = []window.Exception{{Date: "2026-12-24"}, {}} }),
			want: []string{`spec.window.except[1]: Required value: needs one of date, startAt and endAt, schedule, calendar`}},
		{name: "an exception of two kinds is refused, quoting both",
			spec: with(nightly, func(s *window.Spec) {
				s.Except = []window.Exception{{Date: "2026-12-24", Schedule: &window.Schedule{Cron: "0 12 * * *", Duration: "1h"}}}
			}),
			want: []string{`spec.window.except[0]: Invalid value: "on 2026-12-24 and every day at 12:00 UTC for 1h": must be exactly one of date, startAt and endAt, schedule, calendar`}},
		{name: "a bad date names except[2].date",
			spec: with(nightly, func(s *window.Spec) {
				s.Except = []window.Exception{{Date: "2026-12-24"}, {Date: "2026-12-25"}, {Date: "2026-02-30"}}
			}),
			want: []string{`spec.window.except[2].date: Invalid value: "2026-02-30": must be a date YYYY-MM-DD (2026-12-25)`}},
		{name: "an interval without its end names endAt",
			spec: with(nightly, func(s *window.Spec) { s.Except = []window.Exception{{StartAt: mt(jan1)}} }),
			want: []string{`spec.window.except[0].endAt: Required value: an interval exception needs startAt and endAt`}},
		{name: "an interval ending at its start is refused, quoting both",
			spec: with(nightly, func(s *window.Spec) { s.Except = []window.Exception{{StartAt: mt(jan2), EndAt: mt(jan1)}} }),
			want: []string{`spec.window.except[0].endAt: Invalid value: "2026-01-01T00:00:00Z": must be after startAt (2026-01-02T00:00:00Z)`}},
		{name: "a bad exception schedule names its cron and duration",
			spec: with(nightly, func(s *window.Spec) {
				s.Except = []window.Exception{{Schedule: &window.Schedule{Cron: "@every 1h", Duration: "0s"}}}
			}),
			want: []string{
				`spec.window.except[0].schedule.cron: Invalid value: "@every 1h": @every is an interval from whenever a process starts, not a time of day: use a five-field cron expression`,
				`spec.window.except[0].schedule.duration: Invalid value: "0s": must be greater than 0`,
			}},
		{name: "a calendar needs a ConfigMap name and key that Kubernetes takes",
			spec: with(nightly, func(s *window.Spec) { s.Except = []window.Exception{cal("Holidays", ""), cal("", "a/b")} }),
			want: []string{
				`spec.window.except[0].calendar.configMapKeyRef.name: Invalid value: "Holidays": must be a ConfigMap name: lower case letters, digits, '-' and '.', at most 253`,
				`spec.window.except[0].calendar.configMapKeyRef.key: Required value: the key of the ConfigMap's data that holds the ICS text`,
				`spec.window.except[1].calendar.configMapKeyRef.name: Required value: the name of the ConfigMap that holds the calendar`,
				`spec.window.except[1].calendar.configMapKeyRef.key: Invalid value: "a/b": must be a ConfigMap key: letters, digits, '-', '_' and '.', at most 253`,
			}},
		{name: "more than 500 exceptions are too many",
			spec: with(nightly, func(s *window.Spec) {
				for i := range 501 {
					s.Except = append(s.Except, window.Exception{Date: jan1.AddDate(0, 0, i).Format(time.DateOnly)})
				}
			}),
			want: []string{`spec.window.except: Too many: 501: must have at most 500 items`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, e := range window.Validate(c.spec, field.NewPath("spec", "window")) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			if _, err := window.Parse(c.spec); (err != nil) != (len(c.want) > 0) {
				t.Errorf("Parse error %v, want one: %v", err, len(c.want) > 0)
			}
		})
	}
}

func TestDescribeShapes(t *testing.T) {
	nightly := recurring("Europe/Berlin", "0 22 * * *", "8h")
	for _, c := range []struct {
		name string
		spec window.Spec
		want string
	}{
		{"an allow window says it freezes outside", allow(recurring("Europe/Berlin", "0 10 * * 2,4", "2h")),
			"frozen outside: every Tuesday and Thursday at 10:00 Europe/Berlin for 2h"},
		{"dates are listed as they are written", exceptDates(nightly, "2026-12-24", "2026-12-31"),
			"every day at 22:00 Europe/Berlin for 8h, except on 2026-12-24 and on 2026-12-31"},
		{"an interval is read in the window's zone", func() window.Spec {
			s := nightly
			s.Except = []window.Exception{{StartAt: mt(when(t, "Thu Dec 24 2026 12:00 UTC")), EndAt: mt(when(t, "Thu Dec 24 2026 18:00 UTC"))}}
			return s
		}(), "every day at 22:00 Europe/Berlin for 8h, except from 2026-12-24 13:00 to 2026-12-24 19:00 Europe/Berlin"},
		{"a schedule and a calendar", func() window.Spec {
			s := allow(exceptSchedule(recurring("UTC", "0 9 * * 1-5", "8h"), "0 12 * * *", "1h"))
			s.Except = append(s.Except, window.Exception{Calendar: &window.CalendarSource{ConfigMapKeyRef: holidays}})
			return s
		}(), `frozen outside: every Monday to Friday at 09:00 UTC for 8h, except every day at 12:00 UTC for 1h and the calendar in ConfigMap "holidays", key "de.ics"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := window.Describe(c.spec); got != c.want {
				t.Errorf("Describe = %q, want %q", got, c.want)
			}
		})
	}
}

func TestCalendars(t *testing.T) {
	other := window.ConfigMapKeyRef{Name: "holidays", Key: "at.ics"}
	s := exceptDates(nightly("UTC"), "2026-12-24")
	for _, r := range []window.ConfigMapKeyRef{holidays, other, holidays} {
		s.Except = append(s.Except, window.Exception{Calendar: &window.CalendarSource{ConfigMapKeyRef: r}})
	}
	if diff := cmp.Diff([]window.ConfigMapKeyRef{holidays, other}, window.Calendars(s)); diff != "" {
		t.Errorf("Calendars (-want +got):\n%s", diff)
	}
	// A calendar Parse is given nothing for subtracts nothing.
	at := when(t, "Fri Dec 25 2026 23:00 UTC")
	if !mustParse(t, s).Active(at) {
		t.Errorf("Active(%s) without the calendars = false, want true", show(at))
	}
	day := window.Interval{Start: when(t, "Fri Dec 25 2026 00:00 UTC"), End: when(t, "Sat Dec 26 2026 00:00 UTC")}
	if mustParse(t, s, window.WithCalendar(other, []window.Interval{day})).Active(at) {
		t.Errorf("Active(%s) with the holiday = true, want false", show(at))
	}
}

// TestShapedListing lists an allow window with a holiday: the intervals
// are the gaps between the allowed times; the holiday closes Thursday's,
// so Tuesday's end freezes until past the look-around (open).
func TestShapedListing(t *testing.T) {
	s := exceptDates(allow(recurring("Europe/Berlin", "0 10 * * 2,4", "2h")), "2026-12-24")
	w := mustParse(t, s, window.WithLookAround(24*time.Hour))
	l := w.List(when(t, "Tue Dec 22 2026 11:00 Europe/Berlin"), when(t, "Sat Dec 26 2026 00:00 Europe/Berlin"))
	_, rows := l.Table()
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join([]string{r[0], r[1], r[len(r)-1]}, " | "))
	}
	want := []string{"Tue 2026-12-22 12:00 CET | >= Sun 2026-12-27 00:00 CET | >= 108h"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Table rows (-want +got):\n%s", diff)
	}
}
