package window

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxExceptions is the most entries a window's except list takes. A
// calendar counts as one entry, however many events it holds.
const MaxExceptions = 500

var knownFreezes = []Freeze{FreezeDuring, FreezeOutside}

// checkFreeze refuses an allow window that is not recurring: a permanent
// window frozen outside itself would never freeze, and a time range frozen
// outside itself would freeze forever before and after it. Both are what
// a recurring allow window with a validity period says better.
func checkFreeze(spec *Spec, fldPath *field.Path) field.ErrorList {
	p := fldPath.Child("freeze")
	switch spec.Freeze {
	case "", FreezeDuring:
		return nil
	case FreezeOutside:
	default:
		return field.ErrorList{field.NotSupported(p, string(spec.Freeze), knownFreezes)}
	}
	switch spec.Type {
	case Permanent:
		return field.ErrorList{field.Invalid(p, string(spec.Freeze),
			"a permanent window has no outside: an allow window needs type recurring (its schedules are when changes are allowed)")}
	case TimeRange:
		return field.ErrorList{field.Invalid(p, string(spec.Freeze),
			"a time_range window frozen outside would freeze forever after endAt: use type recurring, with startAt and endAt as its validity period")}
	}
	return nil
}

// checkedExcept is what checkExcept learned: the exact intervals of the
// date and interval exceptions (before the zone is known for dates, their
// civil dates), the schedules, and the calendars named.
type checkedExcept struct {
	dates     []civilDate
	fixed     []Interval
	scheds    []schedule
	calendars []ConfigMapKeyRef
}

type civilDate struct {
	y int
	m time.Month
	d int
}

func checkExcept(except []Exception, fldPath *field.Path) (checkedExcept, field.ErrorList) {
	var c checkedExcept
	var errs field.ErrorList
	p := fldPath.Child("except")
	if len(except) > MaxExceptions {
		errs = append(errs, field.TooMany(p, len(except), MaxExceptions))
	}
	for i, e := range except {
		ip := p.Index(i)
		kinds := 0
		if e.Date != "" {
			kinds++
			d, err := time.Parse(time.DateOnly, e.Date)
			if err != nil {
				errs = append(errs, field.Invalid(ip.Child("date"), e.Date, "must be a date YYYY-MM-DD (2026-12-25)"))
			} else {
				c.dates = append(c.dates, civilDate{d.Year(), d.Month(), d.Day()})
			}
		}
		if e.StartAt != nil || e.EndAt != nil {
			kinds++
			errs = append(errs, checkExceptInterval(e, ip, &c)...)
		}
		if e.Schedule != nil {
			kinds++
			cr, d, serrs := checkSchedule(*e.Schedule, ip.Child("schedule"))
			errs = append(errs, serrs...)
			if len(serrs) == 0 {
				c.scheds = append(c.scheds, newSchedule(cr, d))
			}
		}
		if e.Calendar != nil {
			kinds++
			errs = append(errs, checkCalendarRef(e.Calendar.ConfigMapKeyRef, ip.Child("calendar", "configMapKeyRef"))...)
			c.calendars = append(c.calendars, e.Calendar.ConfigMapKeyRef)
		}
		switch {
		case kinds == 0:
			errs = append(errs, field.Required(ip, "needs one of date, startAt and endAt, schedule, calendar"))
		case kinds > 1:
			errs = append(errs, field.Invalid(ip, describeException(e, "UTC"), "must be exactly one of date, startAt and endAt, schedule, calendar"))
		}
	}
	return c, errs
}

func checkSchedule(s Schedule, p *field.Path) (*cron.SpecSchedule, time.Duration, field.ErrorList) {
	var errs field.ErrorList
	c, err := parseCron(s.Cron)
	if err != nil {
		errs = append(errs, field.Invalid(p.Child("cron"), s.Cron, err.Error()))
	}
	d, derr := checkDuration(s.Duration, p.Child("duration"))
	return c, d, append(errs, derr...)
}

