package window

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// dayPlan is the merged union of the occurrences that start on one local
// day, in nanoseconds after that day's local midnight, for a day without a
// zone transition. Spans may end days later (durations reach 168h).
type dayPlan struct {
	spans  []span
	maxEnd int64
	// starts are the day's distinct starts, ascending, each with the
	// longest duration starting then: what a day with a zone transition
	// maps to instants (source.addRuns).
	starts []dayStart
}

// dayStart is a start, in seconds after local midnight, and the longest
// duration starting then, in nanoseconds.
type dayStart struct {
	sec, dur int64
}

// covers reports whether rel (nanoseconds after the day's midnight) lies in
// one of the plan's spans: a binary search for the last span starting at or
// before rel.
func (p *dayPlan) covers(rel int64) bool {
	if rel < 0 || rel >= p.maxEnd {
		return false
	}
	lo, hi := 0, len(p.spans)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if p.spans[mid].start <= rel {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo > 0 && rel < p.spans[lo-1].end
}

// recurring is a compiled recurring window (without its validity period).
type recurring struct {
	z        zone
	scheds   []schedule
	maxDur   int64 // nanoseconds
	backDays int64 // days before t's wall day that may hold a start covering t
	canFire  bool
	planOf   [dayKeys]uint16 // (month, day, weekday) -> index in plans
	plans    []dayPlan       // plans[0] is the empty plan
}

func compileRecurring(z zone, scheds []schedule) *recurring {
	r := &recurring{z: z, scheds: scheds}
	for i := range scheds {
		r.maxDur = max(r.maxDur, scheds[i].dur)
		r.canFire = r.canFire || scheds[i].canFire()
	}
	r.backDays = r.maxDur/nsPerDay + 2
	r.compilePlans()
	return r
}

// dayClassSpans groups schedules that fire on the same days and merges
// their daily occurrences.
type dayClassSpans struct {
	sched  *schedule // any member: they all fire on the same days
	spans  []span
	starts []dayStart
}

func (r *recurring) classes() []dayClassSpans {
	var out []dayClassSpans
	index := map[[4]uint64]int{}
	for i := range r.scheds {
		s := &r.scheds[i]
		k := s.dayClass()
		ci, ok := index[k]
		if !ok {
			ci = len(out)
			index[k] = ci
			out = append(out, dayClassSpans{sched: s})
		}
		out[ci].spans = mergeSpans(append(out[ci].spans, s.daySpans()...))
		for _, m := range s.starts {
			out[ci].starts = append(out[ci].starts, dayStart{int64(m) * 60, s.dur})
		}
	}
	return out
}

// compilePlans computes one dayPlan per distinct set of firing schedules.
// A day's set depends only on its month, day of month and weekday: it is
// the classes accepting the month, intersected with those accepting the
// (day of month, weekday) pair. Sets are bitsets over the classes; each
// distinct pair of the two halves is looked up once.
func (r *recurring) compilePlans() {
	classes := r.classes()
	n := (len(classes) + 63) / 64
	months, monthOf := dedupe(13, n, func(m int, out []uint64) {
		classBits(classes, out, func(s *schedule) bool { return s.month&(1<<m) != 0 })
	})
	days, dayOf := dedupe(32*7, n, func(k int, out []uint64) {
		classBits(classes, out, func(s *schedule) bool { return s.daysMatch(k/7, k%7) })
	})
	r.plans = []dayPlan{{}}
	ids := map[string]uint16{}
	pair := make([]int32, len(months)*len(days))
	for i := range pair {
		pair[i] = -1
	}
	mask, key := make([]uint64, n), make([]byte, 8*n)
	for m := 1; m <= 12; m++ {
		for dom := 1; dom <= daysIn[m]; dom++ {
			for wd := range 7 {
				p := &pair[monthOf[m]*len(days)+dayOf[dom*7+wd]]
				if *p < 0 {
					*p = int32(r.planFor(classes, ids, months[monthOf[m]], days[dayOf[dom*7+wd]], mask, key))
				}
				r.planOf[dayKey(m, dom, wd)] = uint16(*p)
			}
		}
	}
}

// planFor returns the plan of the classes in both sets, adding it if new.
func (r *recurring) planFor(classes []dayClassSpans, ids map[string]uint16, a, b, mask []uint64, key []byte) uint16 {
	empty := true
	for w := range mask {
		mask[w] = a[w] & b[w]
		empty = empty && mask[w] == 0
		binary.LittleEndian.PutUint64(key[8*w:], mask[w])
	}
	if empty {
		return 0
	}
	id, ok := ids[string(key)]
	if !ok {
		id = uint16(len(r.plans))
		ids[string(key)] = id
		r.plans = append(r.plans, newDayPlan(classes, mask))
	}
	return id
}

// classBits sets the bit of every class whose schedule satisfies ok.
func classBits(classes []dayClassSpans, out []uint64, ok func(*schedule) bool) {
	for ci := range classes {
		if ok(classes[ci].sched) {
			out[ci/64] |= 1 << (ci % 64)
		}
	}
}

// dedupe computes n-word bitsets for the values 0..count-1 with fill and
// returns the distinct ones and, for each value, the index of its bitset.
func dedupe(count, n int, fill func(v int, out []uint64)) ([][]uint64, []int) {
	var sets [][]uint64
	index := make([]int, count)
	seen := map[string]int{}
	key := make([]byte, 8*n)
	all := make([]uint64, count*n)
	for v := range count {
		set := all[v*n : (v+1)*n]
		fill(v, set)
		for w, x := range set {
			binary.LittleEndian.PutUint64(key[8*w:], x)
		}
		i, ok := seen[string(key)]
		if !ok {
			i = len(sets)
			seen[string(key)] = i
			sets = append(sets, set)
		}
		index[v] = i
	}
	return sets, index
}

func newDayPlan(classes []dayClassSpans, mask []uint64) dayPlan {
	var spans []span
	var starts []dayStart
	for ci := range classes {
		if mask[ci/64]&(1<<(ci%64)) != 0 {
			spans = append(spans, classes[ci].spans...)
			starts = append(starts, classes[ci].starts...)
		}
	}
	spans = mergeSpans(spans)
	p := dayPlan{spans: spans, starts: longestStarts(starts)}
	for _, s := range spans {
		p.maxEnd = max(p.maxEnd, s.end)
	}
	return p
}

// longestStarts sorts starts and keeps one per second, the longest: two
// occurrences with one start cover what the longer one does.
func longestStarts(starts []dayStart) []dayStart {
	slices.SortFunc(starts, func(a, b dayStart) int { return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(b.dur, a.dur)) })
	return slices.CompactFunc(starts, func(a, b dayStart) bool { return a.sec == b.sec })
}

