package window_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/telark/protectionplans/window"
)

// The benchmarks compare a compiled Window with what Argo CD's sync windows
// do on every call (pkg/apis/application/v1alpha1, SyncWindow.active): parse
// the cron spec and the duration again, load the zone again, and call Next
// once from t minus the duration. "preparsed" is the same stepping with the
// schedules parsed and the zone loaded once. All three run in the same
// `go test -bench` run, on the same 50 schedules in three zones and the same
// 10,000 instants of 2026.

var benchZones = []string{"UTC", "Europe/Berlin", "America/New_York"}

type benchFixture struct {
	scheds   []window.Schedule
	windows  []*window.Window // one per zone, each with all 50 schedules
	parsed   [][]parsedSchedule
	instants []time.Time
}

type parsedSchedule struct {
	sched cron.Schedule
	dur   time.Duration
}

// benchSchedules returns 50 schedules of the kinds freeze windows use:
// nightly, weekday, weekend and monthly, at quarter hours, lasting 1h to 8h.
func benchSchedules() []window.Schedule {
	rng := rand.New(rand.NewPCG(50, 50))
	days := []string{"* * *", "* * 1-5", "* * 0,6", "* * 5", "1 * *", "1,15 * *", "* 12 *", "* * 2-4"}
	out := make([]window.Schedule, 50)
	for i := range out {
		out[i] = window.Schedule{
			Cron:     fmt.Sprintf("%d %d %s", 15*rng.IntN(4), rng.IntN(24), days[rng.IntN(len(days))]),
			Duration: fmt.Sprintf("%dh", 1+rng.IntN(8)),
		}
	}
	return out
}

func newBenchFixture(tb testing.TB) *benchFixture {
	fx := &benchFixture{scheds: benchSchedules()}
	for _, z := range benchZones {
		spec := window.Spec{Type: window.Recurring, TimeZone: z, Schedules: fx.scheds}
		fx.windows = append(fx.windows, mustParse(tb, spec))
		loc, _ := time.LoadLocation(z)
		var ps []parsedSchedule
		for _, s := range fx.scheds {
			c, _ := cron.ParseStandard(s.Cron)
			c.(*cron.SpecSchedule).Location = loc
			d, _ := time.ParseDuration(s.Duration)
			ps = append(ps, parsedSchedule{c, d})
		}
		fx.parsed = append(fx.parsed, ps)
	}
	rng := rand.New(rand.NewPCG(10000, 2026))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 10000 {
		fx.instants = append(fx.instants, start.Add(time.Duration(rng.Int64N(int64(365*24*time.Hour)))).Truncate(time.Second))
	}
	return fx
}

// call i asks about instant i in zone i.
func (fx *benchFixture) call(i int) (zone int, t time.Time) {
	return i % len(benchZones), fx.instants[i%len(fx.instants)]
}

// argoActive re-parses everything on every call, as Argo CD does.
func argoActive(scheds []window.Schedule, zone string, t time.Time) bool {
	active := false
	for _, s := range scheds {
		c, err := cron.ParseStandard(s.Cron)
		if err != nil {
			continue
		}
		d, err := time.ParseDuration(s.Duration)
		if err != nil {
			continue
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			continue
		}
		c.(*cron.SpecSchedule).Location = loc
		if !c.Next(t.Add(-d)).After(t) {
			active = true
		}
	}
	return active
}

// argoNextEdge re-parses everything on every call and returns the earliest
// edge of any single schedule: the end of its occurrence covering t, or its
// next start. It does not merge overlapping schedules, so it does less work
// than a correct answer needs; the speedup it gives is a lower bound.
func argoNextEdge(scheds []window.Schedule, zone string, t time.Time) time.Time {
	var best time.Time
	for _, s := range scheds {
		c, err := cron.ParseStandard(s.Cron)
		if err != nil {
			continue
		}
		d, err := time.ParseDuration(s.Duration)
		if err != nil {
			continue
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			continue
		}
		c.(*cron.SpecSchedule).Location = loc
		e := c.Next(t.Add(-d))
		if !e.After(t) {
			e = e.Add(d)
		}
		if best.IsZero() || e.Before(best) {
			best = e
		}
	}
	return best
}

func preparsedActive(ps []parsedSchedule, t time.Time) bool {
	active := false
	for _, p := range ps {
		if !p.sched.Next(t.Add(-p.dur)).After(t) {
			active = true
		}
	}
	return active
}

func preparsedNextEdge(ps []parsedSchedule, t time.Time) time.Time {
	var best time.Time
	for _, p := range ps {
		e := p.sched.Next(t.Add(-p.dur))
		if !e.After(t) {
			e = e.Add(p.dur)
		}
		if best.IsZero() || e.Before(best) {
			best = e
		}
	}
	return best
}

var (
	sinkBool bool
	sinkTime time.Time
)

func BenchmarkActive(b *testing.B) {
	fx := newBenchFixture(b)
	b.Run("argo-like", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			z, t := fx.call(i)
			sinkBool = argoActive(fx.scheds, benchZones[z], t)
		}
	})
	b.Run("preparsed", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			z, t := fx.call(i)
			sinkBool = preparsedActive(fx.parsed[z], t)
		}
	})
	b.Run("compiled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			z, t := fx.call(i)
			sinkBool = fx.windows[z].Active(t)
		}
	})
}

