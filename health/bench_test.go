package health

import (
	"fmt"
	"testing"
	"time"

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
//   - ratios: render, check, the baseline and check-warm one after the
//     other in each iteration, so that all meet the same load, reported as
//     the metrics check/render, check/baseline, warm/render and
//     warm/baseline.
func BenchmarkCheck_2000Namespaces(b *testing.B) {
	namespaces := make([]string, 2000)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("team-%04d", i)
	}
	p := samplePlan(namespaces)
	in := render.Input{Plan: p, Now: now}
	res := mustRender(b, p)
	live := servedAll(res)
	foreign := make([]*unstructured.Unstructured, len(live))
	for i, o := range live {
		foreign[i] = o.DeepCopy()
		l := foreign[i].GetLabels()
		l["example.com/owner"] = "platform"
		foreign[i].SetLabels(l)
	}
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
		var tRender, tCheck, tWarm, tBaseline time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := render.Render(in); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
			t2 := time.Now()
			baseline()
			t3 := time.Now()
			Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true, Verified: warm})
			t4 := time.Now()
			tRender, tCheck, tBaseline, tWarm = tRender+t1.Sub(t0), tCheck+t2.Sub(t1), tBaseline+t3.Sub(t2), tWarm+t4.Sub(t3)
		}
		b.ReportMetric(float64(tCheck)/float64(tRender), "check/render")
		b.ReportMetric(float64(tCheck)/float64(tBaseline), "check/baseline")
		b.ReportMetric(float64(tWarm)/float64(tRender), "warm/render")
		b.ReportMetric(float64(tWarm)/float64(tBaseline), "warm/baseline")
	})
}
