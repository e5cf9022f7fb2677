package operator

import (
	"errors"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/telark/protectionplans/plan"
)

// metricNextActivation is when each scheduled plan's freeze starts next
// (its status.nextEdge), for the PrometheusRule's "a freeze starts within
// an hour" alert (config/prometheus). Only scheduled plans have a series:
// an active plan's next edge is its end.
var metricNextActivation = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "protectionplans_plan_next_activation_timestamp_seconds",
	Help: "When each scheduled plan's window opens next (Unix seconds), at the last reconcile pass.",
}, []string{"plan"})

var registerActivationOnce sync.Once

func registerActivationMetric() {
	registerActivationOnce.Do(func() {
		var already prometheus.AlreadyRegisteredError
		if err := ctrlmetrics.Registry.Register(metricNextActivation); err != nil && !errors.As(err, &already) {
			panic(err)
		}
	})
}

// setNextActivations replaces the gauge's series with the scheduled plans
// of one pass (a plan that left scheduled or was deleted loses its series).
func setNextActivations(plans []*plan.ProtectionPlan) {
	metricNextActivation.Reset()
	for _, p := range plans {
		if p.Status.Phase == plan.PhaseScheduled && p.Status.NextEdge != nil {
			metricNextActivation.WithLabelValues(p.Name).Set(float64(p.Status.NextEdge.Unix()))
		}
	}
}
