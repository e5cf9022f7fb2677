package report

import (
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/telark/protectionplans/internal/cputime"
)

// BenchmarkRender_5000Violations writes a report of 5,000 violations (the
// ledger's cap) in every format, after json.Marshal of the same model
// measured in the same run. Each sub-benchmark reports its time as a
// multiple of that baseline ("x-json.Marshal"); the goal is at most 3.
func BenchmarkRender_5000Violations(b *testing.B) { benchmarkFormats(b, MaxViolations) }

// BenchmarkRender_500Violations is the same at a tenth of the cap, where
// the page's fixed costs (styles, timeline, tables other than the
// violations) weigh most; the goal is at most 1.5.
func BenchmarkRender_500Violations(b *testing.B) { benchmarkFormats(b, 500) }

// benchmarkFormats writes a report of n violations in every format, each
// against json.Marshal of the same model in the same run. The last
// sub-benchmark, ratios, alternates json.Marshal and every format in each
// iteration, so that all meet the same load, and reports each format's
// time over json.Marshal's as <format>-x-json.Marshal, on the wall clock
// and (-cpu) on the process's CPU clock, which a loaded machine disturbs
// less.
func benchmarkFormats(b *testing.B, n int) {
	r := mustBuild(b, bigInput(b, n))
	defer b.Run("ratios", func(b *testing.B) {
		type spent struct{ wall, cpu time.Duration }
		var base spent
		formats := Formats()
		per := make([]spent, len(formats))
		lap := func(s *spent, f func()) {
			w, c := time.Now(), cputime.Used()
			f()
			s.wall += time.Since(w)
			s.cpu += cputime.Used() - c
		}
		for b.Loop() {
			lap(&base, func() {
				if _, err := json.Marshal(r); err != nil {
					b.Fatal(err)
				}
			})
			for i, f := range formats {
				lap(&per[i], func() {
					if err := Write(io.Discard, r, f); err != nil {
						b.Fatal(err)
					}
				})
			}
		}
		for i, f := range formats {
			b.ReportMetric(float64(per[i].wall)/float64(base.wall), string(f)+"-x-json.Marshal")
			b.ReportMetric(float64(per[i].cpu)/float64(base.cpu), string(f)+"-x-json.Marshal-cpu")
		}
	})
	var base float64 // ns per json.Marshal, from the first sub-benchmark
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
		base = perOp(b)
		b.ReportMetric(1, "x-json.Marshal")
	})
	for _, f := range Formats() {
		b.Run(string(f), func(b *testing.B) {
			if base == 0 { // the baseline was filtered out: measure it here
				base = marshalTime(b, r)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := Write(io.Discard, r, f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(perOp(b)/base, "x-json.Marshal")
		})
	}
}

func perOp(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(max(b.N, 1)) }

// marshalTime measures json.Marshal of r for about half a second.
func marshalTime(b *testing.B, r Report) float64 {
	n, start := 0, time.Now()
	for time.Since(start) < 500*time.Millisecond {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

func BenchmarkBuild_5000Violations(b *testing.B) {
	in := bigInput(b, MaxViolations)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(in); err != nil {
			b.Fatal(err)
		}
	}
}
