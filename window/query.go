package window

import "time"

// Active reports whether the window is active at t: starts are inclusive,
// ends exclusive. It is exact at any t (a recurring window looks back by its
// longest duration only; a calendar's exceptions are known where the
// embedder expanded it) and allocates nothing: in an exception, in the
// occurrences and in the validity period are point tests.
func (w *Window) Active(t time.Time) bool {
	if w.hasStart && t.Before(w.start) {
		return false
	}
	if w.hasEnd && !t.Before(w.end) {
		return false
	}
	in := w.rec == nil || w.rec.active(t.Unix(), int64(t.Nanosecond()))
	if in && w.exc != nil && w.exc.covers(t) {
		in = false
	}
	return in != w.outside
}

// NextEdge returns the first instant strictly after t at which Active
// changes: the next start when the window is inactive at t, the end of the
// current interval when it is active. The operator sets its timer there.
//
// It returns false when there is no such edge: a permanent window that has
// started, a time range that has ended, a recurring window past its
// validity end. For a recurring window it also returns false when the edge
// lies further than the look-ahead from t (or from startAt, when t is
// before it): nothing starts within it, or the current interval lasts past
// it. Ended tells these cases apart. It allocates nothing, and searches a
// day's occurrences rather than scanning them. A window with exceptions
// or an allow window steps from one change of Active's point tests to the
// next (allocating nothing either), and bounds the edges of every type by
// the look-ahead.
func (w *Window) NextEdge(t time.Time) (time.Time, bool) {
	if w.shaped() {
		e, ok := w.shapedNextEdge(t)
		if !ok {
			return time.Time{}, false
		}
		return e.In(w.loc), true
	}
	if w.rec == nil {
		switch {
		case w.hasStart && t.Before(w.start):
			return w.start.In(w.loc), true
		case w.hasEnd && t.Before(w.end):
			return w.end.In(w.loc), true
		}
		return time.Time{}, false
	}
	e, ok := w.recurringNextEdge(t)
	return e.In(w.loc), ok
}

// recurringNextEdge clips the edges of the raw occurrences to the validity
// period [startAt, endAt).
func (w *Window) recurringNextEdge(t time.Time) (time.Time, bool) {
	if w.hasEnd && !t.Before(w.end) {
		return time.Time{}, false
	}
	anchor, early := t, w.hasStart && t.Before(w.start)
	if early {
		anchor = w.start
	}
	e := w.rec.nextEdge(anchor, w.look)
	switch {
	case e.inside && early: // active right at startAt
		return w.start, true
	case e.inside && e.ok && (!w.hasEnd || e.at.Before(w.end)):
		return e.at, true
	case e.inside && w.hasEnd && !w.end.After(anchor.Add(w.look)):
		return w.end, true // validity ends first, within the look-ahead
	case e.inside:
		return time.Time{}, false
	}
	if !e.ok || (w.hasEnd && !e.at.Before(w.end)) {
		return time.Time{}, false
	}
	return e.at, true
}

// Containing returns the interval of activity containing t, if the window is
// active at t. A recurring window's interval is looked for within the
// look-around of t; see Interval for open starts and ends.
func (w *Window) Containing(t time.Time) (Interval, bool) {
	if !w.Active(t) {
		return Interval{}, false
	}
	var iv Interval
	switch {
	case w.shaped():
		var ok bool
		if iv, ok = w.shapedContaining(t); !ok {
			return Interval{}, false
		}
	case w.rec != nil:
		var ok bool
		if iv, ok = w.rec.containing(t, w.look); !ok {
			return Interval{}, false
		}
		iv = w.clip(iv)
	case w.hasEnd:
		iv = Interval{Start: w.start, End: w.end}
	default:
		iv = w.permanent()
	}
	return w.local(iv), true
}

// Occurrences returns the intervals of activity that meet [from, to),
// sorted, merged and not cut at from or to: the first may start before
// from, the last end after to. Recurring windows look back from from and
// ahead of to by the look-around; at most 100 years are scanned.
func (w *Window) Occurrences(from, to time.Time) []Interval {
	if !from.Before(to) {
		return nil
	}
	if limit := from.Add(100 * 366 * 24 * time.Hour); to.After(limit) {
		to = limit
	}
	if w.hasStart && from.Before(w.start) {
		from = w.start
	}
	if w.hasEnd && to.After(w.end) {
		to = w.end
	}
	if !from.Before(to) {
		return nil
	}
	var out []Interval
	switch {
	case w.shaped():
		for _, iv := range w.known(from.Add(-w.look), to.Add(w.look)) {
			if iv.Start.Before(to) && iv.End.After(from) {
				out = append(out, iv)
			}
		}
	case w.rec != nil:
		out = w.rec.occurrences(from, to, w.look)
		for i := range out {
			out[i] = w.clip(out[i])
		}
	case w.hasEnd:
		out = []Interval{{Start: w.start, End: w.end}}
	default:
		out = []Interval{w.permanent()}
	}
	for i := range out {
		out[i] = w.local(out[i])
	}
	return out
}

// Ended reports that the window will never be active at or after t: a time
// range at or past its end, a recurring window at or past its validity end,
// a recurring window whose crons can never fire ("0 0 30 2 *"), or one
// whose validity ends within the look-ahead with nothing left to start. A
// permanent window never ends by itself.
func (w *Window) Ended(t time.Time) bool {
	switch {
	case w.hasEnd && !t.Before(w.end):
		return true
	case w.rec == nil:
		return false
	case !w.rec.canFire && !w.outside:
		return true
	case !w.hasEnd || w.Active(t):
		return false
	}
	from := t
	if w.hasStart && t.Before(w.start) {
		from = w.start
	}
	if w.end.Sub(from) > w.look {
		return false
	}
	_, ok := w.NextEdge(t)
	return !ok
}

// clip cuts a recurring interval to the validity period. The validity
// edges are exact at any distance, so they also close an open side.
func (w *Window) clip(iv Interval) Interval {
	if w.hasStart && !w.start.Before(iv.Start) {
		iv.Start, iv.OpenStart = w.start, false
	}
	if w.hasEnd && !w.end.After(iv.End) {
		iv.End, iv.OpenEnd = w.end, false
	}
	return iv
}

func (w *Window) permanent() Interval {
	return Interval{Start: w.start, OpenStart: !w.hasStart, OpenEnd: true}
}

// local expresses an interval's known instants in the window's zone.
func (w *Window) local(iv Interval) Interval {
	if !iv.Start.IsZero() {
		iv.Start = iv.Start.In(w.loc)
	}
	if !iv.End.IsZero() {
		iv.End = iv.End.In(w.loc)
	}
	return iv
}
