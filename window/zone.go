package window

import (
	"math"
	"time"
)

// segment is a zone period: the instants [start, end) (Unix seconds) that
// share one UTC offset. start is math.MinInt64 and end math.MaxInt64 when
// the period is unbounded.
type segment struct {
	start, end int64
	off        int64 // seconds east of UTC
}

func (s segment) contains(u int64) bool { return s.start <= u && u < s.end }

// zone wraps a *time.Location. It stores no offsets of its own: every
// offset comes from the Location for the instant asked about.
type zone struct {
	loc   *time.Location
	fixed bool // a single period covers all time (UTC, fixed zones)
	off   int64
}

func newZone(loc *time.Location) zone {
	z := zone{loc: loc}
	s := z.lookup(0)
	if s.start == math.MinInt64 && s.end == math.MaxInt64 {
		z.fixed, z.off = true, s.off
	}
	return z
}

// at returns the zone period containing instant u.
func (z zone) at(u int64) segment {
	if z.fixed {
		return segment{start: math.MinInt64, end: math.MaxInt64, off: z.off}
	}
	return z.lookup(u)
}

func (z zone) lookup(u int64) segment {
	t := time.Unix(u, 0).In(z.loc)
	_, off := t.Zone()
	s := segment{start: math.MinInt64, end: math.MaxInt64, off: int64(off)}
	start, end := t.ZoneBounds()
	if !start.IsZero() {
		s.start = start.Unix()
	}
	if !end.IsZero() {
		s.end = end.Unix()
	}
	return s
}

// cursor remembers the zone period last used, so that walking over
// neighbouring days costs no lookups.
type cursor struct {
	z                zone
	seg              segment
	prevOff, nextOff int64
	hasPrev, hasNext bool
}

func newCursor(z zone, u int64) cursor {
	return cursor{z: z, seg: z.at(u)}
}

func (c *cursor) move(u int64) {
	c.seg = c.z.at(u)
	c.hasPrev, c.hasNext = false, false
}

// cleanDay reports whether wall day d is "clean": all of its wall times lie
// in one zone period and no other period reads any of them. Then wall minute
// m of day d is read exactly once, at instant u+60m, where u is the instant
// of the day's local midnight. Days that contain a transition (or are
// touched by a repeated hour) are not clean and take the slow path.
func (c *cursor) cleanDay(d int64) (u int64, ok bool) {
	w0 := d * secondsPerDay
	for range 2 {
		u = w0 - c.seg.off
		if c.seg.contains(u) {
			if u+secondsPerDay > c.seg.end {
				return 0, false
			}
			return u, c.neighboursClear(w0, u)
		}
		c.move(u)
	}
	return 0, false
}

// neighboursClear checks that the periods before and after the cursor's do
// not read wall times of the day starting at wall w0 (instant u): a repeated
// hour at the edge of the day would otherwise be missed. Offsets differ by
// less than a day, so periods two days away need no lookup.
func (c *cursor) neighboursClear(w0, u int64) bool {
	if c.seg.start != math.MinInt64 && u-c.seg.start < 2*secondsPerDay {
		if !c.hasPrev {
			c.prevOff, c.hasPrev = c.z.at(c.seg.start-1).off, true
		}
		if c.seg.start+c.prevOff > w0 {
			return false
		}
	}
	end := u + secondsPerDay
	if c.seg.end != math.MaxInt64 && c.seg.end-end < 2*secondsPerDay {
		if !c.hasNext {
			c.nextOff, c.hasNext = c.z.at(c.seg.end).off, true
		}
		if c.seg.end+c.nextOff < w0+secondsPerDay {
			return false
		}
	}
	return true
}

// periods lists the zone periods that can read a wall time of day d: those
// overlapping the instants [w0 - 2 days, w0 + 3 days).
func (z zone) periods(d int64, buf []segment) []segment {
	w0 := d * secondsPerDay
	lo, hi := w0-2*secondsPerDay, w0+3*secondsPerDay
	buf = buf[:0]
	for u := lo; ; {
		s := z.at(u)
		buf = append(buf, s)
		if s.end >= hi {
			return buf
		}
		u = s.end
	}
}

// instants returns the instants that read wall time w, ascending: none when
// w falls in a skipped hour, two when it falls in a repeated hour.
func instants(w int64, periods []segment) (out [4]int64, n int) {
	for _, s := range periods {
		if u := w - s.off; s.contains(u) && n < len(out) {
			out[n] = u
			n++
		}
	}
	return out, n
}
