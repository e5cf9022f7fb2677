package render

import (
	"testing"
	"time"
)

// BenchmarkRender_CompactVsStandard renders one plan with every template
// over 2,000 namespaces in both layouts, interleaved in each iteration,
// and reports the compact render's time as a multiple of the standard
// one's (compact-x-of-standard). The compact layout renders each
// template's own policy alongside, for its hash (Policy.Parts); the specs
// are shared between namespaces, so that costs hashing, not rendering.
func BenchmarkRender_CompactVsStandard(b *testing.B) {
	p := benchPlan(2000)
	for _, target := range Targets() {
		b.Run(string(target), func(b *testing.B) {
			standard := Input{Plan: p, Now: now, Target: target}
			compact := standard
			compact.Compact = true
			var ts, tc time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := Render(standard); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := Render(compact); err != nil {
					b.Fatal(err)
				}
				ts, tc = ts+t1.Sub(t0), tc+time.Since(t1)
			}
			b.ReportMetric(float64(tc)/float64(ts), "compact-x-of-standard")
		})
	}
}
