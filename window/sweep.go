package window

import (
	"math"
	"time"
)

// source yields a recurring window's occurrences in order of start, as
// spans in nanoseconds relative to the instant base. A day without a zone
// transition yields its precomputed plan, shifted, from the first span
// that reaches lo (found by binary search: the plan's spans are disjoint,
// so their ends ascend too). A block of consecutive days with transitions
// yields the starts of each day read with each offset (runs, in order of
// start each), merged: a repeated hour at midnight interleaves two days'
// starts. The runs live in the source itself, so that a query allocates
// nothing; a block needing more runs than it holds, which real zone data
// does not, is enumerated into scratch and sorted instead.
type source struct {
	r            *recurring
	c            cursor
	base, lo     int64
	day, lastDay int64
	cur          []span
	shift        int64
	pos          int
	runs         [maxRuns]startRun
	nruns        int
	scratch      []span
}

// maxRuns bounds the runs of a block of days with transitions: a day is
// read with one or two offsets (three where a rebuilt zone period splits
// one), and a block rarely holds more than two days.
const maxRuns = 16

// startRun is the starts of a wall day that one zone offset reads, in
// order: at is the instant of the day's wall midnight read with that
// offset, in nanoseconds relative to base.
type startRun struct {
	starts []dayStart
	at     int64
}

// newSource covers the starts from lo minus the longest duration (so that
// every occurrence reaching lo is seen) through hi; lo and hi are
// nanoseconds relative to base.
func (r *recurring) newSource(base, lo, hi int64) source {
	from := base + floorDiv(lo-r.maxDur, nsPerSecond)
	to := base + floorDiv(hi, nsPerSecond)
	return source{
		r:       r,
		c:       newCursor(r.z, from),
		base:    base,
		lo:      lo,
		day:     r.wallDay(from) - 1,
		lastDay: r.wallDay(to) + 1,
	}
}

func (s *source) next() (span, bool) {
	for {
		if s.nruns > 0 {
			return s.pop(), true
		}
		if s.pos < len(s.cur) {
			sp := s.cur[s.pos]
			s.pos++
			return span{sp.start + s.shift, sp.end + s.shift}, true
		}
		if s.day > s.lastDay {
			return span{}, false
		}
		s.fill()
	}
}

// pop takes the earliest start of the runs.
func (s *source) pop() span {
	best, bestAt := 0, s.runs[0].at+s.runs[0].starts[0].sec*nsPerSecond
	for i := 1; i < s.nruns; i++ {
		if at := s.runs[i].at + s.runs[i].starts[0].sec*nsPerSecond; at < bestAt {
			best, bestAt = i, at
		}
	}
	run := &s.runs[best]
	sp := span{bestAt, bestAt + run.starts[0].dur}
	run.starts = run.starts[1:]
	if len(run.starts) == 0 {
		s.nruns--
		s.runs[best] = s.runs[s.nruns]
		s.runs[s.nruns] = startRun{}
	}
	return sp
}

func (s *source) fill() {
	d := s.day
	s.pos, s.cur = 0, nil
	p := s.r.plan(d)
	if len(p.spans) == 0 {
		s.day++
		return
	}
	if u, clean := s.c.cleanDay(d); clean {
		s.cur, s.shift = p.spans, (u-s.base)*nsPerSecond
		s.pos = firstReaching(p.spans, s.lo-s.shift)
		s.day++
		return
	}
	end := d + 1
	for ; end <= s.lastDay && end-d < 8; end++ {
		if len(s.r.plan(end).spans) == 0 {
			continue
		}
		if _, clean := s.c.cleanDay(end); clean {
			break
		}
	}
	s.day = end
	for x := d; x < end; x++ {
		if !s.addRuns(x) {
			s.fillSorted(d, end)
			return
		}
	}
}

