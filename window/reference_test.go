package window_test

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/telark/protectionplans/window"
)

// The reference is slow and obviously correct: it steps through every
// instant at which the zone's clock shows a whole minute (every UTC minute,
// unless the offset has seconds), reads the local time there, and starts an
// occurrence wherever a schedule matches that reading (robfig/cron's field
// rules, copied below). A skipped local time is never read, a repeated one
// is read twice. Occurrences are sorted and merged into exact intervals. It
// reads offsets only (time.Time.Zone), never zone bounds.

var (
	refFrom = time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)
	refTo   = time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
)

type reading struct {
	at                           int64 // Unix seconds
	minute, hour, dom, month, wd uint8
}

var readingsCache = map[string][]reading{}

// readings returns the readings of zone over [refFrom, refTo), cached.
func readings(tb testing.TB, zone string) []reading {
	if r, ok := readingsCache[zone]; ok {
		return r
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		tb.Fatal(err)
	}
	out := readingsIn(loc, refFrom, refTo)
	readingsCache[zone] = out
	return out
}

// readingsIn returns every reading of a whole local minute in [from, to),
// in order of instant.
func readingsIn(loc *time.Location, from, to time.Time) []reading {
	var out []reading
	step := int64(60)
	for u := from.Unix(); u < to.Unix(); u += step {
		l := time.Unix(u, 0).In(loc)
		if l.Second() != 0 {
			if step == 60 { // an offset with seconds: read every second
				return readingsEvery(loc, from, to, 1)
			}
			continue
		}
		out = append(out, reading{u, uint8(l.Minute()), uint8(l.Hour()), uint8(l.Day()), uint8(l.Month()), uint8(l.Weekday())})
	}
	return out
}

func readingsEvery(loc *time.Location, from, to time.Time, step int64) []reading {
	var out []reading
	for u := from.Unix(); u < to.Unix(); u += step {
		if l := time.Unix(u, 0).In(loc); l.Second() == 0 {
			out = append(out, reading{u, uint8(l.Minute()), uint8(l.Hour()), uint8(l.Day()), uint8(l.Month()), uint8(l.Weekday())})
		}
	}
	return out
}

// robfigDayMatches is robfig/cron's dayMatches.
func robfigDayMatches(s *cron.SpecSchedule, r reading) bool {
	domMatch := 1<<r.dom&s.Dom > 0
	dowMatch := 1<<r.wd&s.Dow > 0
	if s.Dom&(1<<63) > 0 || s.Dow&(1<<63) > 0 {
		return domMatch && dowMatch
	}
	return domMatch || dowMatch
}

type ref struct {
	runs []ref1 // merged, exact (assuming nothing runs past the range)
}

type ref1 struct{ start, end time.Time }

func newRef(tb testing.TB, spec window.Spec) ref {
	return newRefFrom(tb, spec, readings(tb, spec.TimeZone))
}

// newRefFrom computes the reference of spec from the readings rs.
func newRefFrom(tb testing.TB, spec window.Spec, rs []reading) ref {
	var occ []ref1
	for _, sc := range spec.Schedules {
		c, err := cron.ParseStandard(sc.Cron)
		if err != nil {
			tb.Fatal(err)
		}
		s := c.(*cron.SpecSchedule)
		d, _ := time.ParseDuration(sc.Duration)
		for _, r := range rs {
			if 1<<r.minute&s.Minute > 0 && 1<<r.hour&s.Hour > 0 && 1<<r.month&s.Month > 0 && robfigDayMatches(s, r) {
				st := time.Unix(r.at, 0).UTC()
				occ = append(occ, ref1{st, st.Add(d)})
			}
		}
	}
	sort.Slice(occ, func(i, j int) bool { return occ[i].start.Before(occ[j].start) })
	var runs []ref1
	for _, o := range occ {
		if n := len(runs); n > 0 && !o.start.After(runs[n-1].end) {
			if o.end.After(runs[n-1].end) {
				runs[n-1].end = o.end
			}
			continue
		}
		runs = append(runs, o)
	}
	// Cut to the validity period.
	var cut []ref1
	for _, r := range runs {
		if spec.StartAt != nil && r.start.Before(spec.StartAt.Time) {
			r.start = spec.StartAt.Time
		}
		if spec.EndAt != nil && r.end.After(spec.EndAt.Time) {
			r.end = spec.EndAt.Time
		}
		if r.start.Before(r.end) {
			cut = append(cut, r)
		}
	}
	return ref{runs: cut}
}

func (r ref) containing(t time.Time) (ref1, bool) {
	i := sort.Search(len(r.runs), func(i int) bool { return r.runs[i].end.After(t) })
	if i < len(r.runs) && !r.runs[i].start.After(t) {
		return r.runs[i], true
	}
	return ref1{}, false
}

func (r ref) nextEdge(t time.Time) time.Time {
	for _, run := range r.runs {
		if run.start.After(t) {
			return run.start
		}
		if run.end.After(t) {
			return run.end
		}
	}
	return time.Time{}
}

// expect turns an exact run into what a bounded query reports.
func expect(run ref1, lo, hi time.Time) window.Interval {
	iv := window.Interval{Start: run.start, End: run.end}
	if run.start.Before(lo) {
		iv.Start, iv.OpenStart = lo, true
	}
	if run.end.After(hi) {
		iv.End, iv.OpenEnd = hi, true
	}
	return iv
}

func sameInterval(a, b window.Interval) bool {
	return a.Start.Equal(b.Start) && a.End.Equal(b.End) && a.OpenStart == b.OpenStart && a.OpenEnd == b.OpenEnd
}

