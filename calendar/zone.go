package calendar

import (
	"sort"
	"time"
)

// zone reads wall-clock times of one time zone: an IANA Location, or the
// rules of a VTIMEZONE that names no zone Go knows. Wall times are
// time.Time values in UTC whose fields are the wall reading ("floating").
type zone struct {
	loc   *time.Location // nil when rules are set
	rules *ruleZone
}

func locZone(loc *time.Location) zone { return zone{loc: loc} }

// offset is the zone's offset from UTC, in seconds, at the instant u
// (Unix seconds).
func (z zone) offset(u int64) int64 {
	if z.rules != nil {
		return z.rules.offset(u)
	}
	_, off := time.Unix(u, 0).In(z.loc).Zone()
	return int64(off)
}

// wall is the instant t read on the zone's clock, as a floating time.
func (z zone) wall(t time.Time) time.Time {
	return time.Unix(t.Unix()+z.offset(t.Unix()), int64(t.Nanosecond())).UTC()
}

// instant is the instant the zone's clock reads w at, as RFC 5545 3.3.5
// says: a wall time that occurs twice (clocks go back) is its first
// occurrence; one that does not exist (clocks go forward) is read with
// the offset in force before the gap, so 02:30 on a night that skips
// 02:00-03:00 is 03:30.
//
// It looks at the offsets a day before and after: zones change offset at
// most once within two days.
func (z zone) instant(w time.Time) time.Time {
	wu := w.Unix()
	before, after := z.offset(wu-86400), z.offset(wu+86400)
	tb, ta := wu-before, wu-after
	okb, oka := z.offset(tb) == before, z.offset(ta) == after
	u := tb // a gap (neither reading holds): the offset before it
	switch {
	case okb && oka:
		u = min(tb, ta)
	case oka:
		u = ta
	}
	t := time.Unix(u, int64(w.Nanosecond()))
	if z.loc != nil {
		return t.In(z.loc)
	}
	return t.UTC()
}

// name is the zone's name for messages.
func (z zone) name() string {
	if z.rules != nil {
		return z.rules.tzid
	}
	return z.loc.String()
}

// ruleZone is a zone built from a VTIMEZONE's STANDARD and DAYLIGHT
// observances: the instants they begin at (their onsets) in a bounded
// range, each with the offset it sets.
type ruleZone struct {
	tzid string
	// first is the offset before the first onset.
	first int64
	// onsets are sorted by instant.
	onsets []onset
}

type onset struct {
	at  int64 // Unix seconds
	off int64 // TZOFFSETTO, seconds
}

func (r *ruleZone) offset(u int64) int64 {
	i := sort.Search(len(r.onsets), func(i int) bool { return r.onsets[i].at > u })
	if i == 0 {
		return r.first
	}
	return r.onsets[i-1].off
}
