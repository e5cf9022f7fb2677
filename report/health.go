package report

import (
	"slices"
	"time"

	"github.com/telark/protectionplans/plan"
)

// phaseBands computes the plan's phases over [from, to) from its events:
// each event with a phase starts a band of that phase, until the next
// event with another phase. Empty bands are left out.
func phaseBands(events []TimelineEvent, from, to time.Time) []PhaseBand {
	bands := []PhaseBand{}
	var cur *PhaseBand
	for _, ev := range events {
		if ev.Phase == "" || ev.Time.After(to) {
			continue
		}
		at := maxTime(ev.Time, from)
		if cur != nil && cur.Phase == ev.Phase {
			continue
		}
		if cur != nil {
			cur.End = at
			bands = appendBand(bands, *cur)
		}
		cur = &PhaseBand{Phase: ev.Phase, Start: at}
	}
	if cur != nil {
		cur.End = to
		bands = appendBand(bands, *cur)
	}
	return bands
}

func appendBand(bands []PhaseBand, b PhaseBand) []PhaseBand {
	if !b.End.After(b.Start) {
		return bands
	}
	return append(bands, b)
}

// buildHealth sorts the samples and computes the unhealthy periods.
func buildHealth(samples []HealthSample, phases []PhaseBand, runEnd time.Time) Health {
	s := make([]HealthSample, len(samples))
	for i, x := range samples {
		x.At = x.At.UTC()
		s[i] = x
	}
	slices.SortStableFunc(s, func(a, b HealthSample) int { return a.At.Compare(b.At) })
	h := Health{Samples: s, Unhealthy: UnhealthyPeriods(s, phases, runEnd)}
	for _, u := range h.Unhealthy {
		h.UnhealthySeconds += u.Seconds
	}
	return h
}

// UnhealthyPeriods computes when a plan was active and not healthy, from
// its health samples (sorted by At) and its phases.
//
// General approach: a sample taken while the plan is active states the
// plan's health from its instant until the next sample or the end of that
// active period, whichever comes first; a sample taken outside an active
// period states nothing, and no sample carries over into the next active
// period (its policies are deployed afresh). Time in an active period
// before its first sample is not counted either way. Consecutive unhealthy
// stretches merge into one period, which keeps the reason and message of
// the sample that began it.
func UnhealthyPeriods(samples []HealthSample, phases []PhaseBand, runEnd time.Time) []UnhealthyPeriod {
	out := []UnhealthyPeriod{}
	for _, band := range phases {
		if band.Phase != plan.PhaseActive {
			continue
		}
		end := minTime(band.End, runEnd)
		var cur *UnhealthyPeriod
		for i, x := range samples {
			if x.At.Before(band.Start) || !x.At.Before(end) {
				continue
			}
			until := end
			if i+1 < len(samples) && samples[i+1].At.Before(end) {
				until = samples[i+1].At
			}
			switch {
			case x.Healthy && cur != nil:
				out = appendPeriod(out, *cur)
				cur = nil
			case !x.Healthy && cur == nil:
				cur = &UnhealthyPeriod{Start: x.At, End: until, Reason: x.Reason, Message: x.Message}
			case !x.Healthy:
				cur.End = until
			}
		}
		if cur != nil {
			out = appendPeriod(out, *cur)
		}
	}
	return out
}

// healthSpan is a stretch of an active period whose health is known
// (Checked: a health check taken in the period states it, healthy or not)
// or not known (no check taken yet in the period).
type healthSpan struct {
	Start, End time.Time
	Checked    bool
	// Whole is true for an active period without any check: one span.
	Whole bool
	// Checks is how many health checks were taken in the span.
	Checks int
}

// healthSpans splits each active period (up to runEnd) into the time
// before its first health check, not checked, and the time from it on,
// checked, by the rule of UnhealthyPeriods: a sample states the health
// from its instant until the period ends, and states nothing outside its
// period. An active period without a check is one span, not checked.
// Empty spans are left out.
func healthSpans(samples []HealthSample, phases []PhaseBand, runEnd time.Time) []healthSpan {
	var out []healthSpan
	for _, band := range phases {
		if band.Phase != plan.PhaseActive {
			continue
		}
		end := minTime(band.End, runEnd)
		if !end.After(band.Start) {
			continue
		}
		var first time.Time
		checks := 0
		for _, x := range samples {
			if x.At.Before(band.Start) || !x.At.Before(end) {
				continue
			}
			if checks == 0 {
				first = x.At
			}
			checks++
		}
		if checks == 0 {
			out = append(out, healthSpan{Start: band.Start, End: end, Whole: true})
			continue
		}
		if first.After(band.Start) {
			out = append(out, healthSpan{Start: band.Start, End: first})
		}
		out = append(out, healthSpan{Start: first, End: end, Checked: true, Checks: checks})
	}
	return out
}

func appendPeriod(out []UnhealthyPeriod, p UnhealthyPeriod) []UnhealthyPeriod {
	if !p.End.After(p.Start) {
		return out
	}
	p.Seconds = seconds(p.End.Sub(p.Start))
	return append(out, p)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