type refCase struct {
	name string
	spec window.Spec
	look time.Duration
}

func refCases() []refCase {
	var out []refCase
	// Santiago and Havana change their clocks at midnight.
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "America/Havana"}
	for _, z := range zones {
		out = append(out,
			refCase{"nightly 22:00 for 8h", recurring(z, "0 22 * * *", "8h"), 0},
			refCase{"02:30 for 1h, inside both transitions", recurring(z, "30 2 * * *", "1h"), 0},
			refCase{"every 15 minutes from 01:00 to 03:45 for 20m", recurring(z, "*/15 1-3 * * *", "20m"), 0},
			refCase{"01:30 for 30m and 02:00 for 1m", recurring(z, "30 1 * * *", "30m", "0 2 * * *", "1m"), 0},
			refCase{"weekdays at midnight, Sunday 02:00, month ends",
				recurring(z, "0 0 * * 1-5", "3h", "0 2 * * 0", "30m", "45 23 28-31 * *", "90m"), 0},
			refCase{"first of the month for a week", recurring(z, "0 0 1 * *", "168h"), 0},
			refCase{"working hours and nights chain into weeks",
				recurring(z, "0 9 * * 1-5", "8h", "0 17 * * 1-5", "16h"), 0},
			refCase{"working hours and nights, one day of look-around",
				recurring(z, "0 9 * * 1-5", "8h", "0 17 * * 1-5", "16h"), 24 * time.Hour},
			refCase{"23:59 for 2m meets midnight for 1m", recurring(z, "59 23 * * *", "2m", "0 0 * * *", "1m"), 0},
			refCase{"Sunday 02:15 for 45m", recurring(z, "15 2 * * 0", "45m"), 0},
			refCase{"every hour at :00 and :30 for 29m, sub-minute duration", recurring(z, "0,30 * * * *", "29m30s"), 0},
			refCase{"odd days or Mondays at 00:30", recurring(z, "30 0 1-31/2 * 1", "1h"), 0},
		)
		v := recurring(z, "0 22 * * *", "8h", "0 3 * * 6", "47h")
		v.StartAt = mt(time.Date(2026, 3, 20, 23, 30, 0, 0, time.UTC))
		v.EndAt = mt(time.Date(2026, 11, 2, 4, 15, 0, 0, time.UTC))
		out = append(out, refCase{"with a validity period", v, 0})
	}
	return out
}

// probes returns random instants in 2026 plus every 7 minutes around each
// 2026 transition of the zone.
func probes(tb testing.TB, zone string, n int, rng *rand.Rand) []time.Time {
	loc, _ := time.LoadLocation(zone)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []time.Time
	for range n {
		out = append(out, start.Add(time.Duration(rng.Int64N(int64(365*24*time.Hour)))).Truncate(time.Second))
	}
	for u := start; u.Year() == 2026; {
		_, end := u.In(loc).ZoneBounds()
		if end.IsZero() || end.Year() != 2026 {
			break
		}
		for d := -26 * time.Hour; d <= 26*time.Hour; d += 7 * time.Minute {
			out = append(out, end.Add(d))
		}
		out = append(out, end, end.Add(-time.Nanosecond))
		u = end
	}
	return out
}

func TestAgainstReference(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, c := range refCases() {
		t.Run(c.spec.TimeZone+"/"+c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			r := newRef(t, c.spec)
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

func checkProbe(t *testing.T, w *window.Window, r ref, p time.Time, look time.Duration) {
	t.Helper()
	run, in := r.containing(p)
	if got := w.Active(p); got != in {
		t.Fatalf("Active(%s) = %v, want %v", show(p), got, in)
	}
	iv, ok := w.Containing(p)
	if want := expect(run, p.Add(-look), p.Add(look)); ok != in || (in && !sameInterval(iv, want)) {
		t.Fatalf("Containing(%s) = %+v %v, want %+v %v", show(p), iv, ok, want, in)
	}
	e, ok := w.NextEdge(p)
	want := r.nextEdge(p)
	anchor := p // the look-ahead counts from startAt when p is before it
	if s := w.Spec().StartAt; s != nil && p.Before(s.Time) {
		anchor = s.Time
	}
	wantOK := !want.IsZero() && !want.After(anchor.Add(look))
	if ok != wantOK || (ok && !e.Equal(want)) {
		t.Fatalf("NextEdge(%s) = %s %v, want %s %v", show(p), show(e), ok, show(want), wantOK)
	}
}

func checkRange(t *testing.T, w *window.Window, r ref, from, to time.Time, look time.Duration) {
	t.Helper()
	var want []window.Interval
	lo, hi := from, to // the look-around counts from the range cut to the validity period
	if s := w.Spec().StartAt; s != nil && lo.Before(s.Time) {
		lo = s.Time
	}
	if e := w.Spec().EndAt; e != nil && hi.After(e.Time) {
		hi = e.Time
	}
	for _, run := range r.runs {
		if run.start.Before(to) && run.end.After(from) {
			want = append(want, expect(run, lo.Add(-look), hi.Add(look)))
		}
	}
	got := w.Occurrences(from, to)
	if len(got) != len(want) {
		t.Fatalf("Occurrences(%s, %s): %d intervals, want %d\n got %+v\nwant %+v", show(from), show(to), len(got), len(want), got, want)
	}
	for i := range got {
		if !sameInterval(got[i], want[i]) {
			t.Fatalf("Occurrences(%s, %s)[%d] = %+v, want %+v", show(from), show(to), i, got[i], want[i])
		}
	}
}
