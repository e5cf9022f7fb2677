package window

import "time"

// WithLocation is withLocation, for the tests of package window_test.
var WithLocation = withLocation

// KnownNextEdge is NextEdge of a window with exceptions or an allow window
// as it was found before it walked Active's changes: in the interval lists
// of the look-around (known), which allocate. TestShapedNextEdgeAllocs
// holds the walk equal to it.
func (w *Window) KnownNextEdge(t time.Time) (time.Time, bool) {
	if w.hasEnd && !t.Before(w.end) {
		return time.Time{}, false
	}
	anchor := t
	if w.hasStart && t.Before(w.start) {
		anchor = w.start
	}
	limit := anchor.Add(w.look)
	for _, iv := range w.known(anchor.Add(-w.look), limit.Add(1)) {
		switch {
		case iv.Start.After(t):
			return known(iv.Start.In(w.loc), !iv.OpenStart && !iv.Start.After(limit))
		case iv.End.After(t):
			return known(iv.End.In(w.loc), !iv.OpenEnd && !iv.End.After(limit))
		}
	}
	return time.Time{}, false
}

func known(at time.Time, ok bool) (time.Time, bool) {
	if !ok {
		return time.Time{}, false
	}
	return at, true
}
