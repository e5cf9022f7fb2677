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

// lookup returns the zone period containing u. The offset comes from the
// Location; the bounds come from time.Time.ZoneBounds, but only when they
// contain u and Go reports the same period at its first and its last
// instant. Go answers from the zone's transition table up to its last
// transition and from the POSIX TZ rule at its end after it, and the rule's
// answers can be wrong in two ways seen in real zone data:
//
//   - the end of a year's last period is January 1 plus 365 days, which in
//     a leap year is December 31, before the instant (golang/go#81583;
//     with Go's embedded zone database from 2028 on): a walk from period
//     end to period end would never reach the next year;
//   - the start is the rule's last transition even when the table's last
//     transition came later (America/Ciudad_Juarez, 2022-11-30, in Go's
//     embedded zone database): the period would claim instants read with
//     another offset.
//
// At a period's first and last instants, Go answers for both from the same
// regime (table or rule) only when the period is right, so asking there
// finds both. Other periods are rebuilt from offsets alone (rebuild).
func (z zone) lookup(u int64) segment {
	s := z.bounds(u)
	if !s.contains(u) || !z.agrees(s) {
		return z.rebuild(u, s.off)
	}
	return s
}

// bounds is the period Go reports for u, as it reports it.
func (z zone) bounds(u int64) segment {
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

// agrees reports whether Go reports the period s, with its offset, at its
// first and its last instant too.
func (z zone) agrees(s segment) bool {
	if s.start != math.MinInt64 && z.bounds(s.start) != s {
		return false
	}
	return s.end == math.MaxInt64 || z.bounds(s.end-1) == s
}

// offsetAt returns the UTC offset of instant u, in seconds.
func (z zone) offsetAt(u int64) int64 {
	_, off := time.Unix(u, 0).In(z.loc).Zone()
	return int64(off)
}

// rebuildReach bounds how far rebuild reads on either side of an instant,
// and rebuildStep is how often it reads the offset on the way.
const (
	rebuildReach = secondsPerDay
	rebuildStep  = 3600
)

// rebuild returns a period containing u whose every instant has offset off
// (u's), read from offsets alone: from the last change of offset within a
// day before u, or a day before u, to the first change within a day after
// u, or a day after u. (A period may start or end anywhere its offset
// holds: callers only need the offset to be constant within it.) It reads
// the offset every hour, then finds the second of a change by bisection:
// exact wherever the offset changes at most once an hour, which holds for
// every rule a POSIX TZ string can state (two changes a year) and for
// every transition table of the zone database. At most 2 x (24 + 12)
// lookups; the end is always after u, so a walk over periods always moves
// forward.
func (z zone) rebuild(u, off int64) segment {
	return segment{start: z.change(u, off, -1), end: z.change(u, off, +1), off: off}
}

// change scans from u in direction dir (+1 ahead, -1 back) for a change of
// offset off within rebuildReach. Ahead it returns the first instant with
// another offset; back, the first instant of the run of off that reaches
// u. Without a change it returns u + dir*rebuildReach.
func (z zone) change(u, off, dir int64) int64 {
	for m := int64(rebuildStep); m <= rebuildReach; m += rebuildStep {
		far := u + dir*m
		if z.offsetAt(far) == off {
			continue
		}
		near := far - dir*rebuildStep // offset off at near, another at far
		for far-near > 1 || near-far > 1 {
			mid := near + (far-near)/2
			if z.offsetAt(mid) == off {
				near = mid
			} else {
				far = mid
			}
		}
		if dir > 0 {
			return far
		}
		return near
	}
	return u + dir*rebuildReach
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

// maxPeriods bounds the zone periods periods collects: real zone data has a
// handful within five days (a transition, or a rebuilt period on a year
// boundary), never dozens.
const maxPeriods = 64

// periods lists the zone periods that can read a wall time of day d: those
// overlapping the instants [w0 - 2 days, w0 + 3 days). Every period ends
// after the instant it was looked up for (lookup guarantees it), so the walk
// moves forward at each step, and it stops after maxPeriods in any case.
func (z zone) periods(d int64, buf []segment) []segment {
	w0 := d * secondsPerDay
	lo, hi := w0-2*secondsPerDay, w0+3*secondsPerDay
	buf = buf[:0]
	for u := lo; len(buf) < maxPeriods; {
		s := z.at(u)
		buf = append(buf, s)
		if s.end >= hi {
			break
		}
		u = s.end
	}
	return buf
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
