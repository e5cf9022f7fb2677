package operator

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/telark/protectionplans/plan"
)

// The operator's own metrics, served with controller-runtime's on the
// manager's metrics endpoint (--metrics-bind-address).
var (
	metricPlans = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "protectionplans_plans",
		Help: "Protection plans by phase, at the last reconcile pass.",
	}, []string{"phase"})
	metricRepairs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "protectionplans_policy_repairs_total",
		Help: "Drift repairs carried out on the policies of active plans, and sweeps of policies left behind, by kind of action (Apply, PatchFailureAction, Delete).",
	}, []string{"kind"})
	metricViolations = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "protectionplans_violations_checkpointed_total",
		Help: "Violations added to the plans' ledgers by checkpoints (a violation read again is not counted again).",
	})
	metricTick = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "protectionplans_tick_duration_seconds",
		Help:    "How long one reconcile pass over every plan took.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
	})
	metricGrants = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "protectionplans_breakglass_grants_in_force",
		Help: "Break-glass grants in force (plan.GrantsInForce) over every plan, at the last reconcile pass.",
	})
	metricErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "protectionplans_errors_total",
		Help: "Errors of the reconcile passes, by step (list, apply, status, checkpoint, report).",
	}, []string{"step"})
)

var registerOnce sync.Once

// registerMetrics registers the metrics with controller-runtime's registry,
// once per process (tests start several operators in one process).
func registerMetrics() {
	registerOnce.Do(func() {
		for _, c := range append([]prometheus.Collector{metricPlans, metricRepairs, metricViolations, metricTick, metricErrors, metricGrants}, enforcementCollectors...) {
			var already prometheus.AlreadyRegisteredError
			if err := ctrlmetrics.Registry.Register(c); err != nil && !errors.As(err, &already) {
				panic(err)
			}
		}
		for _, k := range []string{"Apply", "PatchFailureAction", "Delete"} {
			metricRepairs.WithLabelValues(k)
		}
	})
}

// phases lists every phase, so that the gauge shows zeros too.
var phases = []plan.Phase{
	plan.PhasePendingApproval, plan.PhaseScheduled, plan.PhaseActive,
	plan.PhaseTerminated, plan.PhaseCanceled, plan.PhaseFailed,
}

// setPlanGauge sets the plans-by-phase gauge from one pass's counts.
func setPlanGauge(counts map[plan.Phase]int) {
	for _, ph := range phases {
		metricPlans.WithLabelValues(string(ph)).Set(float64(counts[ph]))
	}
}
