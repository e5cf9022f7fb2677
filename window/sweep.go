package window

import "time"

// source yields a recurring window's occurrences in order of start, as
// spans in nanoseconds relative to the instant base. A day without a zone
// transition yields its precomputed plan, shifted; a block of consecutive
// days with transitions is enumerated start by start and sorted together,
// because a repeated hour at midnight interleaves two days' starts.
type source struct {
	r            *recurring
	c            cursor
	base         int64
	day, lastDay int64
	cur          []span
	shift        int64
	pos          int
	scratch      []span
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
		day:     r.wallDay(from) - 1,
		lastDay: r.wallDay(to) + 1,
	}
}

func (s *source) next() (span, bool) {
	for s.pos >= len(s.cur) {
		if s.day > s.lastDay {
			return span{}, false
		}
		s.fill()
	}
	sp := s.cur[s.pos]
	s.pos++
	return span{sp.start + s.shift, sp.end + s.shift}, true
}

func (s *source) fill() {
	d := s.day
	s.pos, s.cur = 0, nil
	if len(s.r.plan(d).spans) == 0 {
		s.day++
		return
	}
	if u, clean := s.c.cleanDay(d); clean {
		s.cur, s.shift = s.r.plan(d).spans, (u-s.base)*nsPerSecond
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
	s.scratch = s.scratch[:0]
	for x := d; x < end; x++ {
		s.scratch = s.r.appendDay(x, s.base, s.scratch)
	}
	s.cur, s.shift = mergeSpans(s.scratch), 0
	s.day = end
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
