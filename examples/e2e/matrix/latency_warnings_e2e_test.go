//go:build e2e

package matrix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// TestWarningsLatency measures what the clock's time conditions and the
// advance warnings (issue 20) cost at admission, per target, in scope:
// the every-template plan of TestAdmissionLatency, active in a time range
// (a day around now), rendered twice, as it is (plain-*) and with
// render.Input.Clock alone (time-*: the time tests in every rule; vap has
// none, its render is the plain one) and with Clock and Warnings
// (clock-*: also the warning policy, whose Active warning the annotation
// change reads). Cells as TestAdmissionLatency's, with the
// same baselines (kube-system), interleaved and shuffled each round; the
// goal is an in-scope overhead at most 1.1 times the plain plan's, for
// admitted changes (patch) and refusals (scale). It logs each cell's
// min/median/max and writes latency-warnings.md into the run's directory.
func TestWarningsLatency(t *testing.T) {
	n, lt := latencySetup(t)
	var results []phaseResult
	var lines []string
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) {
			ctx := t.Context()
			short := map[render.Target]string{render.TargetKyverno: "kyv", render.TargetKyvernoCEL: "cel", render.TargetVAP: "vap"}[target]
			nsOf := func(what string) string { return "latw-" + short + "-" + what }
			now := time.Now()
			var objs []*unstructured.Unstructured
			for _, what := range []string{"plain", "time", "clock"} {
				ns := nsOf(what)
				if err := createNamespace(ctx, s.c, ns); err != nil {
					t.Fatal(err)
				}
				if err := createDeployment(ctx, ns, "web"); err != nil {
					t.Fatal(err)
				}
				p := latencyPlan(ns, ns, catalogNames()...)
				p.Spec.Window = window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin",
					StartAt: &metav1.Time{Time: now.Add(-time.Hour)}, EndAt: &metav1.Time{Time: now.Add(23 * time.Hour)}}
				in := render.Input{Plan: p, Now: now, Target: target}
				switch what {
				case "time":
					in.Clock = true
				case "clock":
					in.Clock, in.Warnings = true, true
				}
				res, err := render.Render(in)
				if err != nil {
					t.Fatal(err)
				}
				objs = append(objs, res.Objects()...)
			}
			specOf(target).applyPolicies(t, objs, "e2e-latency-warnings")
			eventually(t, 2*time.Minute, "both plans refusing, the clocked one warning", func() (string, bool) {
				for _, what := range []string{"plain", "time", "clock"} {
					if code, body := lt.scale(ctx, nsOf(what), "web", 3); code < 400 {
						return fmt.Sprintf("scale in %s admitted (%d %s)", nsOf(what), code, body), false
					}
				}
				_, stderr, err := s.env.Kubectl(ctx, "-n", nsOf("clock"), "annotate", "--overwrite", "--dry-run=server", "deployment/web", "latw=1")
				if err != nil || !strings.Contains(stderr, "is in force") {
					return fmt.Sprintf("no Active warning: %v %s", err, stderr), false
				}
				return "", true
			})
			time.Sleep(3 * time.Second) // Kyverno's other webhook configuration, if any
			r := lt.measure(t, string(target), n, []cell{
				{name: "base-patch", ns: "kube-system", deploy: "lat-web"},
				{name: "plain-patch", ns: nsOf("plain"), deploy: "web"},
				{name: "time-patch", ns: nsOf("time"), deploy: "web"},
				{name: "clock-patch", ns: nsOf("clock"), deploy: "web"},
				{name: "base-scale", ns: "kube-system", deploy: "lat-web", scale: true},
				{name: "plain-scale", ns: nsOf("plain"), deploy: "web", scale: true, refused: true},
				{name: "time-scale", ns: nsOf("time"), deploy: "web", scale: true, refused: true},
				{name: "clock-scale", ns: nsOf("clock"), deploy: "web", scale: true, refused: true},
			})
			results = append(results, r)
			for _, c := range r.cells {
				sorted := sortedCopy(r.samples[c.name])
				lines = append(lines, fmt.Sprintf("| %s | %s | %.2f | %.2f | %.2f | %.2f |", target, c.name,
					ms(sorted[0]), ms(percentile(sorted, 50)), ms(sorted[len(sorted)-1]), ms(percentile(sorted, 99))))
			}
			for _, kind := range []string{"patch", "scale"} {
				plain, _, _ := medianDiffCI(r.samples["plain-"+kind], r.samples["base-"+kind])
				tm, _, _ := medianDiffCI(r.samples["time-"+kind], r.samples["base-"+kind])
				clock, lo, hi := medianDiffCI(r.samples["clock-"+kind], r.samples["base-"+kind])
				ratio := func(a float64) string {
					if plain <= 0 {
						return "n/a"
					}
					return fmt.Sprintf("%.2f", a/plain)
				}
				p50 := func(c string) float64 { return ms(percentile(sortedCopy(r.samples[c+"-"+kind]), 50)) }
				line := fmt.Sprintf("%s %s: in-scope overhead %+.2f ms [%+.2f, %+.2f] with the time conditions and warnings (%s the plain plan's %+.2f ms; p50 %.2fx), %+.2f ms with the time conditions alone (%s; p50 %.2fx) (goal <= 1.1)",
					target, kind, clock, lo, hi, ratio(clock), plain, p50("clock")/p50("plain"), tm, ratio(tm), p50("time")/p50("plain"))
				t.Log(line)
				lines = append(lines, "<!-- "+line+" -->")
			}
		})
	}
	table := fmt.Sprintf("# Time conditions and warnings at admission (%d requests per cell)\n\n| target | cell | min ms | p50 ms | max ms | p99 ms |\n| --- | --- | ---: | ---: | ---: | ---: |\n%s\n",
		n, strings.Join(lines, "\n"))
	t.Log("\n" + table)
	if err := os.WriteFile(filepath.Join(s.env.Dir, "latency-warnings.md"), []byte(table), 0o644); err != nil {
		t.Error(err)
	}
}
