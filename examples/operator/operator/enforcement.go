package operator

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// DefaultProbeTimeout bounds one probe: longer than the API server's
// webhook timeout (10 s for Kyverno's), so that a webhook that does not
// answer is reported by the API server itself ("failed calling webhook").
const DefaultProbeTimeout = 15 * time.Second

// Metrics of the enforcement check (issue 21).
var (
	metricVerified = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "protectionplans_enforcement_verified",
		Help: "1 when an active plan's freeze is verified (EnforcementVerified True), 0 when not; no series for plans that are not active.",
	}, []string{"plan", "reason"})
	metricProbes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "protectionplans_probes_total",
		Help: "Server-side dry-run probes sent, by outcome (refused, admitted, unanswered, refused_otherwise).",
	}, []string{"outcome"})
)

// enforcementCollectors are registered with the others.
var enforcementCollectors = []prometheus.Collector{metricVerified, metricProbes}

// enforcer reads the enforcer for the pass, or nil (logged) when it cannot,
// or when the check is off.
func (r *reconciler) enforcer(ctx context.Context) *reconcile.Enforcer {
	if r.cfg.NoEnforcementCheck {
		return nil
	}
	e, err := r.kube.Enforcer(ctx, r.cfg.Target, r.cfg.KyvernoNamespace)
	if err != nil {
		r.fail("list", err, "reading the enforcer; EnforcementVerified is not decided this pass")
		return nil
	}
	return e
}

// sendProbes sends the probes of one plan's decision that the pass has
// not sent yet (log shares them across the pass's plans; nil: a log of
// this plan alone), as server-side dry-run creates, each bounded by
// Config.ProbeTimeout, and judges every probe against the answers.
func (r *reconciler) sendProbes(ctx context.Context, log *reconcile.ProbeLog, probes []health.Probe) []health.ProbeResult {
	timeout := r.cfg.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	if log == nil {
		log = reconcile.NewProbeLog(nil)
	}
	for _, p := range log.ToSend(probes) {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		err := r.c.Create(pctx, p.Object.DeepCopy(), client.DryRunAll, client.FieldOwner(FieldManager))
		cancel()
		a := probeAnswer(err)
		log.Answer(p, a)
		for _, res := range log.Results([]health.Probe{p}) {
			metricProbes.WithLabelValues(string(res.Outcome)).Inc()
		}
	}
	return log.Results(probes)
}

// probeAnswer reads a dry-run's error: none, or an object of the reserved
// name that exists (storage says so after admission), is admitted.
func probeAnswer(err error) health.ProbeAnswer {
	var st apierrors.APIStatus
	switch {
	case err == nil, apierrors.IsAlreadyExists(err):
		return health.ProbeAnswer{Admitted: true}
	case errors.Is(err, context.DeadlineExceeded):
		return health.ProbeAnswer{Timeout: true, Message: err.Error()}
	case errors.As(err, &st):
		return health.ProbeAnswer{Code: int(st.Status().Code), Message: st.Status().Message}
	}
	return health.ProbeAnswer{Code: 500, Message: err.Error()}
}

// setVerified sets a plan's enforcement gauge from its stored condition.
func setVerified(p *plan.ProtectionPlan) {
	metricVerified.DeletePartialMatch(prometheus.Labels{"plan": p.Name})
	if p.Status.Phase != plan.PhaseActive {
		return
	}
	for _, c := range p.Status.Conditions {
		if c.Type != plan.ConditionEnforcementVerified {
			continue
		}
		v := 0.0
		if reconcile.Verified(p) {
			v = 1
		}
		metricVerified.WithLabelValues(p.Name, c.Reason).Set(v)
	}
}