func checkExceptInterval(e Exception, ip *field.Path, c *checkedExcept) field.ErrorList {
	switch {
	case e.StartAt == nil:
		return field.ErrorList{field.Required(ip.Child("startAt"), "an interval exception needs startAt and endAt")}
	case e.EndAt == nil:
		return field.ErrorList{field.Required(ip.Child("endAt"), "an interval exception needs startAt and endAt")}
	case !e.EndAt.After(e.StartAt.Time):
		return field.ErrorList{field.Invalid(ip.Child("endAt"), formatRFC3339(e.EndAt.Time),
			fmt.Sprintf("must be after startAt (%s)", formatRFC3339(e.StartAt.Time)))}
	}
	c.fixed = append(c.fixed, Interval{Start: e.StartAt.Time, End: e.EndAt.Time})
	return nil
}

// checkCalendarRef checks a ConfigMap name (a DNS subdomain) and key (what
// a ConfigMap's data takes).
func checkCalendarRef(r ConfigMapKeyRef, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if r.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "the name of the ConfigMap that holds the calendar"))
	} else if !isDNSSubdomain(r.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), r.Name, "must be a ConfigMap name: lower case letters, digits, '-' and '.', at most 253"))
	}
	if r.Key == "" {
		errs = append(errs, field.Required(p.Child("key"), "the key of the ConfigMap's data that holds the ICS text"))
	} else if !isConfigMapKey(r.Key) {
		errs = append(errs, field.Invalid(p.Child("key"), r.Key, "must be a ConfigMap key: letters, digits, '-', '_' and '.', at most 253"))
	}
	return errs
}

