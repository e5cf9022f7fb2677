package window

import "time"

// The set operations of allow windows and exceptions.
//
// General approach: a query over a range works in the known range
// [lo, hi), the range widened by the look-around. It lists the intervals
// the window's type describes there (the raw occurrences of a recurring
// window, the time range, the permanent interval), each cut to [lo, hi)
// and marked open where cut; subtracts the exceptions that meet [lo, hi)
// (exact intervals: dates, intervals, calendar events, and the runs of the
// exception schedules); and for an allow window takes the complement
// inside the validity period cut to [lo, hi). Every edge inside [lo, hi)
// is then exact; only a side at lo or hi is open. Active needs none of
// this: it combines three point tests.

// shaped reports whether the window needs the set operations.
func (w *Window) shaped() bool { return w.outside || w.exc != nil }

// known returns the intervals of activity that meet [lo, hi), sorted,
// merged and cut to [lo, hi), a side at lo or hi open unless it is an
// exact edge there. The parts are read one nanosecond wider on each side,
// so that an edge right at lo or hi is seen as one.
func (w *Window) known(lo, hi time.Time) []Interval {
	if !lo.Before(hi) {
		return nil
	}
	return cut(w.parts(lo.Add(-1), hi.Add(1)), lo, hi)
}

// parts combines the parts over [lo, hi).
func (w *Window) parts(lo, hi time.Time) []Interval {
	var base []Interval
	switch {
	case w.rec != nil:
		base = w.rec.occurrences(lo, hi, 0)
	case w.hasEnd:
		base = []Interval{{Start: w.start, End: w.end}}
	default:
		base = []Interval{{Start: w.start, End: hi, OpenEnd: true, OpenStart: !w.hasStart}}
	}
	base = cut(base, lo, hi)
	var exc []Interval
	if w.exc != nil {
		exc = w.exc.in(lo, hi)
	}
	out := subtract(base, exc)
	if !w.outside {
		if w.rec != nil {
			for i := range out {
				out[i] = w.clip(out[i])
			}
			out = cut(out, lo, hi)
		}
		return out
	}
	l, openL := lo, true
	if w.hasStart && !w.start.Before(lo) {
		l, openL = w.start, false
	}
	h, openH := hi, true
	if w.hasEnd && !w.end.After(hi) {
		h, openH = w.end, false
	}
	if !l.Before(h) {
		return nil
	}
	return complement(out, l, h, openL, openH)
}

// cut cuts intervals to [lo, hi), marking a side cut open, and drops
// those outside it.
func cut(ivs []Interval, lo, hi time.Time) []Interval {
	out := ivs[:0]
	for _, iv := range ivs {
		if !iv.Start.Before(hi) || !iv.End.After(lo) || !iv.Start.Before(iv.End) {
			continue
		}
		if iv.Start.Before(lo) || (iv.OpenStart && iv.Start.Equal(lo)) {
			iv.Start, iv.OpenStart = lo, true
		}
		if iv.End.After(hi) || (iv.OpenEnd && iv.End.Equal(hi)) {
			iv.End, iv.OpenEnd = hi, true
		}
		out = append(out, iv)
	}
	return out
}

// shapedNextEdge is NextEdge for a window with exceptions or an allow
// window: the edge after t within the look-ahead of t (of startAt, when t
// is before it).
//
// Active combines three point tests (the occurrences, the exceptions, the
// validity period), so it can change only where one of them changes. The
// walk steps from one such candidate to the next (each found as a plain
// window's edge is: the recurring sources' search, a binary search in the
// fixed exceptions), learning Active there from the same searches, and
// stops at the first where it differs from Active at t. It allocates
// nothing, where the interval lists of the look-around (known) allocated
// on every call.
func (w *Window) shapedNextEdge(t time.Time) (time.Time, bool) {
	if w.hasEnd && !t.Before(w.end) {
		return time.Time{}, false
	}
	anchor := t
	if w.hasStart && t.Before(w.start) {
		anchor = w.start
	}
	limit := anchor.Add(w.look)
	was, c, ok := w.step(t, limit)
	for ok {
		var active bool
		at := c
		active, c, ok = w.step(at, limit)
		if active != was {
			return at, true
		}
	}
	return time.Time{}, false
}

// step returns Active at at and the first instant after it, and not after
// limit, at which one of Active's point tests may change: a validity
// edge, an edge of the occurrences, an edge of the exceptions. Inside an
// exception the occurrences do not matter until the exception's next
// edge, so they are not asked (an excepted holiday week of a */15 window
// is one step, not hundreds).
func (w *Window) step(at, limit time.Time) (active bool, next time.Time, ok bool) {
	next = limit
	take := func(c time.Time) {
		if c.After(at) && (!ok || c.Before(next)) && !c.After(limit) {
			next, ok = c, true
		}
	}
	valid := true
	if w.hasStart {
		take(w.start)
		valid = !at.Before(w.start)
	}
	if w.hasEnd {
		take(w.end)
		valid = valid && at.Before(w.end)
	}
	in := true
	if w.exc != nil {
		c, excepted, found := w.exc.nextEdge(at, w.look)
		if found {
			take(c)
		}
		in = !excepted
	}
	if w.rec != nil && in {
		e := w.rec.nextEdge(at, w.look)
		if e.ok {
			take(e.at)
		}
		in = e.inside
	}
	return valid && in != w.outside, next, ok
}

// shapedContaining is Containing for a window with exceptions or an allow
// window, active at t.
func (w *Window) shapedContaining(t time.Time) (Interval, bool) {
	for _, iv := range w.known(t.Add(-w.look), t.Add(w.look)) {
		if !iv.Start.After(t) && iv.End.After(t) {
			return iv, true
		}
	}
	return Interval{}, false
}
