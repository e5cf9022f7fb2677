package reconcile

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/calendar"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// ConditionCalendars reports whether the calendars a plan's window names
// (except: calendar) were read: True (reason CalendarsRead) when each was,
// False (reason CalendarMissing or CalendarInvalid) when one was not. A
// plan whose window names no calendar has no such condition.
//
// A calendar that cannot be read never lifts a freeze: the pass decides
// as if every doubt went against the change. In a window frozen during
// its intervals the calendar subtracts nothing (the freeze holds on its
// holidays too); in an allow window (freeze: outside) it covers the whole
// range the pass looks at, so no allowed time remains and the plan is
// frozen. A freeze that should have been lifted is visible (this
// condition, a Warning event, the plan's phase) and its owner can lift it
// by fixing the ConfigMap; a change let through on a day that should have
// been frozen cannot be taken back.
const ConditionCalendars = "CalendarsRead"

// The reasons of ConditionCalendars and of the Warning event a pass
// records when it becomes False.
const (
	ReasonCalendarsRead   = "CalendarsRead"
	ReasonCalendarMissing = "CalendarMissing"
	ReasonCalendarInvalid = "CalendarInvalid"
)

// calendarMargin widens the range a calendar is expanded over beyond the
// window's look-around: every query of one pass (Active, Ended and
// NextEdge at Now) looks no further than the look-around, and a day more
// keeps an event running over either end whole.
const calendarMargin = 24 * time.Hour

// CalendarReader expands the ICS text of a calendar into the intervals of
// its events that overlap [from, to), all-day events covering their date
// in zone. It is calendar.Import's contract, as exact intervals.
type CalendarReader func(ics []byte, zone *time.Location, from, to time.Time) ([]window.Interval, error)

// readCalendar is the reader passes use: calendar.Import, as exact
// intervals (tests swap it).
var readCalendar CalendarReader = importCalendar

func importCalendar(ics []byte, zone *time.Location, from, to time.Time) ([]window.Interval, error) {
	occ, err := calendar.Import(ics, zone, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]window.Interval, len(occ))
	for i, o := range occ {
		out[i] = window.Interval{Start: o.Start, End: o.End}
	}
	return out, nil
}

// calendars is what a pass made of its window's calendars: the options
// for window.Parse and the condition to set.
type calendars struct {
	opts []window.Option
	cond *metav1.Condition // nil when the window names no calendar
}

// resolveCalendars expands each calendar spec's window names from the
// text the embedder read, over the window's look-around of now and a day
// more. A calendar missing from texts, or one its reader refuses, is
// reported in the condition and resolved against the change (see
// ConditionCalendars).
func resolveCalendars(spec window.Spec, texts map[window.ConfigMapKeyRef][]byte, now time.Time) calendars {
	return resolveCalendarsBetween(spec, texts, now, now)
}

// resolveCalendarsBetween is resolveCalendars for every instant of
// [first, last]: a simulated run ticks at each edge between them.
func resolveCalendarsBetween(spec window.Spec, texts map[window.ConfigMapKeyRef][]byte, first, last time.Time) calendars {
	refs := window.Calendars(spec)
	if len(refs) == 0 {
		return calendars{}
	}
	w, err := window.Parse(spec)
	if err != nil {
		return calendars{} // Tick fails the plan on the same error
	}
	span := w.LookAround() + calendarMargin
	from, to := first.Add(-span), last.Add(span)
	var out calendars
	var missing, invalid []string
	for _, ref := range refs {
		text, ok := texts[ref]
		var ivs []window.Interval
		if ok {
			ivs, err = readCalendar(text, w.Location(), from, to)
		}
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("ConfigMap %q has no key %q (or does not exist)", ref.Name, ref.Key))
		case err != nil:
			invalid = append(invalid, fmt.Sprintf("ConfigMap %q, key %q: %v", ref.Name, ref.Key, err))
		}
		if !ok || err != nil {
			ivs = nil
			if w.Type() == window.Recurring && spec.Freeze == window.FreezeOutside {
				ivs = []window.Interval{{Start: from, End: to}}
			}
		}
		out.opts = append(out.opts, window.WithCalendar(ref, ivs))
	}
	out.cond = &metav1.Condition{Type: ConditionCalendars, Status: metav1.ConditionTrue, Reason: ReasonCalendarsRead,
		Message: fmt.Sprintf("read %d calendar(s)", len(refs))}
	if len(missing)+len(invalid) > 0 {
		out.cond.Status = metav1.ConditionFalse
		out.cond.Reason = ReasonCalendarInvalid
		if len(missing) > 0 {
			out.cond.Reason = ReasonCalendarMissing
		}
		effect := "the freeze holds on its dates too"
		if spec.Freeze == window.FreezeOutside {
			effect = "no allowed time remains: the plan is frozen"
		}
		out.cond.Message = "spec.window.except: " + strings.Join(append(missing, invalid...), "; ") + "; until it is read, " + effect
	}
	return out
}

// note sets the condition on p (which Tick returned) and returns the
// Warning event of a calendar that has just become unreadable.
func (c calendars) note(p *plan.ProtectionPlan, now time.Time) []Event {
	if c.cond == nil {
		meta.RemoveStatusCondition(&p.Status.Conditions, ConditionCalendars)
		return nil
	}
	before := meta.FindStatusCondition(p.Status.Conditions, ConditionCalendars)
	changed := before == nil || before.Status != c.cond.Status || before.Reason != c.cond.Reason || before.Message != c.cond.Message
	plan.SetCondition(p, *c.cond, now)
	if !changed || c.cond.Status == metav1.ConditionTrue {
		return nil
	}
	return []Event{{Reason: c.cond.Reason, Severity: Warning, Action: "Reconcile", Note: c.cond.Message}}
}
