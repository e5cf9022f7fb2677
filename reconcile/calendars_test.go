package reconcile_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

var holidays = window.ConfigMapKeyRef{Name: "holidays", Key: "de.ics"}

// datesReader stands for calendar.Import in these tests: its "calendar"
// is one date per line, each an all-day event covering that date in the
// zone, and a line "BROKEN" makes it fail as a bad file would.
func datesReader(text []byte, zone *time.Location, from, to time.Time) ([]window.Interval, error) {
	var out []window.Interval
	for _, line := range strings.Fields(string(text)) {
		if line == "BROKEN" {
			return nil, errors.New("line 1: not an iCalendar file")
		}
		d, err := time.ParseInLocation(time.DateOnly, line, zone)
		if err != nil {
			return nil, err
		}
		iv := window.Interval{Start: d, End: time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, zone)}
		if iv.Start.Before(to) && iv.End.After(from) {
			out = append(out, iv)
		}
	}
	return out, nil
}

// nightlyWithCalendar is a nightly Berlin freeze from 22:00 for 8h,
// except the calendar holidays/de.ics; allow makes it an allow window.
func nightlyWithCalendar(allow bool) *plan.ProtectionPlan {
	p := freeze("nights", "shop")
	p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin",
		Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}},
		Except:    []window.Exception{{Calendar: &window.CalendarSource{ConfigMapKeyRef: holidays}}}}
	if allow {
		p.Spec.Window.Freeze = window.FreezeOutside
	}
	return p
}

func TestCalendars(t *testing.T) {
	defer reconcile.SetCalendarReader(datesReader)()
	christmasEve := time.Date(2026, 12, 24, 23, 0, 0, 0, berlin)
	for _, c := range []struct {
		name      string
		plan      *plan.ProtectionPlan
		calendars map[window.ConfigMapKeyRef][]byte
		at        time.Time
		phase     plan.Phase
		status    metav1.ConditionStatus
		reason    string
		message   string
	}{
		{name: "a holiday calendar lifts a nightly freeze on its date",
			plan: nightlyWithCalendar(false), calendars: map[window.ConfigMapKeyRef][]byte{holidays: []byte("2026-12-24\n2026-12-31")},
			at: christmasEve, phase: plan.PhaseScheduled, status: metav1.ConditionTrue, reason: reconcile.ReasonCalendarsRead,
			message: "read 1 calendar(s)"},
		{name: "the night after the holiday is frozen again",
			plan: nightlyWithCalendar(false), calendars: map[window.ConfigMapKeyRef][]byte{holidays: []byte("2026-12-24\n2026-12-31")},
			at: christmasEve.AddDate(0, 0, 1), phase: plan.PhaseActive, status: metav1.ConditionTrue, reason: reconcile.ReasonCalendarsRead,
			message: "read 1 calendar(s)"},
		{name: "a missing calendar keeps the freeze on its dates and says so",
			plan: nightlyWithCalendar(false), at: christmasEve, phase: plan.PhaseActive,
			status: metav1.ConditionFalse, reason: reconcile.ReasonCalendarMissing,
			message: `spec.window.except: ConfigMap "holidays" has no key "de.ics" (or does not exist); until it is read, the freeze holds on its dates too`},
		{name: "an unreadable calendar keeps the freeze and quotes the reader",
			plan: nightlyWithCalendar(false), calendars: map[window.ConfigMapKeyRef][]byte{holidays: []byte("BROKEN")},
			at: christmasEve, phase: plan.PhaseActive, status: metav1.ConditionFalse, reason: reconcile.ReasonCalendarInvalid,
			message: `spec.window.except: ConfigMap "holidays", key "de.ics": line 1: not an iCalendar file; until it is read, the freeze holds on its dates too`},
		{name: "an allow window is open in its hours when its calendar is read",
			plan: nightlyWithCalendar(true), calendars: map[window.ConfigMapKeyRef][]byte{holidays: []byte("2026-12-31")},
			at: christmasEve, phase: plan.PhaseScheduled, status: metav1.ConditionTrue, reason: reconcile.ReasonCalendarsRead,
			message: "read 1 calendar(s)"},
		{name: "an allow window whose calendar is missing is frozen in its hours too",
			plan: nightlyWithCalendar(true), at: christmasEve, phase: plan.PhaseActive,
			status: metav1.ConditionFalse, reason: reconcile.ReasonCalendarMissing,
			message: `spec.window.except: ConfigMap "holidays" has no key "de.ics" (or does not exist); until it is read, no allowed time remains: the plan is frozen`},
		{name: "a plan whose window names no calendar has no calendar condition",
			plan: freeze("nights", "shop"), at: start.Add(time.Hour), phase: plan.PhaseActive},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld("shop")
			w.calendars = c.calendars
			w.add(c.plan)
			w.pass(c.at.Add(-2 * time.Minute)) // created
			w.pass(c.at.Add(-time.Minute))     // ticked: the condition set
			w.events = nil
			w.pass(c.at)
			p := w.plans["nights"]
			if p.Status.Phase != c.phase {
				t.Errorf("phase %s, want %s (%s)", p.Status.Phase, c.phase, p.Status.Window)
			}
			got := cond(p, reconcile.ConditionCalendars)
			if got.Status != c.status || got.Reason != c.reason || got.Message != c.message {
				t.Errorf("condition %s %s %q, want %s %s %q", got.Status, got.Reason, got.Message, c.status, c.reason, c.message)
			}
			for _, e := range w.events {
				if strings.Contains(e, "Calendar") {
					t.Errorf("the second pass with the same calendars recorded %q, want nothing new", e)
				}
			}
		})
	}
}

