package operator

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// TestNextActivationGauge: a scheduled plan has a series at its window's
// start (what the PrometheusRule's FreezeStartsWithinAnHour compares with
// time()); once active it has none, and an active plan never had one.
func TestNextActivationGauge(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop")})
	start := f.clock.Now().Add(30 * time.Minute).Truncate(time.Second)
	later := kubectlPlan("release", plan.ModeEnforce, []string{"shop"}, "scaling")
	later.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: start.Add(time.Hour)}}
	if err := f.c.Create(t.Context(), later); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Create(t.Context(), kubectlPlan("always", plan.ModeEnforce, []string{"shop"}, "scaling")); err != nil {
		t.Fatal(err)
	}
	f.pass()
	if got := f.plan("release").Status.Phase; got != plan.PhaseScheduled {
		t.Fatalf("phase %q, want scheduled", got)
	}
	if n := testutil.CollectAndCount(metricNextActivation); n != 1 {
		t.Errorf("%d series, want 1 (the scheduled plan only)", n)
	}
	if got := testutil.ToFloat64(metricNextActivation.WithLabelValues("release")); got != float64(start.Unix()) {
		t.Errorf("next activation = %v, want %v", got, start.Unix())
	}
	f.clock.Step(31 * time.Minute)
	f.pass()
	if got := f.plan("release").Status.Phase; got != plan.PhaseActive {
		t.Fatalf("phase %q after the start, want active", got)
	}
	if n := testutil.CollectAndCount(metricNextActivation); n != 0 {
		t.Errorf("%d series once every plan is active, want 0", n)
	}
}