// firstReaching returns the index of the first of the disjoint, ascending
// spans that ends at or after rel. A span ending before lo cannot change a
// run reaching lo: a span merging with it starts before lo too.
func firstReaching(spans []span, rel int64) int {
	lo, hi := 0, len(spans)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if spans[mid].end < rel {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// addRuns adds the runs of wall day d: for each zone period that reads
// some of its wall times, the starts it reads, found by binary search
// (wall times ascend with instants within a period), less those that
// cannot reach lo. It reports false when the runs do not fit.
func (s *source) addRuns(d int64) bool {
	starts := s.r.plan(d).starts
	if len(starts) == 0 {
		return true
	}
	var buf [8]segment
	w0 := d * secondsPerDay
	for _, seg := range s.r.z.periods(d, buf[:0]) {
		at := (w0 - seg.off - s.base) * nsPerSecond
		// The starts read in seg: instants w0+sec-off in [seg.start,
		// seg.end), and reaching lo: at+sec*ns+maxDur >= lo.
		from := floorDiv(s.lo-s.r.maxDur-at, nsPerSecond)
		if seg.start != math.MinInt64 {
			from = max(from, seg.start-(w0-seg.off))
		}
		i := searchStarts(starts, from)
		j := len(starts)
		if seg.end != math.MaxInt64 {
			j = searchStarts(starts, seg.end-(w0-seg.off))
		}
		if i >= j {
			continue
		}
		if s.nruns == len(s.runs) {
			return false
		}
		s.runs[s.nruns] = startRun{starts: starts[i:j], at: at}
		s.nruns++
	}
	return true
}

// searchStarts returns the index of the first start at or after sec.
func searchStarts(starts []dayStart, sec int64) int {
	lo, hi := 0, len(starts)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if starts[mid].sec < sec {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// fillSorted enumerates the occurrences starting on wall days d to end-1
// and sorts them: the fallback for a block whose runs do not fit.
func (s *source) fillSorted(d, end int64) {
	s.nruns = 0
	s.runs = [maxRuns]startRun{}
	s.scratch = s.scratch[:0]
	for x := d; x < end; x++ {
		s.scratch = s.r.appendDay(x, s.base, s.scratch)
	}
	s.cur, s.shift, s.pos = mergeSpans(s.scratch), 0, 0
}

// runner merges a source's spans into the window's intervals. Starts after
// hor are not merged: a run whose end lies beyond hor is open.
type runner struct {
	src     source
	hor     int64
	pending span
	has     bool
}

func (rn *runner) pull() (span, bool) {
	if rn.has {
		rn.has = false
		return rn.pending, true
	}
	return rn.src.next()
}

func (rn *runner) push(s span) { rn.pending, rn.has = s, true }

// next returns the next merged run starting at or before hor; open reports
// that it runs past hor, where its end is unknown.
func (rn *runner) next() (run span, open, ok bool) {
	run, ok = rn.pull()
	if !ok || run.start > rn.hor {
		if ok {
			rn.push(run)
		}
		return span{}, false, false
	}
	for {
		nx, more := rn.pull()
		if !more {
			break
		}
		if nx.start > rn.hor || nx.start > run.end {
			rn.push(nx)
			break
		}
		run.end = max(run.end, nx.end)
	}
	return run, run.end > rn.hor, true
}

// instant converts nanoseconds relative to base back to a time.
func instant(base, rel int64) time.Time { return time.Unix(base, rel) }

// edge is the answer of nextEdge: the first change after the instant asked
// about. inside reports that the instant is in an occurrence (the edge is
// then an end); ok is false when the edge lies beyond the look-ahead.
type edge struct {
	at         time.Time
	inside, ok bool
}

// nextEdge finds the first start or end strictly after t within look.
func (r *recurring) nextEdge(t time.Time, look time.Duration) edge {
	base, tr := t.Unix(), int64(t.Nanosecond())
	hor := tr + int64(look)
	rn := runner{src: r.newSource(base, tr, hor), hor: hor}
	for {
		run, open, ok := rn.next()
		switch {
		case !ok:
			return edge{}
		case run.start > tr:
			return edge{at: instant(base, run.start), ok: true}
		case run.end > tr && open:
			return edge{inside: true}
		case run.end > tr:
			return edge{at: instant(base, run.end), inside: true, ok: true}
		}
	}
}

// containing returns the merged interval containing t, looking back and
// ahead by look.
func (r *recurring) containing(t time.Time, look time.Duration) (Interval, bool) {
	base, tr := t.Unix(), int64(t.Nanosecond())
	lo, hor := tr-int64(look), tr+int64(look)
	rn := runner{src: r.newSource(base, lo, hor), hor: hor}
	for {
		run, open, ok := rn.next()
		if !ok || run.start > tr {
			return Interval{}, false
		}
		if run.end > tr {
			return toInterval(base, run, lo, hor, open), true
		}
	}
}

// occurrences returns the merged intervals meeting [from, to), looking back
// from from and ahead of to by look.
func (r *recurring) occurrences(from, to time.Time, look time.Duration) []Interval {
	base, f := from.Unix(), int64(from.Nanosecond())
	e := (to.Unix()-base)*nsPerSecond + int64(to.Nanosecond())
	lo, hor := f-int64(look), e+int64(look)
	rn := runner{src: r.newSource(base, lo, hor), hor: hor}
	var out []Interval
	for {
		run, open, ok := rn.next()
		if !ok || run.start >= e {
			return out
		}
		if run.end > f {
			out = append(out, toInterval(base, run, lo, hor, open))
		}
	}
}

func toInterval(base int64, run span, lo, hor int64, open bool) Interval {
	iv := Interval{Start: instant(base, run.start), End: instant(base, run.end)}
	if run.start < lo {
		iv.Start, iv.OpenStart = instant(base, lo), true
	}
	if open {
		iv.End, iv.OpenEnd = instant(base, hor), true
	}
	return iv
}
