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
//   - walk: only reading every map entry and list item of every live
//     object once (walkLive), which any exact cold check must do: the
//     floor of a check on live objects that are not in the processor's
//     caches;
//   - ratios: render, check, the baseline, check-warm,
//     check-foreign-label and the walk one after the other in each
//     iteration, so that all meet the same load, reported as the metrics
//     check/render, check/baseline, warm/render, warm/baseline,
//     foreign/render, walk/render and check/walk, on the wall clock and
//     (-cpu) on the process's CPU clock.
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
		var tRender, tCheck, tWarm, tBaseline, tForeign, tWalk spent
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
			walkLive(live)
			t6 := markNow()
			tRender.add(t0, t1)
			tCheck.add(t1, t2)
			tBaseline.add(t2, t3)
			tWarm.add(t3, t4)
			tForeign.add(t4, t5)
			tWalk.add(t5, t6)
		}
		reportRatio(b, tCheck, tRender, "check/render")
		reportRatio(b, tCheck, tBaseline, "check/baseline")
		reportRatio(b, tWarm, tRender, "warm/render")
		reportRatio(b, tWarm, tBaseline, "warm/baseline")
		reportRatio(b, tForeign, tRender, "foreign/render")
		reportRatio(b, tWalk, tRender, "walk/render")
		reportRatio(b, tCheck, tWalk, "check/walk")
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkLive(live)
		}
	})
}

// walkSink keeps walkLive's count alive.
var walkSink int

// walkLive reads once every map entry, list item and string header of
// what a check compares in the live objects (all but status and the
// metadata the server sets) and compares nothing.
func walkLive(live []*unstructured.Unstructured) {
	n := 0
	for _, o := range live {
		for k, v := range o.Object {
			switch k {
			case "status":
			case "metadata":
				md, _ := v.(map[string]any)
				for _, f := range []string{"name", "namespace", "labels", "annotations"} {
					n += walkJSON(md[f])
				}
			default:
				n += walkJSON(v)
			}
		}
	}
	walkSink = n
}

func walkJSON(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 0
		for k, e := range x {
			n += len(k) + walkJSON(e)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += walkJSON(e)
		}
		return n
	case string:
		return len(x)
	}
	return 1
}
