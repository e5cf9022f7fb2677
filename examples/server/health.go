package main

import (
	"context"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// healthView is the answer of "Refresh health" (R-H3): computed now from
// the live policies and a fresh render, not stored, nothing repaired.
type healthView struct {
	Plan       string             `json:"plan"`
	Phase      plan.Phase         `json:"phase"`
	CheckedAt  time.Time          `json:"checkedAt"`
	Healthy    bool               `json:"healthy"`
	Summary    healthSummary      `json:"summary"`
	Policies   []policyHealthView `json:"policies"`
	Conditions []metav1.Condition `json:"conditions"`
	// RenderError says why the plan could not be rendered (e.g. an
	// application no longer resolves); the check then compares the live
	// policies with nothing.
	RenderError string `json:"renderError,omitempty"`
}

type healthSummary struct {
	Rendered      int `json:"rendered"`
	OK            int `json:"ok"`
	Missing       int `json:"missing"`
	Outdated      int `json:"outdated"`
	ActionChanged int `json:"actionChanged"`
	Unexpected    int `json:"unexpected"`
}

type policyHealthView struct {
	Namespace string       `json:"namespace"`
	Name      string       `json:"name"`
	Template  string       `json:"template"`
	Target    string       `json:"target"`
	State     health.State `json:"state"`
	Detail    string       `json:"detail,omitempty"`
}

func (s *Server) planHealth(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionHealth, p)
	}
	var v healthView
	if err == nil {
		v, err = s.checkHealth(r.Context(), p)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// checkHealth runs the operator's decision on the plan without repairs
// (reconcile.Decide, Settings.Repair false), with the target and layout
// the operator put the plan in place with (its status), and answers the
// health it found. Nothing is written.
func (s *Server) checkHealth(ctx context.Context, stored *plan.ProtectionPlan) (healthView, error) {
	now := s.now()
	set := reconcile.Settings{Target: s.target(), Compact: s.Compact}
	if e := stored.Status.Enforcement; e != nil {
		set.Target, set.Compact = render.Target(e.Target), e.Compact
	}
	live, err := s.cluster.Policies(ctx, set.Target, stored.Name)
	c := &reconcile.Cluster{Namespaces: map[string]bool{}, Applications: s.cluster.Applications(ctx)}
	switch {
	case kube.IsNotServed(err):
		c.PolicyAPI = err
	case err != nil:
		return healthView{}, unavailable("cannot read the plan's policies", err)
	}
	ns, err := s.cluster.Namespaces(ctx)
	if err != nil {
		return healthView{}, unavailable("cannot read the namespaces", err)
	}
	for _, n := range ns {
		c.Namespaces[n] = true
	}
	out := reconcile.Decide(reconcile.Input{Plan: stored, Live: live, Cluster: c, Now: now, Settings: set})
	if out.Retry != nil {
		return healthView{}, unavailable("cannot check the plan", out.Retry)
	}
	v := healthView{Plan: stored.Name, Phase: out.Plan.Status.Phase, CheckedAt: now, Policies: []policyHealthView{}}
	if out.Failure != nil {
		v.RenderError = out.Failure.Message
	}
	res := out.Health
	if res == nil {
		return v, nil
	}
	sm := res.Summary
	v.Summary = healthSummary{Rendered: sm.Rendered, OK: sm.OK, Missing: sm.Missing, Outdated: sm.Outdated,
		ActionChanged: sm.ActionChanged, Unexpected: sm.Unexpected}
	for _, ph := range res.Policies {
		v.Policies = append(v.Policies, policyHealthView{Namespace: ph.Namespace, Name: ph.Name, Template: ph.Template,
			Target: string(ph.Target), State: ph.State, Detail: ph.Detail})
	}
	v.Conditions = res.Conditions
	if c := res.Condition(plan.ConditionPoliciesHealthy); c != nil {
		v.Healthy = c.Status == metav1.ConditionTrue
	}
	return v, nil
}

// target is the configured render target, or render's default.
func (s *Server) target() render.Target {
	if s.Target == "" {
		return render.TargetKyverno
	}
	return s.Target
}