func isDNSSubdomain(s string) bool {
	if len(s) > 253 || s[0] == '-' || s[0] == '.' || s[len(s)-1] == '-' || s[len(s)-1] == '.' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func isConfigMapKey(s string) bool {
	if len(s) > 253 || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// exceptions is a window's compiled except list: the exact intervals of
// its dates, intervals and calendars, sorted and merged, and its schedules
// as one recurring set.
type exceptions struct {
	fixed []Interval // sorted, merged, never open
	rec   *recurring // nil without schedules
}

func compileExceptions(c checkedExcept, loc *time.Location, calendars map[ConfigMapKeyRef][]Interval) *exceptions {
	fixed := slices.Clone(c.fixed)
	for _, d := range c.dates {
		fixed = append(fixed, Interval{Start: firstInstantOf(d, loc), End: firstInstantOf(civilDate{d.y, d.m, d.d + 1}, loc)})
	}
	seen := map[ConfigMapKeyRef]bool{}
	for _, ref := range c.calendars {
		if !seen[ref] {
			seen[ref] = true
			for _, iv := range calendars[ref] {
				if iv.Start.Before(iv.End) {
					fixed = append(fixed, Interval{Start: iv.Start, End: iv.End})
				}
			}
		}
	}
	e := &exceptions{fixed: mergeIntervals(fixed)}
	if len(c.scheds) > 0 {
		e.rec = compileRecurring(newZone(loc), c.scheds)
	}
	return e
}

// mergeIntervals sorts exact intervals and merges those that overlap or
// touch.
func mergeIntervals(ivs []Interval) []Interval {
	slices.SortFunc(ivs, func(a, b Interval) int { return a.Start.Compare(b.Start) })
	var out []Interval
	for _, iv := range ivs {
		if n := len(out); n > 0 && !iv.Start.After(out[n-1].End) {
			if iv.End.After(out[n-1].End) {
				out[n-1].End = iv.End
			}
			continue
		}
		out = append(out, iv)
	}
	return out
}

// covers reports whether t lies in an exception: a binary search in the
// fixed intervals and the recurring exceptions' Active. It allocates
// nothing.
func (e *exceptions) covers(t time.Time) bool {
	lo, hi := 0, len(e.fixed)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if !e.fixed[mid].Start.After(t) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo > 0 && t.Before(e.fixed[lo-1].End) {
		return true
	}
	return e.rec != nil && e.rec.active(t.Unix(), int64(t.Nanosecond()))
}

// nextEdge reports whether t lies in an exception and returns the first
// instant after t, within look, at which that may change: the next start
// or end of the fixed intervals (a binary search) or of the recurring
// exceptions (their search); found is false when there is none within
// look. It allocates nothing.
func (e *exceptions) nextEdge(t time.Time, look time.Duration) (at time.Time, in, found bool) {
	i := sort.Search(len(e.fixed), func(i int) bool { return e.fixed[i].End.After(t) })
	if i < len(e.fixed) {
		iv := e.fixed[i]
		if iv.Start.After(t) {
			at = iv.Start
		} else {
			at, in = iv.End, true
		}
		found = !at.After(t.Add(look))
	}
	if e.rec != nil {
		r := e.rec.nextEdge(t, look)
		in = in || r.inside
		if r.ok && (!found || r.at.Before(at)) {
			at, found = r.at, true
		}
	}
	return at, in, found
}

// in returns the exceptions that meet [lo, hi), sorted and merged; a
// recurring exception running past either bound is cut there, which does
// not matter to a caller that only asks about [lo, hi).
func (e *exceptions) in(lo, hi time.Time) []Interval {
	var out []Interval
	i, _ := slices.BinarySearchFunc(e.fixed, lo, func(iv Interval, t time.Time) int {
		if !iv.End.After(t) {
			return -1
		}
		return 1
	})
	for ; i < len(e.fixed) && e.fixed[i].Start.Before(hi); i++ {
		out = append(out, e.fixed[i])
	}
	if e.rec != nil {
		for _, iv := range e.rec.occurrences(lo, hi, 0) {
			out = append(out, Interval{Start: iv.Start, End: iv.End})
		}
		out = mergeIntervals(out)
	}
	return out
}

// firstInstantOf returns the first instant whose date in loc is d: local
// midnight (the first reading of it, when it is read twice), or the
// transition that skips it. Those are the only instants a date can start
// at, so the earliest candidate that reads d is the answer.
func firstInstantOf(d civilDate, loc *time.Location) time.Time {
	naive := time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC)
	want := naive.Unix()
	var cands []time.Time
	for _, probe := range [...]int64{want - 2*secondsPerDay, want, want + 2*secondsPerDay} {
		at := time.Unix(probe, 0).In(loc)
		_, off := at.Zone()
		start, end := at.ZoneBounds()
		cands = append(cands, time.Unix(want-int64(off), 0), start, end)
	}
	var best time.Time
	for _, c := range cands {
		if !c.IsZero() && sameDate(c.In(loc), naive) && (best.IsZero() || c.Before(best)) {
			best = c
		}
	}
	if best.IsZero() { // no zone data reads the date (cannot happen for a valid date)
		return time.Date(d.y, d.m, d.d, 0, 0, 0, 0, loc)
	}
	return best
}

func sameDate(a, b time.Time) bool {
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// subtract returns a minus b: a's intervals (sorted, merged, maybe open)
// with every point of b's (sorted, exact) taken out. A piece keeps the
// open side it shares with its interval; a side cut by b is exact.
func subtract(a, b []Interval) []Interval {
	var out []Interval
	j := 0
	for _, iv := range a {
		for j < len(b) && !b[j].End.After(iv.Start) {
			j++
		}
		cur := iv
		for k := j; k < len(b) && b[k].Start.Before(cur.End); k++ {
			if b[k].Start.After(cur.Start) {
				out = append(out, Interval{Start: cur.Start, End: b[k].Start, OpenStart: cur.OpenStart})
			}
			if !b[k].End.Before(cur.End) {
				cur = Interval{}
				break
			}
			if b[k].End.After(cur.Start) {
				cur.Start, cur.OpenStart = b[k].End, false
			}
		}
		if cur.Start.Before(cur.End) {
			out = append(out, cur)
		}
	}
	return out
}

// complement returns the gaps of a (sorted, merged) inside [lo, hi): the
// first gap is open at lo when openLo says lo is a look-around bound and
// not an edge, the last open at hi likewise.
func complement(a []Interval, lo, hi time.Time, openLo, openHi bool) []Interval {
	var out []Interval
	at, atOpen := lo, openLo
	for _, iv := range a {
		if !iv.End.After(at) {
			continue
		}
		if !iv.Start.Before(hi) {
			break
		}
		if iv.Start.After(at) {
			out = append(out, Interval{Start: at, End: iv.Start, OpenStart: atOpen})
		}
		at, atOpen = iv.End, false
	}
	if at.Before(hi) {
		out = append(out, Interval{Start: at, End: hi, OpenStart: atOpen, OpenEnd: openHi})
	}
	return out
}
