package lint

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/telark/protectionplans/window"
)

// sched is one schedule of a recurring window, compiled alone (in the
// window's zone and validity period) so that it can be compared with the
// others.
type sched struct {
	i     int
	spec  window.Schedule
	path  string // spec.window.schedules[i]
	w     *window.Window
	cron  *cron.SpecSchedule // nil if robfig cannot read it (then no DST check)
	fires bool
}

// aloneLook is the look-around of a schedule compiled alone.
const aloneLook = 8 * 24 * time.Hour

// compile compiles each schedule of w alone and reports those whose cron
// never fires. The window parsed, so every schedule does.
func (c *checker) compile(id string, w *window.Window) []*sched {
	spec := w.Spec()
	var out []*sched
	for i, s := range spec.Schedules {
		alone := window.Spec{Type: window.Recurring, TimeZone: spec.TimeZone, Schedules: []window.Schedule{s}}
		// Without a validity period, Ended says only that the cron can
		// never fire.
		probe, err := window.Parse(alone)
		if err != nil {
			continue
		}
		alone.StartAt, alone.EndAt = spec.StartAt, spec.EndAt
		// Its occurrences are only compared within [now, now+horizon):
		// a short look-around (the longest duration is 168h) is enough,
		// and a year's would sweep three.
		sw, err := window.Parse(alone, window.WithLookAround(aloneLook))
		if err != nil {
			continue
		}
		sc := &sched{i: i, spec: s, path: windowPath.Child("schedules").Index(i).String(), w: sw,
			cron: parseCron(s.Cron), fires: !probe.Ended(c.now)}
		if !sc.fires {
			c.add(Finding{Severity: Error, Code: CronNeverFires, Plans: []string{id},
				Fields:  []Field{{id, sc.path + ".cron"}},
				Message: fmt.Sprintf("cron %q never fires: no day matches its day of month, month and day of week together; this schedule freezes nothing, fix its day or month", s.Cron)})
		}
		out = append(out, sc)
	}
	return out
}

// shadowed reports a schedule every occurrence of which, within the
// horizon, falls inside an occurrence of another: it adds nothing. Of
// two schedules that cover each other, the later one is reported.
func (c *checker) shadowed(id string, scheds []*sched) {
	occ := make([][]window.Interval, len(scheds))
	for k, s := range scheds {
		if s.fires {
			occ[k] = s.w.Occurrences(c.now, c.end)
		}
	}
	for a, s := range scheds {
		if len(occ[a]) == 0 {
			continue
		}
		for b, o := range scheds {
			if a == b || len(occ[b]) == 0 || !within(occ[a], occ[b]) || (b > a && within(occ[b], occ[a])) {
				continue
			}
			first := occ[a][0]
			c.add(Finding{Severity: Warning, Code: ScheduleShadowed, Plans: []string{id},
				Fields:   []Field{{id, s.path}, {id, o.path}},
				Instants: []time.Time{first.Start, first.End},
				Message: fmt.Sprintf("every occurrence of %s (%q for %s) in the next %s falls inside one of %s (%q for %s), the first from %s to %s: it adds nothing; remove it, or change its cron or duration if it was meant to add time",
					s.path, s.spec.Cron, s.spec.Duration, days(c.horizon), o.path, o.spec.Cron, o.spec.Duration, stamp(first.Start), stamp(first.End))})
			break
		}
	}
}

// within reports whether every interval of inner lies inside one of
// outer (both sorted and merged).
func within(inner, outer []window.Interval) bool {
	k := 0
	for _, iv := range inner {
		for k < len(outer) && !outer[k].End.After(iv.Start) && !outer[k].OpenEnd {
			k++
		}
		if k == len(outer) {
			return false
		}
		o := outer[k]
		if iv.Start.Before(o.Start) && !o.OpenStart {
			return false
		}
		if iv.End.After(o.End) && !o.OpenEnd || iv.OpenEnd && !o.OpenEnd {
			return false
		}
	}
	return true
}

// neverEnds reports a recurring window frozen without a break for longer
// than the horizon: occurrences that chain without a gap (a permanent
// freeze in disguise), or an allow window that does not open. An
// interval that merely runs over the horizon's end is not one.
func (c *checker) neverEnds(id string, w *window.Window) {
	if t := w.Type(); t == window.Permanent || t == window.TimeRange {
		return // a permanent window is meant to last; a time range ends
	}
	for _, iv := range w.Occurrences(c.now, c.end) {
		if iv.End.Sub(iv.Start) < c.horizon {
			continue
		}
		start := iv.Start
		if iv.OpenStart || start.Before(c.now) {
			start = c.now.In(w.Location())
		}
		// An open end lies beyond the look-ahead of the horizon: it
		// certainly lasts past the horizon, which is what to say.
		end, until := iv.End, "until"
		if iv.OpenEnd {
			end, until = c.end.In(w.Location()), "past"
		}
		msg := fmt.Sprintf("the occurrences of the window (%s) chain without a gap from %s %s %s (longer than the next %s): the freeze never ends; if that is meant, make the window permanent, else shorten a duration or space the crons so that each occurrence ends before the next starts",
			w.Describe(), stamp(start), until, stamp(end), days(c.horizon))
		if w.Spec().Freeze == window.FreezeOutside {
			msg = fmt.Sprintf("the allow window (%s) does not open from %s %s %s (longer than the next %s): the plan stays frozen; check its crons, its validity period and its exceptions",
				w.Describe(), stamp(start), until, stamp(end), days(c.horizon))
		}
		c.add(Finding{Severity: Warning, Code: WindowNeverEnds, Plans: []string{id},
			Fields:   []Field{{id, windowPath.Child("schedules").String()}},
			Instants: []time.Time{start, end}, Message: msg})
		return
	}
}

func days(d time.Duration) string {
	return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
}
