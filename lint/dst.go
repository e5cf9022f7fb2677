package lint

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/telark/protectionplans/window"
)

// cronParser reads the expressions the window package accepts (it
// refused the others before the linter sees them).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func parseCron(expr string) (s *cron.SpecSchedule) {
	defer func() {
		if recover() != nil { // robfig/cron panics on a few inputs
			s = nil
		}
	}()
	sc, err := cronParser.Parse(strings.TrimSpace(expr))
	if err != nil {
		return nil
	}
	s, _ = sc.(*cron.SpecSchedule)
	return s
}

// starBit is robfig/cron's mark of a field written as * or ?.
const starBit = 1 << 63

// matches reports whether the cron fires at the wall reading w (a UTC
// time whose fields are the local reading), with robfig/cron's day rule:
// when either day field is *, a day must match both; else either.
func matches(s *cron.SpecSchedule, w time.Time) bool {
	if s.Minute&(1<<uint(w.Minute())) == 0 || s.Hour&(1<<uint(w.Hour())) == 0 || s.Month&(1<<uint(w.Month())) == 0 {
		return false
	}
	dom, dow := s.Dom&(1<<uint(w.Day())) != 0, s.Dow&(1<<uint(w.Weekday())) != 0
	if s.Dom&starBit != 0 || s.Dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// transition is a change of a zone's offset.
type transition struct {
	at       time.Time // the instant of the change
	from, to int       // offsets before and after, seconds
}

// transitions lists the offset changes of loc in [from, to). It steps an
// hour at a time (no zone changes twice within an hour) and bisects each
// change to the second, rather than trusting ZoneBounds past the zone's
// table (golang/go#81583, which the window package works around too).
func transitions(loc *time.Location, from, to time.Time) []transition {
	var out []transition
	_, prev := from.In(loc).Zone()
	for t := from; t.Before(to); {
		next := t.Add(time.Hour)
		if _, off := next.In(loc).Zone(); off != prev {
			lo, hi := t.Unix(), next.Unix() // offset(lo) == prev, offset(hi) == off
			for hi-lo > 1 {
				mid := lo + (hi-lo)/2
				if _, o := time.Unix(mid, 0).In(loc).Zone(); o == prev {
					lo = mid
				} else {
					hi = mid
				}
			}
			out = append(out, transition{at: time.Unix(hi, 0).In(loc), from: prev, to: off})
			prev = off
		}
		t = next
	}
	return out
}

// dst reports the starts of a schedule that fall in a local hour the
// clocks skip (that occurrence does not happen) or repeat (it happens
// twice and the two merge), among the zone's changes trs within the
// horizon and the validity period.
func (c *checker) dst(id string, w *window.Window, s *sched, trs []transition) {
	if s.cron == nil || !s.fires {
		return
	}
	spec := w.Spec()
	var skipped, repeated []time.Time
	var skippedWalls, repeatedWalls []string
	for _, tr := range trs {
		if spec.StartAt != nil && tr.at.Before(spec.StartAt.Time) || spec.EndAt != nil && !tr.at.Before(spec.EndAt.Time) {
			continue
		}
		lo, hi := tr.from, tr.to // the wall readings [at+lo, at+hi) are skipped
		if hi < lo {
			lo, hi = hi, lo // [at+to, at+from) are read twice
		}
		for m := int64(lo); m < int64(hi); m += 60 {
			wall := time.Unix(tr.at.Unix()+m, 0).UTC()
			if !matches(s.cron, wall) {
				continue
			}
			text := wall.Format("Mon 2006-01-02 15:04")
			if tr.to > tr.from {
				skipped, skippedWalls = append(skipped, tr.at), append(skippedWalls, text)
			} else {
				repeated, repeatedWalls = append(repeated, tr.at), append(repeatedWalls, text)
			}
			break // one start per transition is enough to say it
		}
	}
	zone := w.Location().String()
	if len(skipped) > 0 {
		effect := "the freeze is missing that night"
		if spec.Freeze == window.FreezeOutside {
			effect = "the allow window does not open then, and changes stay frozen"
		}
		c.add(Finding{Severity: Warning, Code: StartInSkippedHour, Plans: []string{id},
			Fields: []Field{{id, s.path + ".cron"}}, Instants: skipped,
			Message: fmt.Sprintf("cron %q starts at %s in %s, a local time the clocks skip: that occurrence does not happen (%s); move the start out of the skipped hour or use a zone without DST", s.spec.Cron, strings.Join(skippedWalls, " and "), zone, effect)})
	}
	if len(repeated) > 0 {
		c.add(Finding{Severity: Info, Code: StartInRepeatedHour, Plans: []string{id},
			Fields: []Field{{id, s.path + ".cron"}}, Instants: repeated,
			Message: fmt.Sprintf("cron %q starts at %s in %s, a local time that occurs twice: it fires at both, and the two occurrences merge into one an hour longer", s.spec.Cron, strings.Join(repeatedWalls, " and "), zone)})
	}
}
