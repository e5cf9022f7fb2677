package operator

import (
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// The clock-keeper's liveness (issue 20, item 4; reconcile's liveness.go
// decides, these expose): the PrometheusRule of config/prometheus alerts
// on a pass overdue (ProtectionPlansPassOverdue) and on an edge passed
// without a plan's phase following (ProtectionPlanEdgeMissed).
var (
	metricLastPass = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "protectionplans_last_successful_pass_timestamp_seconds",
		Help: "When the last successful reconcile pass started (Unix seconds): one that read the plans and the cluster and decided every plan. 0 until the first (a replica that is not the leader passes nothing).",
	})
	metricOverdueAfter = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "protectionplans_pass_overdue_after_seconds",
		Help: "How long after the last successful pass the next one is overdue (reconcile.OverdueAfter: two ticks and a minute).",
	})
	metricNextEdge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "protectionplans_plan_next_edge_timestamp_seconds",
		Help: "Each plan's next window edge as stored in its status.nextEdge (Unix seconds), read at the start of each pass: an edge still stored long after it passed means the plan's phase did not follow.",
	}, []string{"plan"})
)

var registerLivenessOnce sync.Once

func registerLivenessMetrics(t reconcile.Timing) {
	registerLivenessOnce.Do(func() {
		for _, c := range []prometheus.Collector{metricLastPass, metricOverdueAfter, metricNextEdge} {
			var already prometheus.AlreadyRegisteredError
			if err := ctrlmetrics.Registry.Register(c); err != nil && !errors.As(err, &already) {
				panic(err)
			}
		}
	})
	metricOverdueAfter.Set(reconcile.OverdueAfter(t).Seconds())
}

// setNextEdges replaces the gauge's series with the plans as listed (as
// stored, not as this pass decides them: a status that fails to store
// leaves its passed edge in the gauge, which is the point).
func setNextEdges(plans []*plan.ProtectionPlan) {
	metricNextEdge.Reset()
	for id, at := range reconcile.NextEdges(plans) {
		metricNextEdge.WithLabelValues(id).Set(float64(at.Unix()))
	}
}

// passSucceeded records a successful pass that started at now.
func passSucceeded(now time.Time) { metricLastPass.Set(float64(now.Unix())) }
