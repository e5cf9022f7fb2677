package operator

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

// TestLivenessMetrics: a pass sets the time of the last successful pass;
// each plan's next edge is its status.nextEdge as listed at the start of
// a pass (as stored); status.lastReconciled is stamped by the status
// writes the passes make, and a steady pass writes nothing until it is
// reconcile.DefaultReconciledEvery old, then the status alone.
func TestLivenessMetrics(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop")})
	registerLivenessMetrics(f.r.cfg.Timing)
	if got, want := testutil.ToFloat64(metricOverdueAfter), reconcile.OverdueAfter(f.r.cfg.Timing).Seconds(); got != want {
		t.Errorf("overdue after %v s, want %v", got, want)
	}
	start := f.clock.Now().Add(30 * time.Minute).Truncate(time.Second)
	p := kubectlPlan("release", plan.ModeEnforce, []string{"shop"}, "scaling")
	p.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: start.Add(time.Hour)}}
	if err := f.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	first := f.clock.Now()
	f.pass()
	if got := testutil.ToFloat64(metricLastPass); got != float64(first.Unix()) {
		t.Errorf("last successful pass %v, want %v", got, first.Unix())
	}
	if got := f.plan("release").Status.LastReconciled; got == nil || !got.Time.Equal(first.Truncate(time.Second)) {
		t.Errorf("lastReconciled %v after the first pass, want %v", got, first)
	}
	f.clock.Step(time.Minute)
	if w := f.pass(); len(w) != 0 {
		t.Errorf("a steady pass wrote %v", w)
	}
	if got := testutil.ToFloat64(metricNextEdge.WithLabelValues("release")); got != float64(start.Unix()) {
		t.Errorf("next edge %v, want the start %v", got, start.Unix())
	}
	if got := testutil.ToFloat64(metricLastPass); got != float64(f.clock.Now().Unix()) {
		t.Errorf("last successful pass %v, want this pass's %v", got, f.clock.Now().Unix())
	}
	f.clock.Step(reconcile.DefaultReconciledEvery)
	w := f.pass()
	if len(w) != 1 {
		t.Errorf("a steady pass with the stamp %s old wrote %v, want the status alone", reconcile.DefaultReconciledEvery+time.Minute, w)
	}
	if got := f.plan("release").Status.LastReconciled; got == nil || !got.Time.Equal(f.clock.Now().Truncate(time.Second)) {
		t.Errorf("lastReconciled %v, want this pass's %v", got, f.clock.Now())
	}
	if err := f.c.Delete(t.Context(), f.plan("release")); err != nil {
		t.Fatal(err)
	}
	f.pass()
	if n := testutil.CollectAndCount(metricNextEdge); n != 0 {
		t.Errorf("%d next-edge series once the plan is deleted, want 0", n)
	}
}

// TestLivenessMetrics_ReconciledEveryOff: a negative
// Config.ReconciledEvery stamps nothing, however long the passes run.
func TestLivenessMetrics_ReconciledEveryOff(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("release", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.r.cfg.ReconciledEvery = -1
	f.pass()
	f.clock.Step(time.Minute)
	f.pass()
	f.clock.Step(2 * reconcile.DefaultReconciledEvery)
	if w := f.pass(); len(w) != 0 {
		t.Errorf("a steady pass wrote %v with the stamp off", w)
	}
	if got := f.plan("release").Status.LastReconciled; got != nil {
		t.Errorf("lastReconciled %v with the stamp off", got)
	}
}

// TestRulesNameOurMetrics: every protectionplans_ metric the
// PrometheusRule of config/prometheus reads is one the operator exports,
// so that a renamed metric cannot leave an alert that never fires.
func TestRulesNameOurMetrics(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "config", "prometheus", "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{}
	descs := make(chan *prometheus.Desc, 100)
	go func() {
		for _, c := range append([]prometheus.Collector{metricPlans, metricRepairs, metricViolations, metricTick, metricErrors, metricGrants,
			metricNextActivation, metricLastPass, metricOverdueAfter, metricNextEdge}, enforcementCollectors...) {
			c.Describe(descs)
		}
		close(descs)
	}()
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range descs {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			ours[m[1]] = true
		}
	}
	var read []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue // the commented-out rules
		}
		read = append(read, regexp.MustCompile(`protectionplans_[a-z_]+`).FindAllString(line, -1)...)
	}
	if len(read) == 0 {
		t.Fatal("the rules read no protectionplans_ metric")
	}
	for _, name := range read {
		if !ours[name] {
			t.Errorf("the rules read %s, which the operator does not export", name)
		}
	}
}
