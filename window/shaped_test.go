package window_test

import (
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

func exceptDates(s window.Spec, dates ...string) window.Spec {
	for _, d := range dates {
		s.Except = append(s.Except, window.Exception{Date: d})
	}
	return s
}

func exceptSchedule(s window.Spec, cron, dur string) window.Spec {
	s.Except = append(s.Except, window.Exception{Schedule: &window.Schedule{Cron: cron, Duration: dur}})
	return s
}

func allow(s window.Spec) window.Spec {
	s.Freeze = window.FreezeOutside
	return s
}

// shapedCase asks a window at one instant: is it active, and where is the
// next edge (none when next is empty); lasts, when set, is next minus at.
type shapedCase struct {
	name   string
	spec   window.Spec
	except [2]string // an interval exception, read with when, if set
	cal    [2]string // a calendar's one occurrence, read with when, if set
	at     string
	active bool
	next   string
	lasts  time.Duration
}

func nightly(zone string) window.Spec { return recurring(zone, "0 22 * * *", "8h") }

// The 2026 transitions: Europe/Berlin Mar 29 (02:00 to 03:00) and Oct 25
// (03:00 to 02:00); America/New_York Mar 8 (02:00 to 03:00) and Nov 1
// (02:00 to 01:00); Australia/Sydney Apr 5 (03:00 to 02:00) and Oct 4
// (02:00 to 03:00).
var shapedCases = []shapedCase{
	// Difference: a date, which lasts 23 or 25 hours on a transition day.
	{name: "Berlin, spring: the night before an excepted date ends at its midnight", spec: exceptDates(nightly("Europe/Berlin"), "2026-03-29"),
		at: "Sat Mar 28 2026 23:00 Europe/Berlin", active: true, next: "Sun Mar 29 2026 00:00 Europe/Berlin"},
	{name: "Berlin, spring: the night of an excepted date starts at the next midnight", spec: exceptDates(nightly("Europe/Berlin"), "2026-03-29"),
		at: "Sun Mar 29 2026 12:00 Europe/Berlin", next: "Mon Mar 30 2026 00:00 Europe/Berlin"},
	{name: "Berlin, autumn: the night before an excepted date ends at its midnight", spec: exceptDates(nightly("Europe/Berlin"), "2026-10-25"),
		at: "Sat Oct 24 2026 23:00 Europe/Berlin", active: true, next: "Sun Oct 25 2026 00:00 Europe/Berlin"},
	{name: "Berlin, autumn: the excepted date is free in both readings of 02:30", spec: exceptDates(nightly("Europe/Berlin"), "2026-10-25"),
		at: "Sun Oct 25 2026 02:30 +0100 Europe/Berlin", next: "Mon Oct 26 2026 00:00 Europe/Berlin"},
	{name: "New York, spring: an excepted date lifts the night from midnight", spec: exceptDates(nightly("America/New_York"), "2026-03-08"),
		at: "Sun Mar 8 2026 03:30 America/New_York", next: "Mon Mar 9 2026 00:00 America/New_York"},
	{name: "New York, autumn: an excepted date lifts the night from midnight", spec: exceptDates(nightly("America/New_York"), "2026-11-01"),
		at: "Sat Oct 31 2026 23:59 America/New_York", active: true, next: "Sun Nov 1 2026 00:00 America/New_York", lasts: time.Minute},
	{name: "Sydney, autumn: an excepted date lifts the night from midnight", spec: exceptDates(nightly("Australia/Sydney"), "2026-04-05"),
		at: "Sun Apr 5 2026 02:30 +1000 Australia/Sydney", next: "Mon Apr 6 2026 00:00 Australia/Sydney"},
	{name: "Sydney, spring: an excepted date lifts the night from midnight", spec: exceptDates(nightly("Australia/Sydney"), "2026-10-04"),
		at: "Sun Oct 4 2026 03:30 Australia/Sydney", next: "Mon Oct 5 2026 00:00 Australia/Sydney"},

	// Complement: an allow window open every day but one is frozen for
	// exactly that date, 23 or 25 hours.
	{name: "Berlin, spring: an allow window closed on the transition day freezes 23 hours", spec: exceptDates(allow(recurring("Europe/Berlin", "0 0 * * *", "24h")), "2026-03-29"),
		at: "Sun Mar 29 2026 00:00 Europe/Berlin", active: true, next: "Mon Mar 30 2026 00:00 Europe/Berlin", lasts: 23 * time.Hour},
	{name: "Berlin, autumn: an allow window closed on the transition day freezes 25 hours", spec: exceptDates(allow(recurring("Europe/Berlin", "0 0 * * *", "24h")), "2026-10-25"),
		at: "Sun Oct 25 2026 00:00 Europe/Berlin", active: true, next: "Mon Oct 26 2026 00:00 Europe/Berlin", lasts: 25 * time.Hour},
	{name: "New York, spring: an allow window closed on the transition day freezes 23 hours", spec: exceptDates(allow(recurring("America/New_York", "0 0 * * *", "24h")), "2026-03-08"),
		at: "Sun Mar 8 2026 00:00 America/New_York", active: true, next: "Mon Mar 9 2026 00:00 America/New_York", lasts: 23 * time.Hour},
	{name: "New York, autumn: an allow window closed on the transition day freezes 25 hours", spec: exceptDates(allow(recurring("America/New_York", "0 0 * * *", "24h")), "2026-11-01"),
		at: "Sun Nov 1 2026 00:00 America/New_York", active: true, next: "Mon Nov 2 2026 00:00 America/New_York", lasts: 25 * time.Hour},
	{name: "Sydney, autumn: an allow window closed on the transition day freezes 25 hours", spec: exceptDates(allow(recurring("Australia/Sydney", "0 0 * * *", "24h")), "2026-04-05"),
		at: "Sun Apr 5 2026 00:00 Australia/Sydney", active: true, next: "Mon Apr 6 2026 00:00 Australia/Sydney", lasts: 25 * time.Hour},
	{name: "Sydney, spring: an allow window closed on the transition day freezes 23 hours", spec: exceptDates(allow(recurring("Australia/Sydney", "0 0 * * *", "24h")), "2026-10-04"),
		at: "Sun Oct 4 2026 00:00 Australia/Sydney", active: true, next: "Mon Oct 5 2026 00:00 Australia/Sydney", lasts: 23 * time.Hour},

	// Complement: allowed from 01:00 for two hours of elapsed time.
	{name: "Berlin, spring: allowed from 01:00 until 04:00 summer time", spec: allow(recurring("Europe/Berlin", "0 1 * * *", "2h")),
		at: "Sun Mar 29 2026 03:30 Europe/Berlin", next: "Sun Mar 29 2026 04:00 Europe/Berlin"},
	{name: "Berlin, autumn: allowed until the first 02:00 winter time", spec: allow(recurring("Europe/Berlin", "0 1 * * *", "2h")),
		at: "Sun Oct 25 2026 02:30 +0200 Europe/Berlin", next: "Sun Oct 25 2026 02:00 +0100 Europe/Berlin", lasts: 30 * time.Minute},
	{name: "Berlin, autumn: frozen again in the second reading of 02:30", spec: allow(recurring("Europe/Berlin", "0 1 * * *", "2h")),
		at: "Sun Oct 25 2026 02:30 +0100 Europe/Berlin", active: true, next: "Mon Oct 26 2026 01:00 Europe/Berlin"},
	{name: "New York, spring: allowed from 01:00 until 04:00 daylight time", spec: allow(recurring("America/New_York", "0 1 * * *", "2h")),
		at: "Sun Mar 8 2026 03:30 America/New_York", next: "Sun Mar 8 2026 04:00 America/New_York"},
	{name: "New York, autumn: 01:00 starts twice, allowed until 03:00 standard time", spec: allow(recurring("America/New_York", "0 1 * * *", "2h")),
		at: "Sun Nov 1 2026 01:30 -0500 America/New_York", next: "Sun Nov 1 2026 03:00 America/New_York", lasts: 90 * time.Minute},
	{name: "Sydney, autumn: allowed until 02:00 standard time", spec: allow(recurring("Australia/Sydney", "0 1 * * *", "2h")),
		at: "Sun Apr 5 2026 02:30 +1100 Australia/Sydney", next: "Sun Apr 5 2026 02:00 +1000 Australia/Sydney", lasts: 30 * time.Minute},
	{name: "Sydney, autumn: frozen again in the second reading of 02:30", spec: allow(recurring("Australia/Sydney", "0 1 * * *", "2h")),
		at: "Sun Apr 5 2026 02:30 +1000 Australia/Sydney", active: true, next: "Mon Apr 6 2026 01:00 Australia/Sydney"},
	{name: "Sydney, spring: allowed from 01:00 until 04:00 daylight time", spec: allow(recurring("Australia/Sydney", "0 1 * * *", "2h")),
		at: "Sun Oct 4 2026 03:30 Australia/Sydney", next: "Sun Oct 4 2026 04:00 Australia/Sydney"},

	// Difference: a schedule, skipped or doubled as the window's are.
	{name: "Berlin, spring: an exception at 02:30 is skipped, the night runs on", spec: exceptSchedule(nightly("Europe/Berlin"), "30 2 * * *", "1h"),
		at: "Sun Mar 29 2026 03:30 Europe/Berlin", active: true, next: "Sun Mar 29 2026 07:00 Europe/Berlin"},
	{name: "Berlin, autumn: an exception at 02:30 starts twice and lifts two hours", spec: exceptSchedule(nightly("Europe/Berlin"), "30 2 * * *", "1h"),
		at: "Sun Oct 25 2026 02:30 +0200 Europe/Berlin", next: "Sun Oct 25 2026 03:30 +0100 Europe/Berlin", lasts: 2 * time.Hour},
	{name: "New York, spring: an exception at 02:30 is skipped, the night runs on", spec: exceptSchedule(nightly("America/New_York"), "30 2 * * *", "1h"),
		at: "Sun Mar 8 2026 03:30 America/New_York", active: true, next: "Sun Mar 8 2026 07:00 America/New_York"},
	{name: "New York, autumn: an exception at 02:30 after the repeated hour lifts one hour", spec: exceptSchedule(nightly("America/New_York"), "30 2 * * *", "1h"),
		at: "Sun Nov 1 2026 02:30 America/New_York", next: "Sun Nov 1 2026 03:30 America/New_York", lasts: time.Hour},
	{name: "Sydney, autumn: an exception at 02:30 starts twice and lifts two hours", spec: exceptSchedule(nightly("Australia/Sydney"), "30 2 * * *", "1h"),
		at: "Sun Apr 5 2026 02:30 +1100 Australia/Sydney", next: "Sun Apr 5 2026 03:30 +1000 Australia/Sydney", lasts: 2 * time.Hour},
	{name: "Sydney, spring: an exception at 02:30 is skipped, the night runs on", spec: exceptSchedule(nightly("Australia/Sydney"), "30 2 * * *", "1h"),
		at: "Sun Oct 4 2026 03:30 Australia/Sydney", active: true, next: "Sun Oct 4 2026 07:00 Australia/Sydney"},

	// Difference: an exact interval, an hour of elapsed time around the
	// transition.
	{name: "Berlin, spring: an exact hour around the transition lifts 01:30 to 03:30", spec: nightly("Europe/Berlin"),
		except: [2]string{"Sun Mar 29 2026 01:30 Europe/Berlin", "Sun Mar 29 2026 03:30 Europe/Berlin"},
		at:     "Sun Mar 29 2026 01:30 Europe/Berlin", next: "Sun Mar 29 2026 03:30 Europe/Berlin", lasts: time.Hour},
	{name: "Berlin, autumn: an exact hour around the transition lifts 02:30 to 02:30", spec: nightly("Europe/Berlin"),
		except: [2]string{"Sun Oct 25 2026 02:30 +0200 Europe/Berlin", "Sun Oct 25 2026 02:30 +0100 Europe/Berlin"},
		at:     "Sun Oct 25 2026 02:29 +0200 Europe/Berlin", active: true, next: "Sun Oct 25 2026 02:30 +0200 Europe/Berlin", lasts: time.Minute},
	{name: "New York, spring: an exact hour around the transition lifts 01:30 to 03:30", spec: nightly("America/New_York"),
		except: [2]string{"Sun Mar 8 2026 01:30 America/New_York", "Sun Mar 8 2026 03:30 America/New_York"},
		at:     "Sun Mar 8 2026 01:30 America/New_York", next: "Sun Mar 8 2026 03:30 America/New_York", lasts: time.Hour},
	{name: "New York, autumn: an exact hour around the transition lifts 01:30 to 01:30", spec: nightly("America/New_York"),
		except: [2]string{"Sun Nov 1 2026 01:30 -0400 America/New_York", "Sun Nov 1 2026 01:30 -0500 America/New_York"},
		at:     "Sun Nov 1 2026 01:30 -0400 America/New_York", next: "Sun Nov 1 2026 01:30 -0500 America/New_York", lasts: time.Hour},
	{name: "Sydney, autumn: an exact hour around the transition lifts 02:30 to 02:30", spec: nightly("Australia/Sydney"),
		except: [2]string{"Sun Apr 5 2026 02:30 +1100 Australia/Sydney", "Sun Apr 5 2026 02:30 +1000 Australia/Sydney"},
		at:     "Sun Apr 5 2026 02:30 +1100 Australia/Sydney", next: "Sun Apr 5 2026 02:30 +1000 Australia/Sydney", lasts: time.Hour},
	{name: "Sydney, spring: an exact hour around the transition lifts 01:30 to 03:30", spec: nightly("Australia/Sydney"),
		except: [2]string{"Sun Oct 4 2026 01:30 Australia/Sydney", "Sun Oct 4 2026 03:30 Australia/Sydney"},
		at:     "Sun Oct 4 2026 01:30 Australia/Sydney", next: "Sun Oct 4 2026 03:30 Australia/Sydney", lasts: time.Hour},

	// Difference: a calendar's all-day event, passed in as the embedder
	// expands it (the date in the window's zone).
	{name: "Berlin, spring: a calendar's holiday on the transition day lifts its 23 hours", spec: nightly("Europe/Berlin"),
		cal: [2]string{"Sun Mar 29 2026 00:00 Europe/Berlin", "Mon Mar 30 2026 00:00 Europe/Berlin"},
		at:  "Sat Mar 28 2026 23:00 Europe/Berlin", active: true, next: "Sun Mar 29 2026 00:00 Europe/Berlin"},
	{name: "Berlin, autumn: a calendar's holiday on the transition day lifts its 25 hours", spec: nightly("Europe/Berlin"),
		cal: [2]string{"Sun Oct 25 2026 00:00 Europe/Berlin", "Mon Oct 26 2026 00:00 Europe/Berlin"},
		at:  "Sun Oct 25 2026 02:30 +0100 Europe/Berlin", next: "Mon Oct 26 2026 00:00 Europe/Berlin"},
	{name: "New York, spring: a calendar's holiday on the transition day", spec: nightly("America/New_York"),
		cal: [2]string{"Sun Mar 8 2026 00:00 America/New_York", "Mon Mar 9 2026 00:00 America/New_York"},
		at:  "Sun Mar 8 2026 03:30 America/New_York", next: "Mon Mar 9 2026 00:00 America/New_York"},
	{name: "New York, autumn: a calendar's holiday on the transition day", spec: nightly("America/New_York"),
		cal: [2]string{"Sun Nov 1 2026 00:00 America/New_York", "Mon Nov 2 2026 00:00 America/New_York"},
		at:  "Sun Nov 1 2026 01:30 -0500 America/New_York", next: "Mon Nov 2 2026 00:00 America/New_York"},
	{name: "Sydney, autumn: a calendar's holiday on the transition day", spec: nightly("Australia/Sydney"),
		cal: [2]string{"Sun Apr 5 2026 00:00 Australia/Sydney", "Mon Apr 6 2026 00:00 Australia/Sydney"},
		at:  "Sun Apr 5 2026 02:30 +1000 Australia/Sydney", next: "Mon Apr 6 2026 00:00 Australia/Sydney"},
	{name: "Sydney, spring: a calendar's holiday on the transition day", spec: nightly("Australia/Sydney"),
		cal: [2]string{"Sun Oct 4 2026 00:00 Australia/Sydney", "Mon Oct 5 2026 00:00 Australia/Sydney"},
		at:  "Sun Oct 4 2026 03:30 Australia/Sydney", next: "Mon Oct 5 2026 00:00 Australia/Sydney"},
}

var holidays = window.ConfigMapKeyRef{Name: "holidays", Key: "de.ics"}

func TestShapedAroundTransitions(t *testing.T) {
	for _, c := range shapedCases {
		t.Run(c.name, func(t *testing.T) {
			spec := c.spec
			var opts []window.Option
			if c.except[0] != "" {
				spec.Except = append(spec.Except, window.Exception{StartAt: mt(when(t, c.except[0])), EndAt: mt(when(t, c.except[1]))})
			}
			if c.cal[0] != "" {
				spec.Except = append(spec.Except, window.Exception{Calendar: &window.CalendarSource{ConfigMapKeyRef: holidays}})
				opts = append(opts, window.WithCalendar(holidays, []window.Interval{{Start: when(t, c.cal[0]), End: when(t, c.cal[1])}}))
			}
			w := mustParse(t, spec, opts...)
			at := when(t, c.at)
			if got := w.Active(at); got != c.active {
				t.Errorf("Active(%s) = %v, want %v", show(at), got, c.active)
			}
			next, ok := w.NextEdge(at)
			switch {
			case c.next == "" && ok:
				t.Errorf("NextEdge(%s) = %s, want none", show(at), show(next))
			case c.next != "" && (!ok || !next.Equal(when(t, c.next))):
				t.Errorf("NextEdge(%s) = %s %v, want %s", show(at), show(next), ok, c.next)
			case c.lasts != 0 && next.Sub(at) != c.lasts:
				t.Errorf("NextEdge(%s) - at = %s, want %s", show(at), next.Sub(at), c.lasts)
			}
			if ok && w.Active(next) == c.active {
				t.Errorf("Active(%s) = %v at the edge, want it changed", show(next), c.active)
			}
			if iv, in := w.Containing(at); in != c.active || (in && (iv.Start.After(at) || !iv.End.After(at))) {
				t.Errorf("Containing(%s) = %+v %v", show(at), iv, in)
			}
		})
	}
}
