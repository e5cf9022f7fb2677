package window_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

// The reference of allow windows and exceptions is built pointwise: every
// edge of every part (the raw runs, each exception's runs, the validity
// period) is collected, and between two consecutive edges membership is
// constant, so it is read once, at the earlier edge, from the parts alone:
// inside the validity period, in a raw run and in no exception (during),
// or not so (outside). A date's runs come from the readings too: from the
// first whole local minute that shows the date to the first that shows
// another. Nothing here subtracts or complements interval lists.

// refPart is a set of exact runs, sorted and merged, with a membership
// test.
type refPart []ref1

func (p refPart) has(t time.Time) bool {
	_, ok := ref{runs: p}.containing(t)
	return ok
}

// refDate is the runs of the local date d (YYYY-MM-DD) in the readings.
func refDate(tb testing.TB, loc *time.Location, rs []reading, d string) refPart {
	day, err := time.Parse(time.DateOnly, d)
	if err != nil {
		tb.Fatal(err)
	}
	var start time.Time
	for _, r := range rs {
		l := time.Unix(r.at, 0).In(loc)
		is := l.Year() == day.Year() && l.YearDay() == day.YearDay()
		switch {
		case is && start.IsZero():
			start = time.Unix(r.at, 0).UTC()
		case !is && !start.IsZero():
			return refPart{{start, time.Unix(r.at, 0).UTC()}}
		}
	}
	tb.Fatalf("date %s is not inside the readings", d)
	return nil
}

// newShapedRef is the reference of spec, which may have exceptions and be
// an allow window.
func newShapedRef(tb testing.TB, spec window.Spec) ref {
	loc, err := time.LoadLocation(spec.TimeZone)
	if err != nil {
		tb.Fatal(err)
	}
	return newShapedRefFrom(tb, spec, loc, readings(tb, spec.TimeZone), refFrom, refTo)
}

// newShapedRefFrom is newShapedRef over the readings rs of [from, to).
func newShapedRefFrom(tb testing.TB, spec window.Spec, loc *time.Location, rs []reading, from, to time.Time) ref {
	raw := spec
	raw.StartAt, raw.EndAt, raw.Except, raw.Freeze = nil, nil, nil, ""
	base := refPart(newRefFrom(tb, raw, rs).runs)
	var excs []refPart
	for _, e := range spec.Except {
		switch {
		case e.Date != "":
			excs = append(excs, refDate(tb, loc, rs, e.Date))
		case e.StartAt != nil:
			excs = append(excs, refPart{{e.StartAt.UTC(), e.EndAt.UTC()}})
		case e.Schedule != nil:
			es := window.Spec{Type: window.Recurring, TimeZone: spec.TimeZone, Schedules: []window.Schedule{*e.Schedule}}
			excs = append(excs, refPart(newRefFrom(tb, es, rs).runs))
		}
	}
	edges := []time.Time{from, to}
	for _, p := range append([]refPart{base}, excs...) {
		for _, r := range p {
			edges = append(edges, r.start, r.end)
		}
	}
	if spec.StartAt != nil {
		edges = append(edges, spec.StartAt.UTC())
	}
	if spec.EndAt != nil {
		edges = append(edges, spec.EndAt.UTC())
	}
	slices.SortFunc(edges, func(a, b time.Time) int { return a.Compare(b) })
	edges = slices.CompactFunc(edges, func(a, b time.Time) bool { return a.Equal(b) })
	member := func(t time.Time) bool {
		if spec.StartAt != nil && t.Before(spec.StartAt.Time) || spec.EndAt != nil && !t.Before(spec.EndAt.Time) {
			return false
		}
		in := base.has(t)
		for _, e := range excs {
			in = in && !e.has(t)
		}
		return in != (spec.Freeze == window.FreezeOutside)
	}
	var runs []ref1
	for i := 0; i+1 < len(edges); i++ {
		if !member(edges[i]) {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1].end.Equal(edges[i]) {
			runs[n-1].end = edges[i+1]
			continue
		}
		runs = append(runs, ref1{edges[i], edges[i+1]})
	}
	return ref{runs: runs}
}

