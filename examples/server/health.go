package main

import (
	"context"
	"net/http"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

func (s *Server) planHealth(w http.ResponseWriter, r *http.Request) {
	p, err := s.readPlan(r.Context(), r.PathValue("id"))
	if err == nil {
		err = approval.Authorize(callerOf(r), approval.ActionHealth, p)
	}
	var v overview.HealthCheck
	if err == nil {
		v, err = s.checkHealth(r.Context(), p)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// checkHealth gathers the plan's live policies and the cluster's facts
// for the target the plan was put in place with
// (reconcile.RefreshSettings), runs reconcile.Refresh (the operator's
// decision without repairs) and answers the health it found
// (overview.HealthCheckOf). Nothing is written.
func (s *Server) checkHealth(ctx context.Context, stored *plan.ProtectionPlan) (overview.HealthCheck, error) {
	now := s.now()
	set := reconcile.RefreshSettings(stored, reconcile.Settings{Target: s.target(), Compact: s.Compact})
	live, err := s.cluster.Policies(ctx, set.Target, stored.Name)
	c := &reconcile.Cluster{Namespaces: map[string]bool{}, Applications: s.cluster.Applications(ctx)}
	switch {
	case kube.IsNotServed(err):
		c.PolicyAPI = err
	case err != nil:
		return overview.HealthCheck{}, unavailable("cannot read the plan's policies", err)
	}
	ns, err := s.cluster.Namespaces(ctx)
	if err != nil {
		return overview.HealthCheck{}, unavailable("cannot read the namespaces", err)
	}
	for _, n := range ns {
		c.Namespaces[n] = true
	}
	out := reconcile.Refresh(reconcile.Input{Plan: stored, Live: live, Cluster: c, Now: now, Settings: set})
	if out.Retry != nil {
		return overview.HealthCheck{}, unavailable("cannot check the plan", out.Retry)
	}
	return overview.HealthCheckOf(stored, out, now), nil
}

// target is the configured render target, or render's default.
func (s *Server) target() render.Target {
	if s.Target == "" {
		return render.TargetKyverno
	}
	return s.Target
}
