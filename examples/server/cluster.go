package main

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// ExcludedNamespaces are the namespaces plans may not target (see
// kube.Excluded). While the ConfigMap cannot be read, namespace-scoped
// plans cannot be created or edited (503); applications plans can.
type ExcludedNamespaces = kube.Excluded

// validationEnv gathers what plan.Validate needs from the cluster: the
// namespaces, the release and excluded namespaces, the other plans' names,
// the categories, and a resolver of applications that lists the workloads
// only if a plan names applications.
func (s *Server) validationEnv(ctx context.Context, others []plan.ProtectionPlan) (plan.ValidationEnv, error) {
	view, err := s.cluster.ClusterView(ctx)
	if err != nil {
		return plan.ValidationEnv{}, unavailable("cannot read the cluster", err)
	}
	if view.ExcludedErr != nil {
		s.Log.Warn("the excluded-namespace list cannot be read", "err", view.ExcludedErr)
	}
	cats, _, err := s.loadCategories(ctx)
	if err != nil {
		return plan.ValidationEnv{}, err
	}
	kinds, err := s.cluster.ServedKinds(ctx)
	if err != nil {
		return plan.ValidationEnv{}, unavailable("cannot read the cluster's custom kinds", err)
	}
	return plan.ValidationEnv{
		Kinds:        kinds,
		Now:          s.now(),
		Catalog:      render.DefaultCatalog,
		Categories:   cats,
		Cluster:      view,
		Applications: s.cluster.Applications(ctx),
		Names:        plan.NamesIn(others),
	}, nil
}

// calendars reads the calendars spec's window names (kube.Reader.Calendars)
// for the library's steps that compute a phase or an interval's end. What
// cannot be read is left out and logged: the library then holds the
// freeze on its dates (reconcile.ConditionCalendars), and the operator's
// next pass reports it on the plan.
func (s *Server) calendars(ctx context.Context, spec window.Spec) map[window.ConfigMapKeyRef][]byte {
	cals, err := s.cluster.Calendars(ctx, spec)
	if err != nil {
		s.Log.Warn("a calendar of the plan's window cannot be read; the freeze holds on its dates", "err", err)
	}
	return cals
}

// actionInput is the library's input of an action on p asked by r.
func (s *Server) actionInput(r *http.Request, p *plan.ProtectionPlan) reconcile.ActionInput {
	return reconcile.ActionInput{Plan: p, Version: ifMatch(r), Caller: callerOf(r), Now: s.now(),
		Calendars: s.calendars(r.Context(), p.Spec.Window)}
}

// resolveApplications resolves a plan's applications for render and
// report; applications that do not resolve are left out (render then
// says which is missing).
func (s *Server) resolveApplications(ctx context.Context, p *plan.ProtectionPlan) ([]plan.Application, error) {
	if len(p.Spec.Scope.Applications) == 0 {
		return nil, nil
	}
	objs, err := s.cluster.Members(ctx)
	if err != nil {
		return nil, unavailable("cannot resolve the applications", err)
	}
	r := plan.InstanceLabelResolver{Objects: objs}
	var apps []plan.Application
	for _, name := range p.Spec.Scope.Applications {
		if a, err := r.ResolveApplication(name); err == nil {
			apps = append(apps, a)
		}
	}
	return apps, nil
}

// livePolicies lists the plan's policies of every kind the server's target
// renders. A kind the cluster does not serve (Kyverno not installed) has
// no policies.
func (s *Server) livePolicies(ctx context.Context, planID string) ([]*unstructured.Unstructured, error) {
	live, err := s.cluster.Policies(ctx, s.target(), planID)
	if err != nil && !kube.IsNotServed(err) {
		return nil, unavailable("cannot read the plan's policies", err)
	}
	return live, nil
}

// policyViolationEvents lists the PolicyViolation events of the
// namespaces the plan's policies live in.
func (s *Server) policyViolationEvents(ctx context.Context, policies []*unstructured.Unstructured) ([]corev1.Event, error) {
	namespaces := make([]string, len(policies))
	for i, p := range policies {
		namespaces[i] = p.GetNamespace()
	}
	events, err := s.cluster.PolicyViolationEvents(ctx, namespaces)
	if err != nil {
		return nil, unavailable("cannot read the violations", err)
	}
	return events, nil
}

// unavailable is a 503: a read the answer depends on failed. The
// cluster's message is shown: it says what to fix (RBAC, a missing CRD).
func unavailable(what string, err error) error {
	return &httpError{code: http.StatusServiceUnavailable, msg: what + ": " + err.Error()}
}
