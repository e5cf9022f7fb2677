package health

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
)

// BenchmarkCheck_2000Namespaces checks 18,000 live policies (one plan,
// every template, 2,000 namespaces; the live side is the rendered objects
// deep-copied with server metadata and a status) against their render, and
// in the same run measures what it is compared with:
//
//   - render: render.Render of the same input (the goal: check at most
//     0.5 times render);
//   - baseline-maps: only building the two maps a diff needs, live by key
//     and render by key (the floor);
//   - check: the steady state, Repair on (zero actions), cold: every
//     live policy is compared with its render;
//   - check-warm: the same with the previous check's Verified, as an
//     operator keeps it between ticks;
//   - check-foreign-label: every live policy also carries a label another
//     controller added, so the fast path fails and render.HashOf runs for
//     each (the worst case of an intact cluster);
//   - ratios: render, check, the baseline, check-warm and
//     check-foreign-label one after the other in each iteration, so that
//     all meet the same load, reported as the metrics check/render,
//     check/baseline, warm/render, warm/baseline and foreign/render, on
//     the wall clock and (-cpu) on the process's CPU clock.
func BenchmarkCheck_2000Namespaces(b *testing.B) {
	namespaces := make([]string, 2000)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("team-%04d", i)
	}
	p := samplePlan(namespaces)
	in := render.Input{Plan: p, Now: now}
	res := mustRender(b, p)
	live := servedAll(res)
	foreign := withForeignLabel(live)
	for _, c := range []struct {
		name string
		live []*unstructured.Unstructured
	}{{"check", live}, {"check-foreign-label", foreign}} {
		r := Check(Input{Plan: p, Render: res, Live: c.live, Now: now, Repair: true})
		if r.Summary.OK != 18000 || len(r.Actions) != 0 {
			b.Fatalf("%s: %+v, %d actions", c.name, r.Summary, len(r.Actions))
		}
	}
	b.Run("render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := render.Render(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	baseline := func() {
		want := make(map[objKey]*unstructured.Unstructured, len(live))
		for _, pol := range res.Policies {
			for _, o := range pol.Objects {
				want[keyOf(o)] = o
			}
		}
		got := make(map[objKey]*unstructured.Unstructured, len(live))
		for _, o := range live {
			got[keyOf(o)] = o
		}
	}
	b.Run("baseline-maps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			baseline()
		}
	})
	for _, c := range []struct {
		name string
		live []*unstructured.Unstructured
	}{{"check", live}, {"check-foreign-label", foreign}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Check(Input{Plan: p, Render: res, Live: c.live, Now: now, Repair: true})
			}
		})
	}
	warm := Check(Input{Plan: p, Render: res, Live: live, Now: now}).Verified
	b.Run("check-warm", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true, Verified: warm})
		}
	})
	b.Run("ratios", func(b *testing.B) {
		var tRender, tCheck, tWarm, tBaseline, tForeign spent
		for b.Loop() {
			t0 := markNow()
			if _, err := render.Render(in); err != nil {
				b.Fatal(err)
			}
			t1 := markNow()
			Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
			t2 := markNow()
			baseline()
			t3 := markNow()
			Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true, Verified: warm})
			t4 := markNow()
			Check(Input{Plan: p, Render: res, Live: foreign, Now: now, Repair: true})
			t5 := markNow()
			tRender.add(t0, t1)
			tCheck.add(t1, t2)
			tBaseline.add(t2, t3)
			tWarm.add(t3, t4)
			tForeign.add(t4, t5)
		}
		reportRatio(b, tCheck, tRender, "check/render")
		reportRatio(b, tCheck, tBaseline, "check/baseline")
		reportRatio(b, tWarm, tRender, "warm/render")
		reportRatio(b, tWarm, tBaseline, "warm/baseline")
		reportRatio(b, tForeign, tRender, "foreign/render")
	})
}
