package window_test

import (
	"flag"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

// twentyDates returns 20 exception dates spread over 2026, as a holiday
// list is.
func twentyDates() []window.Exception {
	var out []window.Exception
	for i := range 20 {
		out = append(out, window.Exception{Date: time.Date(2026, 1, 1+18*i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)})
	}
	return out
}

// shapedWindows returns, per zone, the benchmark's 50 schedules with 20
// exception dates, and the same as an allow window.
func shapedWindows(tb testing.TB, fx *benchFixture) (except, allowed []*window.Window) {
	for _, z := range benchZones {
		spec := window.Spec{Type: window.Recurring, TimeZone: z, Schedules: fx.scheds, Except: twentyDates()}
		except = append(except, mustParse(tb, spec))
		spec.Freeze = window.FreezeOutside
		allowed = append(allowed, mustParse(tb, spec))
	}
	return except, allowed
}

// BenchmarkActiveShapes: "plain" is today's Active on the 50 schedules,
// the in-run baseline; "20 dates" the same schedules with 20 exception
// dates; "allow, 20 dates" the same as an allow window. The goal is
// within 2x of plain.
func BenchmarkActiveShapes(b *testing.B) {
	fx := newBenchFixture(b)
	except, allowed := shapedWindows(b, fx)
	for _, c := range []struct {
		name string
		ws   []*window.Window
	}{{"plain", fx.windows}, {"20 dates", except}, {"allow, 20 dates", allowed}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				z, t := fx.call(i)
				sinkBool = c.ws[z].Active(t)
			}
		})
	}
}

// TestActiveShapesAllocs: Active on a window with exceptions, or an allow
// window, allocates nothing either.
func TestActiveShapesAllocs(t *testing.T) {
	fx := newBenchFixture(t)
	except, allowed := shapedWindows(t, fx)
	sched := exceptSchedule(recurring("Europe/Berlin", "0 22 * * *", "8h"), "30 2 * * *", "1h")
	ws := append(append(except, allowed...), mustParse(t, sched))
	i := 0
	allocs := testing.AllocsPerRun(20000, func() {
		_, at := fx.call(i)
		sinkBool = ws[i%len(ws)].Active(at)
		i++
	})
	if allocs != 0 {
		t.Fatalf("Active allocates %v times per call, want 0", allocs)
	}
}

var shapesRatio = flag.Bool("shapes-ratio", false, "measure Active with 20 exception dates against plain Active and require at most 2x")

// TestActiveShapesRatio (go test -run TestActiveShapesRatio
// -shapes-ratio) measures plain Active and Active with 20 exception dates
// (and as an allow window) back to back, five rounds, so that a busy
// machine slows both alike, and prints the ratios' min/median/max. The
// goal is a median within 2x.
func TestActiveShapesRatio(t *testing.T) {
	if !*shapesRatio {
		t.Skip("pass -shapes-ratio to measure")
	}
	fx := newBenchFixture(t)
	except, allowed := shapedWindows(t, fx)
	measure := func(ws []*window.Window) float64 {
		r := testing.Benchmark(func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				z, at := fx.call(i)
				sinkBool = ws[z].Active(at)
			}
		})
		return float64(r.T.Nanoseconds()) / float64(r.N)
	}
	var dates, allows []float64
	best := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	for round := range *shapesRounds {
		p, d, a := measure(fx.windows), measure(except), measure(allowed)
		t.Logf("round %d: plain %.0f ns/op, 20 dates %.0f ns/op (%.2fx), allow with 20 dates %.0f ns/op (%.2fx)", round+1, p, d, d/p, a, a/p)
		dates, allows = append(dates, d/p), append(allows, a/p)
		best = [3]float64{min(best[0], p), min(best[1], d), min(best[2], a)}
	}
	slices.Sort(dates)
	slices.Sort(allows)
	mid, last := len(dates)/2, len(dates)-1
	t.Logf("20 dates / plain: min %.2fx, median %.2fx, max %.2fx", dates[0], dates[mid], dates[last])
	t.Logf("allow, 20 dates / plain: min %.2fx, median %.2fx, max %.2fx", allows[0], allows[mid], allows[last])
	// The fastest round of each is the one a busy machine disturbed
	// least: their ratio is the steadiest figure under load.
	t.Logf("fastest rounds: plain %.0f ns/op, 20 dates %.0f ns/op (%.2fx), allow with 20 dates %.0f ns/op (%.2fx)",
		best[0], best[1], best[1]/best[0], best[2], best[2]/best[0])
	if dates[mid] > 2 || allows[mid] > 2 {
		t.Errorf("median ratios %.2fx and %.2fx, want at most 2x", dates[mid], allows[mid])
	}
	if best[1]/best[0] > 2 || best[2]/best[0] > 2 {
		t.Errorf("fastest-round ratios %.2fx and %.2fx, want at most 2x", best[1]/best[0], best[2]/best[0])
	}
}

var shapesRounds = flag.Int("shapes-rounds", 5, "rounds of TestActiveShapesRatio")