// TestCalendarWarningOnce: a calendar that becomes unreadable is a Warning
// event once, not one per pass.
func TestCalendarWarningOnce(t *testing.T) {
	defer reconcile.SetCalendarReader(datesReader)()
	w := newWorld("shop")
	w.calendars = map[window.ConfigMapKeyRef][]byte{holidays: []byte("2026-12-24")}
	w.add(nightlyWithCalendar(false))
	at := time.Date(2026, 12, 20, 12, 0, 0, 0, berlin)
	w.pass(at)
	w.calendars = nil
	w.events = nil
	for i := range 3 {
		w.pass(at.Add(time.Duration(i+1) * time.Minute))
	}
	var warnings []string
	for _, e := range w.events {
		if strings.Contains(e, reconcile.ReasonCalendarMissing) {
			warnings = append(warnings, e)
		}
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "nights Warning CalendarMissing: spec.window.except: ConfigMap \"holidays\"") {
		t.Errorf("events %q, want one Warning CalendarMissing", warnings)
	}
}

// TestCalendarsThroughImport: the pass reads calendars with
// calendar.Import itself: a real all-day holiday lifts the nightly freeze
// on its night, and a file Import refuses keeps the freeze in force.
func TestCalendarsThroughImport(t *testing.T) {
	const ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:xmas-eve@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20261224\r\nDTEND;VALUE=DATE:20261225\r\nSUMMARY:Heiligabend\r\nEND:VEVENT\r\n" +
		"END:VCALENDAR\r\n"
	for _, c := range []struct {
		name   string
		text   string
		active bool
		reason string
	}{
		{"a holiday of a real calendar lifts the freeze on its night", ics, false, reconcile.ReasonCalendarsRead},
		{"a calendar Import refuses keeps the freeze in force", "BEGIN:VCALENDAR", true, reconcile.ReasonCalendarInvalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld("shop")
			w.calendars = map[window.ConfigMapKeyRef][]byte{holidays: []byte(c.text)}
			w.add(nightlyWithCalendar(false))
			at := time.Date(2026, 12, 24, 23, 0, 0, 0, berlin)
			w.pass(at)
			w.pass(at)
			p := w.plans["nights"]
			got := cond(p, reconcile.ConditionCalendars)
			if (p.Status.Phase == plan.PhaseActive) != c.active || got.Reason != c.reason {
				t.Errorf("phase %s, condition %s %q; want active %v, reason %s", p.Status.Phase, got.Reason, got.Message, c.active, c.reason)
			}
		})
	}
}

// TestCalendarsOnTheFirstPass: the pass that creates a plan (adopts one
// applied with kubectl) already honours its calendars: created on a
// holiday night, the plan does not start frozen for a pass.
func TestCalendarsOnTheFirstPass(t *testing.T) {
	defer reconcile.SetCalendarReader(datesReader)()
	w := newWorld("shop")
	w.calendars = map[window.ConfigMapKeyRef][]byte{holidays: []byte("2026-12-24")}
	w.add(nightlyWithCalendar(false))
	w.pass(time.Date(2026, 12, 24, 23, 0, 0, 0, berlin))
	p := w.plans["nights"]
	if p.Status.Phase == plan.PhaseActive {
		t.Errorf("created active on a holiday night; want it to wait for the next night")
	}
	if got := cond(p, reconcile.ConditionCalendars); got.Reason != reconcile.ReasonCalendarsRead {
		t.Errorf("condition %s %q, want CalendarsRead on the first pass", got.Reason, got.Message)
	}
}
