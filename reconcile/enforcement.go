package reconcile

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// Enforcer is what a pass read of the enforcer, the same for every plan
// (health.EnforcementInput's cluster-wide half). A Cluster without one
// decides no EnforcementVerified.
type Enforcer struct {
	// Webhooks are Kyverno's ValidatingWebhookConfigurations (label
	// health.KyvernoWebhookLabel); none for the vap target.
	Webhooks []*unstructured.Unstructured
	// Exceptions are the PolicyExceptions of both APIs, every namespace.
	Exceptions []*unstructured.Unstructured
	// KyvernoConfig is Kyverno's ConfigMap, nil when not found.
	KyvernoConfig *unstructured.Unstructured
	// NamespaceLabels are the namespaces' labels, by name.
	NamespaceLabels map[string]map[string]string
	// Guard is the guard as found (health.GuardPolicyName); nil when not
	// read.
	Guard *health.GuardState
}

// probesDue returns the probes the pass must send before it decides the
// plan's EnforcementVerified: with Settings.Probe, an enforcer read, an
// active plan whose policies are in place (health found no drift) and
// which this pass did not write (a policy just applied may not be
// registered by Kyverno yet: probing it would report a failure that is
// not one), and no answers yet (Input.Probes is nil).
func (d *pass) probesDue(fail *Failure, check *health.Result, c *Carried) []health.Probe {
	in := d.in
	if !in.Settings.Probe || in.Probes != nil || in.Cluster.Enforcer == nil || fail != nil || check == nil ||
		d.p.Status.Phase != plan.PhaseActive || len(c.Done) > 0 {
		return nil
	}
	if h := check.Condition(plan.ConditionPoliciesHealthy); h == nil || h.Status != metav1.ConditionTrue {
		return nil
	}
	return health.Probes(d.p, d.render)
}

// recordEnforcement decides and records EnforcementVerified
// (health.Enforcement, health.RecordEnforcement) when the pass read the
// enforcer and checked the plan's health. A pass that wrote policies
// judges the objects the server returned, as recordHealth does.
func (d *pass) recordEnforcement(check *health.Result, c *Carried) {
	in := d.in
	e := in.Cluster.Enforcer
	if e == nil || check == nil {
		return
	}
	live := in.Live
	if len(c.Written) > 0 || len(c.Deleted) > 0 {
		live = liveAfter(in.Live, c)
	}
	res := health.Enforcement(health.EnforcementInput{
		Plan: d.p, Render: d.render, Live: live, Now: in.Now,
		Webhooks: e.Webhooks, Exceptions: e.Exceptions, KyvernoConfig: e.KyvernoConfig,
		NamespaceLabels: e.NamespaceLabels, Guard: e.Guard, Probes: in.Probes,
	})
	rec := health.RecordEnforcement(d.p, res, in.Now)
	d.p, d.events = rec.Plan, append(d.events, rec.Events...)
	d.out.Enforcement = &res
}

// Verified reports whether a plan's stored EnforcementVerified is True
// (false when it has none: not checked is not verified).
func Verified(p *plan.ProtectionPlan) bool {
	c := meta.FindStatusCondition(p.Status.Conditions, plan.ConditionEnforcementVerified)
	return c != nil && c.Status == metav1.ConditionTrue
}

// recordFailedEnforcement decides EnforcementVerified for a pass that
// failed the plan, when the pass read the enforcer: False (PlanFailed),
// so that a plan whose policy was deleted and whose repair the cluster
// refused does not keep the True of its last verified pass.
func (d *pass) recordFailedEnforcement() {
	if d.in.Cluster.Enforcer == nil || d.p.Status.Phase != plan.PhaseFailed {
		return
	}
	res := health.Enforcement(health.EnforcementInput{Plan: d.p, Render: d.render, Now: d.in.Now})
	rec := health.RecordEnforcement(d.p, res, d.in.Now)
	d.p, d.events = rec.Plan, append(d.events, rec.Events...)
	d.out.Enforcement = &res
}
