package main

import (
	"context"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
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

// checkHealth gathers the input of health.Check and runs it without
// repair. The plan is ticked in memory first (its phase must be current:
// the operator may not have ticked it yet), and nothing is written.
func (s *Server) checkHealth(ctx context.Context, stored *plan.ProtectionPlan) (healthView, error) {
	now := s.now()
	p := plan.Tick(stored, now).Plan
	apps, err := s.resolveApplications(ctx, p)
	if err != nil {
		return healthView{}, err
	}
	live, err := s.livePolicies(ctx, p.Name)
	if err != nil {
		return healthView{}, err
	}
	v := healthView{Plan: p.Name, Phase: p.Status.Phase, CheckedAt: now, Policies: []policyHealthView{}}
	rendered, err := render.Render(render.Input{Plan: p, Applications: apps, Now: now, Target: s.target(), Compact: s.Compact})
	if err != nil {
		v.RenderError = err.Error()
	}
	res := health.Check(health.Input{Plan: p, Render: rendered, Live: live, Now: now, Repair: false})
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