func BenchmarkNextEdge(b *testing.B) {
	fx := newBenchFixture(b)
	b.Run("argo-like", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			z, t := fx.call(i)
			sinkTime = argoNextEdge(fx.scheds, benchZones[z], t)
		}
	})
	b.Run("preparsed", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			z, t := fx.call(i)
			sinkTime = preparsedNextEdge(fx.parsed[z], t)
		}
	})
	b.Run("compiled", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			z, t := fx.call(i)
			sinkTime, sinkBool = fx.windows[z].NextEdge(t)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		name   string
		scheds []window.Schedule
	}{
		{"1 schedule", []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}},
		{"50 schedules", benchSchedules()},
	} {
		spec := window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin", Schedules: c.scheds}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := window.Parse(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestActiveAllocs: Active allocates nothing, on ordinary days and on days
// with a transition.
func TestActiveAllocs(t *testing.T) {
	fx := newBenchFixture(t)
	extra := []time.Time{
		when(t, "Sun Mar 29 2026 03:30 Europe/Berlin"),
		when(t, "Sun Oct 25 2026 02:30 +0100 Europe/Berlin"),
		when(t, "Sun Nov 1 2026 01:30 -0500 America/New_York"),
	}
	i := 0
	allocs := testing.AllocsPerRun(20000, func() {
		z, at := fx.call(i)
		if i%7 == 0 {
			at = extra[i%len(extra)]
		}
		sinkBool = fx.windows[z].Active(at)
		i++
	})
	if allocs != 0 {
		t.Fatalf("Active allocates %v times per call, want 0", allocs)
	}
}

// TestBaselineAgrees checks that the baseline answers the same question:
// on the benchmark's 10,000 instants in three zones, Argo-like stepping and
// the compiled window agree on Active.
func TestBaselineAgrees(t *testing.T) {
	fx := newBenchFixture(t)
	for i := range len(fx.instants) {
		z, at := fx.call(i)
		if got, want := fx.windows[z].Active(at), preparsedActive(fx.parsed[z], at); got != want {
			t.Fatalf("%s: compiled %v, robfig stepping %v", show(at.In(fx.windows[z].Location())), got, want)
		}
	}
}

var speedup = flag.Bool("speedup", false, "measure the speedup over the Argo-like baseline and require 100x")

// TestSpeedup (go test -run TestSpeedup -speedup) runs the baseline and the
// compiled window back to back and prints the ratios.
func TestSpeedup(t *testing.T) {
	if !*speedup {
		t.Skip("pass -speedup to measure")
	}
	fx := newBenchFixture(t)
	measure := func(f func(i int)) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				f(i)
			}
		})
	}
	for _, q := range []struct {
		name           string
		argo, compiled func(i int)
	}{
		{"Active", func(i int) { z, at := fx.call(i); sinkBool = argoActive(fx.scheds, benchZones[z], at) },
			func(i int) { z, at := fx.call(i); sinkBool = fx.windows[z].Active(at) }},
		{"NextEdge", func(i int) { z, at := fx.call(i); sinkTime = argoNextEdge(fx.scheds, benchZones[z], at) },
			func(i int) { z, at := fx.call(i); sinkTime, _ = fx.windows[z].NextEdge(at) }},
	} {
		a, c := measure(q.argo), measure(q.compiled)
		ratio := float64(a.NsPerOp()) / float64(max(c.NsPerOp(), 1))
		t.Logf("%s: argo-like %d ns/op %d allocs/op, compiled %d ns/op %d allocs/op, %.0fx",
			q.name, a.NsPerOp(), a.AllocsPerOp(), c.NsPerOp(), c.AllocsPerOp(), ratio)
		if ratio < 100 {
			t.Errorf("%s: %.0fx faster than the Argo-like baseline, want at least 100x", q.name, ratio)
		}
	}
}

// BenchmarkNewYearsEve measures the queries on December 31 of a leap year
// past the transition table of Go's zone database, where Go's zone bounds
// go wrong and zone periods are rebuilt from offsets (zone.go, rebuild),
// against the same queries a year earlier, where the bounds are right:
// Europe/Berlin, nightly 22:00 for 8h, every 10 minutes of the day. The
// ratio is the cost of the rebuild.
func BenchmarkNewYearsEve(b *testing.B) {
	dbs := zoneDBs(b)
	loc := dbs[0].loc(b, "Europe/Berlin") // Go's zone database
	w := mustParse(b, recurring("Europe/Berlin", "0 22 * * *", "8h"), window.WithLocation(loc))
	for _, c := range []struct {
		name string
		day  time.Time
	}{
		{"baseline=2027-12-31", time.Date(2027, 12, 31, 0, 0, 0, 0, time.UTC)},
		{"leap=2028-12-31", time.Date(2028, 12, 31, 0, 0, 0, 0, time.UTC)},
	} {
		var at []time.Time
		for m := 0; m < 24*60; m += 10 {
			at = append(at, c.day.Add(time.Duration(m)*time.Minute))
		}
		b.Run("Active/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				w.Active(at[i%len(at)])
			}
		})
		b.Run("NextEdge/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				w.NextEdge(at[i%len(at)])
			}
		})
		b.Run("Occurrences/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				p := at[i%len(at)]
				w.Occurrences(p.Add(-24*time.Hour), p.Add(24*time.Hour))
			}
		})
	}
}
