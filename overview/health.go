package overview

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// HealthCheck is a health refresh (R-H3) as a portal shows it: computed
// at CheckedAt from the live policies and a fresh render, not stored,
// nothing repaired.
type HealthCheck struct {
	Plan       string             `json:"plan"`
	Phase      plan.Phase         `json:"phase"`
	CheckedAt  time.Time          `json:"checkedAt"`
	Healthy    bool               `json:"healthy"`
	Summary    HealthSummary      `json:"summary"`
	Policies   []PolicyHealth     `json:"policies"`
	Conditions []metav1.Condition `json:"conditions"`
	// Verdict is the PoliciesHealthy condition's message, for people.
	Verdict string `json:"verdict,omitempty"`
	// RenderError says why the plan could not be rendered (e.g. an
	// application no longer resolves); the check then compares the live
	// policies with nothing.
	RenderError string `json:"renderError,omitempty"`
}

// HealthSummary counts the policies by state.
type HealthSummary struct {
	Rendered      int `json:"rendered"`
	OK            int `json:"ok"`
	Missing       int `json:"missing"`
	Outdated      int `json:"outdated"`
	ActionChanged int `json:"actionChanged"`
	Unexpected    int `json:"unexpected"`
}

// PolicyHealth is one policy's state.
type PolicyHealth struct {
	Namespace string       `json:"namespace"`
	Name      string       `json:"name"`
	Template  string       `json:"template"`
	Target    string       `json:"target"`
	State     health.State `json:"state"`
	Detail    string       `json:"detail,omitempty"`
}

// HealthCheckOf is the refresh out (reconcile.Refresh's Output) of the
// stored plan at now. Healthy is the PoliciesHealthy condition's status;
// a plan that was not checked (out.Health nil) has no policies and is not
// healthy.
func HealthCheckOf(stored *plan.ProtectionPlan, out reconcile.Output, now time.Time) HealthCheck {
	v := HealthCheck{Plan: stored.Name, Phase: stored.Status.Phase, CheckedAt: now, Policies: []PolicyHealth{}}
	if out.Plan != nil {
		v.Phase = out.Plan.Status.Phase
	}
	if out.Failure != nil {
		v.RenderError = out.Failure.Message
	}
	res := out.Health
	if res == nil {
		return v
	}
	sm := res.Summary
	v.Summary = HealthSummary{Rendered: sm.Rendered, OK: sm.OK, Missing: sm.Missing, Outdated: sm.Outdated,
		ActionChanged: sm.ActionChanged, Unexpected: sm.Unexpected}
	for _, ph := range res.Policies {
		v.Policies = append(v.Policies, PolicyHealth{Namespace: ph.Namespace, Name: ph.Name, Template: ph.Template,
			Target: string(ph.Target), State: ph.State, Detail: ph.Detail})
	}
	v.Conditions = res.Conditions
	if c := res.Condition(plan.ConditionPoliciesHealthy); c != nil {
		v.Healthy, v.Verdict = c.Status == metav1.ConditionTrue, c.Message
	}
	return v
}