// transitionDates returns the local dates of the zone's 2026 transitions.
func transitionDates(tb testing.TB, zone string) []string {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for u := time.Date(2026, 1, 1, 0, 0, 0, 0, loc); ; {
		_, end := u.ZoneBounds()
		if end.IsZero() || end.Year() != 2026 {
			return out
		}
		out = append(out, end.In(loc).Format(time.DateOnly))
		u = end.In(loc)
	}
}

func shapedRefCases(tb testing.TB) []refCase {
	var out []refCase
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "America/Havana"}
	for _, z := range zones {
		loc, _ := time.LoadLocation(z)
		dates := append(transitionDates(tb, z), "2026-12-24", "2026-07-04")
		var dateExc []window.Exception
		for _, d := range dates {
			dateExc = append(dateExc, window.Exception{Date: d})
		}
		nightly := recurring(z, "0 22 * * *", "8h")
		nightly.Except = dateExc
		out = append(out, refCase{"nightly 22:00 for 8h except the transition days and two holidays", nightly, 0})

		weekend := recurring(z, "0 0 * * *", "24h")
		weekend.Except = []window.Exception{{Schedule: &window.Schedule{Cron: "30 2 * * 0", Duration: "90m"}}, {Schedule: &window.Schedule{Cron: "0 9 * * 1-5", Duration: "8h"}}}
		out = append(out, refCase{"always, except Sunday 02:30 for 90m and working hours", weekend, 0})

		iv := recurring(z, "0 1 * * *", "4h", "0 22 * * 6", "30h")
		for _, d := range transitionDates(tb, z) {
			day, _ := time.ParseInLocation(time.DateOnly, d, loc)
			iv.Except = append(iv.Except, window.Exception{StartAt: mt(day.Add(90 * time.Minute)), EndAt: mt(day.Add(150 * time.Minute))})
		}
		out = append(out, refCase{"01:00 for 4h and weekends, except 01:30 to 02:30 elapsed on transition days", iv, 0})

		allow := recurring(z, "0 9 * * 1-5", "8h", "30 2 * * *", "1h")
		allow.Freeze = window.FreezeOutside
		out = append(out, refCase{"allow window: working hours and 02:30 for 1h", allow, 0})

		allowV := recurring(z, "0 10 * * 2,4", "2h", "0 0 1 * *", "168h")
		allowV.Freeze = window.FreezeOutside
		allowV.Except = dateExc
		allowV.StartAt = mt(time.Date(2026, 3, 20, 23, 30, 0, 0, time.UTC))
		allowV.EndAt = mt(time.Date(2026, 11, 2, 4, 15, 0, 0, time.UTC))
		out = append(out, refCase{"allow window with a validity period, closed on the transition days", allowV, 0})

		allowL := recurring(z, "0 9 * * 1-5", "8h", "0 17 * * 1-5", "16h")
		allowL.Freeze = window.FreezeOutside
		allowL.Except = []window.Exception{{Schedule: &window.Schedule{Cron: "0 12 * * *", Duration: "1h"}}}
		out = append(out, refCase{"allow window chaining into weeks, one day of look-around", allowL, 24 * time.Hour})
	}
	return out
}

func TestShapedAgainstReference(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	for _, c := range shapedRefCases(t) {
		t.Run(c.spec.TimeZone+"/"+c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2, uint64(len(c.name))))
			r := newShapedRef(t, c.spec)
			w := mustParse(t, c.spec, window.WithLookAround(c.look))
			look := w.LookAround()
			for _, p := range probes(t, c.spec.TimeZone, n, rng) {
				checkProbe(t, w, r, p, look)
			}
			for range n / 10 {
				from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(360 * 24 * time.Hour))))
				to := from.Add(time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))))
				checkRange(t, w, r, from, to, look)
			}
		})
	}
}
