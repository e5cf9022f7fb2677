package calendar

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teambition/rrule-go"
)

// starts is the start of every instance of ev that may overlap the
// range: DTSTART (always an instance, as calendar programs treat it),
// the RRULE's instances and the RDATEs, less the EXDATEs, sorted.
//
// General approach: rrule-go expands the rule on a floating clock (wall
// readings as UTC times), so that BYDAY, BYHOUR and the rest read the
// event's own clock, and each reading is then placed in the event's zone
// (zone.instant). The expansion is bounded: it stops two days (any
// offset) past the range's end, a rule without UNTIL or COUNT included,
// and no rule may produce more than MaxExpansion instances before that.
func (im *importer) starts(ev *event) ([]time.Time, error) {
	out := []time.Time{ev.start}
	if ev.rrule != "" {
		more, err := im.expand(ev)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	out = append(out, ev.rdates...)
	out = slices.DeleteFunc(out, func(t time.Time) bool {
		if ev.exdates[t.UnixNano()] {
			return true
		}
		w := ev.z.wall(t)
		return ev.exdays[time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, time.UTC)]
	})
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(out, time.Time.Equal), nil
}

// expand lists the rule's instances from DTSTART to just past the range.
func (im *importer) expand(ev *event) ([]time.Time, error) {
	opt, err := ev.ruleOption()
	if err != nil {
		return nil, err
	}
	// Instances that end before the range are skipped; one that starts
	// at low may still reach it.
	low := ev.z.wall(im.from).AddDate(0, 0, -ev.length.days-2).Add(-ev.length.exact)
	high := ev.z.wall(im.to).Add(48 * time.Hour)
	if opt.Until.IsZero() || opt.Until.After(high) {
		// Without it rrule-go ends 292 years after DTSTART (the longest
		// time.Duration), silently.
		opt.Until = high
	}
	rule, err := rrule.NewRRule(*opt)
	if err != nil {
		return nil, ev.fail("RRULE", 0, ev.rrule, err.Error())
	}
	var out []time.Time
	next := rule.Iterator()
	for n := 0; ; n++ {
		w, ok := next()
		if !ok || w.After(high) {
			return out, nil
		}
		if n == MaxExpansion {
			return nil, &LimitError{Line: ev.line("RRULE", 0), UID: ev.uid, Property: "RRULE",
				What: "instances from DTSTART to the end of the range", Limit: MaxExpansion}
		}
		if !w.Before(low) {
			out = append(out, ev.z.instant(w))
		}
	}
}

// ruleOption reads the RRULE with rrule-go, except UNTIL, which it reads
// itself: rrule-go would take a floating UNTIL as UTC, and an UNTIL in
// UTC must be moved onto the event's clock before a floating expansion.
func (ev *event) ruleOption() (*rrule.ROption, error) {
	var kept []string
	until := ""
	for _, part := range strings.Split(ev.rrule, ";") {
		k, v, _ := strings.Cut(part, "=")
		if strings.EqualFold(k, "UNTIL") {
			until = v
			continue
		}
		kept = append(kept, strings.ToUpper(k)+"="+v)
	}
	opt, err := rrule.StrToROption(strings.Join(kept, ";"))
	if err != nil {
		return nil, ev.fail("RRULE", 0, ev.rrule, err.Error())
	}
	if opt.Interval < 0 || opt.Count < 0 {
		return nil, ev.fail("RRULE", 0, ev.rrule, "INTERVAL and COUNT must be positive")
	}
	if never(opt) {
		return nil, ev.fail("RRULE", 0, ev.rrule, "never occurs: no month of BYMONTH has a day of BYMONTHDAY")
	}
	opt.Dtstart = ev.z.wall(ev.start)
	if until != "" {
		v, err := parseValue(until)
		if err != nil {
			return nil, ev.fail("RRULE", 0, ev.rrule, fmt.Sprintf("UNTIL %q: %v", until, err))
		}
		switch {
		case v.utc:
			opt.Until = ev.z.wall(v.wall) // v.wall is the UTC instant
		case v.date && !ev.allDay:
			// A date ends a timed series after that whole day.
			opt.Until = v.wall.Add(24*time.Hour - time.Second)
		default:
			opt.Until = v.wall
		}
	}
	return opt, nil
}

// daysIn is the most days each month can have.
var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// never reports a rule whose BYMONTHDAY no month of its BYMONTH has
// (February 30). rrule-go would search such a rule year by year to the
// year 9999 for an instance (up to half a second); other impossible
// combinations (BYYEARDAY=366 with BYMONTH=1) still cost that, and
// MaxRules bounds how often.
func never(opt *rrule.ROption) bool {
	if len(opt.Bymonthday) == 0 || len(opt.Bymonth) == 0 {
		return false
	}
	for _, m := range opt.Bymonth {
		if m < 1 || m > 12 {
			return false // rrule-go refuses it
		}
		for _, d := range opt.Bymonthday {
			if d != 0 && max(d, -d) <= daysIn[m] {
				return false
			}
		}
	}
	return true
}