// plan returns the plan of wall day d.
func (r *recurring) plan(d int64) *dayPlan {
	m, dom, wd := civil(d)
	return &r.plans[r.planOf[dayKey(m, dom, wd)]]
}

// active reports whether an occurrence covers the instant (sec, ns). It
// looks at the wall days whose starts can reach it: from the day after t's
// (a repeated hour at midnight) back by the longest duration. It allocates
// nothing.
func (r *recurring) active(sec, ns int64) bool {
	c := newCursor(r.z, sec)
	dt := floorDiv(sec+c.seg.off, secondsPerDay)
	for d := dt + 1; d >= dt-r.backDays; d-- {
		p := r.plan(d)
		if len(p.spans) == 0 {
			continue
		}
		u, clean := c.cleanDay(d)
		if !clean {
			if r.coveredSlow(d, sec, ns) {
				return true
			}
			continue
		}
		if p.covers((sec-u)*nsPerSecond + ns) {
			return true
		}
	}
	return false
}

// coveredSlow is active's path for a day with a zone transition: it maps
// every start of the day to its instants (none in a skipped hour, two in a
// repeated one).
func (r *recurring) coveredSlow(d, sec, ns int64) bool {
	var buf [8]segment
	periods := r.z.periods(d, buf[:0])
	month, dom, wd := civil(d)
	w0 := d * secondsPerDay
	for i := range r.scheds {
		s := &r.scheds[i]
		if !s.firesOn(month, dom, wd) {
			continue
		}
		for _, m := range s.starts {
			us, n := instants(w0+int64(m)*60, periods)
			for _, u := range us[:n] {
				if rel := (sec-u)*nsPerSecond + ns; rel >= 0 && rel < s.dur {
					return true
				}
			}
		}
	}
	return false
}

// appendDay appends the occurrences starting on wall day d, in nanoseconds
// relative to the instant base, to out. It handles any day, transition or
// not.
func (r *recurring) appendDay(d, base int64, out []span) []span {
	var buf [8]segment
	periods := r.z.periods(d, buf[:0])
	month, dom, wd := civil(d)
	w0 := d * secondsPerDay
	for i := range r.scheds {
		s := &r.scheds[i]
		if !s.firesOn(month, dom, wd) {
			continue
		}
		for _, m := range s.starts {
			us, n := instants(w0+int64(m)*60, periods)
			for _, u := range us[:n] {
				st := (u - base) * nsPerSecond
				out = append(out, span{st, st + s.dur})
			}
		}
	}
	return out
}

// wallDay returns the wall day instant u reads.
func (r *recurring) wallDay(u int64) int64 {
	return floorDiv(u+r.z.at(u).off, secondsPerDay)
}
