package window

import (
	"slices"
	"time"

	"github.com/robfig/cron/v3"
)

// starBit is robfig/cron's marker for a field written as * or ?.
const starBit = 1 << 63

// span is a half-open interval [start, end) in nanoseconds, relative to an
// instant named by its context (a local midnight, or a query's base).
type span struct{ start, end int64 }

// schedule is one compiled cron schedule and its duration.
type schedule struct {
	month, dom, dow uint64
	andDays         bool    // a day must match both day fields (one is *)
	starts          []int32 // minutes after local midnight, ascending
	dur             int64   // nanoseconds of elapsed time
}

func newSchedule(c *cron.SpecSchedule, d time.Duration) schedule {
	s := schedule{
		month:   c.Month,
		dom:     c.Dom,
		dow:     c.Dow,
		andDays: c.Dom&starBit != 0 || c.Dow&starBit != 0,
		dur:     int64(d),
	}
	for h := range 24 {
		if c.Hour&(1<<h) == 0 {
			continue
		}
		for m := range 60 {
			if c.Minute&(1<<m) != 0 {
				s.starts = append(s.starts, int32(h*60+m))
			}
		}
	}
	return s
}

// firesOn reports whether the schedule fires on a day, robfig/cron's way.
func (s *schedule) firesOn(month, dom, wd int) bool {
	return s.month&(1<<month) != 0 && s.daysMatch(dom, wd)
}

// daysMatch applies the day-of-month and day-of-week fields.
func (s *schedule) daysMatch(dom, wd int) bool {
	domOK, dowOK := s.dom&(1<<dom) != 0, s.dow&(1<<wd) != 0
	if s.andDays {
		return domOK && dowOK
	}
	return domOK || dowOK
}

// dayClass is what decides the days a schedule fires on.
func (s *schedule) dayClass() [4]uint64 {
	a := uint64(0)
	if s.andDays {
		a = 1
	}
	return [4]uint64{s.month, s.dom, s.dow, a}
}

// canFire reports whether some calendar day matches: "0 0 30 2 *" never
// does. Every month holds every weekday, so only a day of month that no
// chosen month has can make a schedule impossible.
func (s *schedule) canFire() bool {
	if !s.andDays || s.dom&starBit != 0 {
		return true
	}
	for m := 1; m <= 12; m++ {
		for d := 1; d <= daysIn[m]; d++ {
			if s.month&(1<<m) != 0 && s.dom&(1<<d) != 0 {
				return true
			}
		}
	}
	return false
}

// daySpans returns one day's occurrences of the schedule, merged, in
// nanoseconds after local midnight, assuming no zone transition.
func (s *schedule) daySpans() []span {
	out := make([]span, 0, len(s.starts))
	for _, m := range s.starts {
		st := int64(m) * nsPerMinute
		out = append(out, span{st, st + s.dur})
	}
	return mergeSpans(out)
}

// mergeSpans sorts spans by start and merges overlapping and adjacent ones
// (ends are exclusive, so [a, b) and [b, c) form [a, c)). It reuses s.
func mergeSpans(s []span) []span {
	if len(s) == 0 {
		return s
	}
	slices.SortFunc(s, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	out := s[:1]
	for _, sp := range s[1:] {
		last := &out[len(out)-1]
		if sp.start <= last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}
