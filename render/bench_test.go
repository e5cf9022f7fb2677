package render

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
)

// benchPlan is one plan with every template over n namespaces.
func benchPlan(n int) *plan.ProtectionPlan {
	namespaces := make([]string, n)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("team-%04d", i)
	}
	p := namespacePlan(plan.ModeEnforce, namespaces, allTemplates()...)
	p.Spec.Exclusions.Kinds = []string{"ConfigMap"}
	return p
}

// BenchmarkRender_2000Namespaces renders one plan with every template over
// 2,000 namespaces (18,000 policies) for each target and, in the same run,
// each target's baseline: json.Marshal of the very objects Render returns
// (for vap, a policy and a binding each). The goal is a render costing at
// most 1.5 times its baseline.
func BenchmarkRender_2000Namespaces(b *testing.B) {
	p := benchPlan(2000)
	for _, target := range Targets() {
		in := Input{Plan: p, Now: now, Target: target}
		res, err := Render(in)
		if err != nil {
			b.Fatal(err)
		}
		objs := res.Objects()
		b.Run(string(target)+"/render", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(in); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(target)+"/baseline-json-marshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, o := range objs {
					if _, err := json.Marshal(o.Object); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkRenderVsJSON times, in each iteration, a render and then
// json.Marshal of every object it returned, and reports their ratio
// (x-of-json-marshal; the goal is at most 1.5 at every size, fixed costs
// included at 10 namespaces). Interleaving the two keeps the ratio honest
// on a busy machine. After the loop it measures the heap one render keeps
// alive (after a GC, the result still referenced) against the size of its
// JSON (retained-x-of-json; the goal is at most 1.5).
func BenchmarkRenderVsJSON(b *testing.B) {
	for _, n := range []int{10, 2000} {
		p := benchPlan(n)
		for _, target := range Targets() {
			in := Input{Plan: p, Now: now, Target: target}
			b.Run(fmt.Sprintf("%dns/%s", n, target), func(b *testing.B) {
				var renderNs, jsonNs int64
				for b.Loop() {
					t0 := time.Now()
					res, err := Render(in)
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					for _, pol := range res.Policies {
						for _, o := range pol.Objects {
							if _, err := json.Marshal(o.Object); err != nil {
								b.Fatal(err)
							}
						}
					}
					renderNs += t1.Sub(t0).Nanoseconds()
					jsonNs += time.Since(t1).Nanoseconds()
				}
				b.ReportMetric(float64(renderNs)/float64(b.N), "render-ns/op")
				b.ReportMetric(float64(jsonNs)/float64(b.N), "json-ns/op")
				b.ReportMetric(float64(renderNs)/float64(jsonNs), "x-of-json-marshal")
				retained, size := retainedHeap(b, in)
				b.ReportMetric(float64(retained)/float64(size), "retained-x-of-json")
			})
		}
	}
}

// retainedHeap renders in and returns the heap the result keeps alive after
// a GC and the size of its objects as JSON.
func retainedHeap(tb testing.TB, in Input) (retained, jsonSize uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Render(in)
	if err != nil {
		tb.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, o := range res.Objects() {
		data, err := json.Marshal(o.Object)
		if err != nil {
			tb.Fatal(err)
		}
		jsonSize += uint64(len(data))
	}
	runtime.KeepAlive(res)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc), jsonSize
}

// TestRenderPeakRSS (RENDER_PEAK_RSS=1 go test -run TestRenderPeakRSS -v
// ./render) renders one plan with every template over 10,000 namespaces
// (90,000 policies) per target, each in a process of its own, and reports
// the process's peak RSS (VmHWM), the heap the result keeps alive against
// its JSON size, and the render's time. The goal is a peak under 400 MB.
func TestRenderPeakRSS(t *testing.T) {
	if target := os.Getenv("RENDER_PEAK_RSS_CHILD"); target != "" {
		peakRSSChild(t, Target(target))
		return
	}
	if os.Getenv("RENDER_PEAK_RSS") == "" {
		t.Skip("set RENDER_PEAK_RSS=1 to measure")
	}
	for _, target := range Targets() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRenderPeakRSS$", "-test.v")
		cmd.Env = append(os.Environ(), "RENDER_PEAK_RSS_CHILD="+string(target))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", target, err, out)
		}
		var line string
		for l := range strings.Lines(string(out)) {
			if i := strings.Index(l, "peak-rss-mb="); i >= 0 {
				line = strings.TrimSpace(l[i:])
			}
		}
		t.Logf("%s: %s", target, line)
		var mb float64
		if _, err := fmt.Sscanf(line, "peak-rss-mb=%g", &mb); err != nil {
			t.Fatalf("%s: no figure in the child's output:\n%s", target, out)
		}
		if mb >= 400 {
			t.Errorf("%s: peak RSS %.0f MB, want under 400 MB", target, mb)
		}
	}
}

func peakRSSChild(t *testing.T, target Target) {
	in := Input{Plan: benchPlan(10000), Now: now, Target: target}
	t0 := time.Now()
	if _, err := Render(in); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(t0)
	hwm := vmHWM(t)
	retained, size := retainedHeap(t, in)
	t.Logf("peak-rss-mb=%.1f retained-x-of-json=%.2f retained-mb=%.1f json-mb=%.1f render-s=%.2f",
		float64(hwm)/(1<<20), float64(retained)/float64(size), float64(retained)/(1<<20), float64(size)/(1<<20), elapsed.Seconds())
}

// vmHWM is the process's peak resident set size, in bytes.
func vmHWM(t *testing.T) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
