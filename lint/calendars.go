package lint

import (
	"fmt"
	"time"

	"github.com/telark/protectionplans/calendar"
	"github.com/telark/protectionplans/window"
)

// calendarOptions reads the calendars w's exceptions name, from the texts
// given, into window options, over the whole range the linter's queries
// look at (the horizon and the look-around on either side, and a day
// more, so that an event over either end stays whole). A calendar not
// given, or not readable, is a finding and subtracts nothing.
func (c *checker) calendarOptions(id string, w *window.Window) []window.Option {
	var opts []window.Option
	from, to := c.now.Add(-c.horizon-24*time.Hour), c.end.Add(c.horizon+24*time.Hour)
	for _, ref := range w.Calendars() {
		path := calendarPath(w.Spec(), ref)
		text, ok := c.calendars[ref]
		if !ok {
			c.add(Finding{Severity: Info, Code: CalendarNotGiven, Plans: []string{id}, Fields: []Field{{id, path}},
				Message: fmt.Sprintf("calendar %s/%s was not given to the linter: its dates were not subtracted, so findings about this plan's time may list freezes the calendar lifts (protectctl lint --calendar %s/%s=FILE)", ref.Name, ref.Key, ref.Name, ref.Key)})
			continue
		}
		occs, err := calendar.Import(text, w.Location(), from, to)
		if err != nil {
			c.add(Finding{Severity: Error, Code: CalendarUnreadable, Plans: []string{id}, Fields: []Field{{id, path}},
				Message: fmt.Sprintf("calendar %s/%s cannot be read: %v; the operator will not lift the freeze on its dates until it is fixed", ref.Name, ref.Key, err)})
			continue
		}
		ivs := make([]window.Interval, 0, len(occs))
		for _, o := range occs {
			if o.End.After(o.Start) {
				ivs = append(ivs, window.Interval{Start: o.Start, End: o.End})
			}
		}
		opts = append(opts, window.WithCalendar(ref, ivs))
	}
	return opts
}

// calendarPath is the field of the first exception that names ref.
func calendarPath(spec window.Spec, ref window.ConfigMapKeyRef) string {
	for i, e := range spec.Except {
		if e.Calendar != nil && e.Calendar.ConfigMapKeyRef == ref {
			return windowPath.Child("except").Index(i).Child("calendar").String()
		}
	}
	return windowPath.Child("except").String()
}
