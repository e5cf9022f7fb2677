package health

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/internal/cputime"
	"github.com/telark/protectionplans/render"
)

// BenchmarkCheck_Scale checks one plan of every template over 10 to 10,000
// namespaces (90 to 90,000 live policies) and, in each iteration, renders
// the same plan first, so that both meet the same load (heap size, GC,
// caches). It reports:
//
//   - check-ns/policy: a cold check (Repair on, no Verified), per live
//     policy; constant across sizes when the check is linear;
//   - check/render: the cold check as a multiple of the render;
//   - foreign/render: the same check of live policies that all carry a
//     label another controller added (the fast path's worst case), as a
//     multiple of the render;
//   - the same on the process's CPU clock (-cpu, check-cpu-ns/policy),
//     which a loaded machine disturbs less than the wall clock;
//   - render-cpu-ns/policy: the render's CPU time per policy, for its own
//     growth.
//
// The growth exponents k (time ~ n^k) of the check and the render are
// fitted from check-cpu-ns/policy and render-cpu-ns/policy across the
// sizes; -benchtime 1x is enough for the largest.
func BenchmarkCheck_Scale(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 2000, 10000} {
		namespaces := make([]string, n)
		for i := range namespaces {
			namespaces[i] = fmt.Sprintf("team-%05d", i)
		}
		p := samplePlan(namespaces)
		in := render.Input{Plan: p, Now: now}
		res := mustRender(b, p)
		live := servedAll(res)
		foreign := withForeignLabel(live)
		for _, l := range [][]*unstructured.Unstructured{live, foreign} {
			r := Check(Input{Plan: p, Render: res, Live: l, Now: now, Repair: true})
			if r.Summary.OK != len(live) || len(r.Actions) != 0 {
				b.Fatalf("%d namespaces: %+v, %d actions", n, r.Summary, len(r.Actions))
			}
		}
		b.Run(fmt.Sprintf("policies=%d", len(live)), func(b *testing.B) {
			var tRender, tCheck, tForeign spent
			for b.Loop() {
				t0 := markNow()
				if _, err := render.Render(in); err != nil {
					b.Fatal(err)
				}
				t1 := markNow()
				Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
				t2 := markNow()
				Check(Input{Plan: p, Render: res, Live: foreign, Now: now, Repair: true})
				t3 := markNow()
				tRender.add(t0, t1)
				tCheck.add(t1, t2)
				tForeign.add(t2, t3)
			}
			perPolicy := float64(b.N) * float64(len(live))
			b.ReportMetric(float64(tCheck.wall.Nanoseconds())/perPolicy, "check-ns/policy")
			b.ReportMetric(float64(tCheck.cpu.Nanoseconds())/perPolicy, "check-cpu-ns/policy")
			b.ReportMetric(float64(tRender.cpu.Nanoseconds())/perPolicy, "render-cpu-ns/policy")
			reportRatio(b, tCheck, tRender, "check/render")
			reportRatio(b, tForeign, tRender, "foreign/render")
		})
	}
}

// withForeignLabel copies live objects and adds to each a label another
// controller set.
func withForeignLabel(live []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(live))
	for i, o := range live {
		out[i] = o.DeepCopy()
		l := out[i].GetLabels()
		l["example.com/owner"] = "platform"
		out[i].SetLabels(l)
	}
	return out
}

// mark is an instant on the wall clock and on the process's CPU clock.
type mark struct {
	wall time.Time
	cpu  time.Duration
}

func markNow() mark { return mark{time.Now(), cputime.Used()} }

// spent sums the wall and CPU time between marks.
type spent struct{ wall, cpu time.Duration }

func (s *spent) add(from, to mark) {
	s.wall += to.wall.Sub(from.wall)
	s.cpu += to.cpu - from.cpu
}

// reportRatio reports a/b as metric name on the wall clock and as
// name+"-cpu" on the CPU clock.
func reportRatio(b *testing.B, a, c spent, name string) {
	b.ReportMetric(float64(a.wall)/float64(c.wall), name)
	b.ReportMetric(float64(a.cpu)/float64(c.cpu), name+"-cpu")
}
