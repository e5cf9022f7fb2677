package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// ExcludedNamespaces are the namespaces plans may not target: a fixed list,
// and, when ConfigMap is set, the list in that ConfigMap (key Key,
// "namespaces" by default: names separated by commas, spaces or new
// lines), read on every validation. While the ConfigMap cannot be read,
// namespace-scoped plans cannot be created or edited (503); applications
// plans can.
type ExcludedNamespaces struct {
	Static    []string
	ConfigMap *types.NamespacedName
	Key       string
}

// excluded reads the excluded list.
func (s *Server) excluded(ctx context.Context) ([]string, error) {
	out := slices.Clone(s.Excluded.Static)
	ref := s.Excluded.ConfigMap
	if ref == nil {
		return out, nil
	}
	var cm corev1.ConfigMap
	if err := s.Client.Get(ctx, *ref, &cm); err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %w", ref, err)
	}
	key := s.Excluded.Key
	if key == "" {
		key = "namespaces"
	}
	raw, ok := cm.Data[key]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s has no key %q", ref, key)
	}
	return append(out, strings.FieldsFunc(raw, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\n' || r == '\t'
	})...), nil
}

// clusterView is plan.ClusterView over what was listed for one request.
type clusterView struct {
	namespaces  map[string]bool
	release     string
	excluded    []string
	excludedErr error
}

func (v clusterView) HasNamespace(name string) bool       { return v.namespaces[name] }
func (v clusterView) IsReleaseNamespace(name string) bool { return name == v.release }
func (v clusterView) IsExcludedNamespace(name string) (bool, error) {
	if v.excludedErr != nil {
		return false, v.excludedErr
	}
	return slices.Contains(v.excluded, name), nil
}

var _ plan.ClusterView = clusterView{}

// validationEnv gathers what plan.Validate needs from the cluster: the
// namespaces, the release and excluded namespaces, the other plans' names,
// the categories, and a resolver of applications that lists the workloads
// only if a plan names applications.
func (s *Server) validationEnv(ctx context.Context, others []plan.ProtectionPlan) (plan.ValidationEnv, error) {
	var nsList corev1.NamespaceList
	if err := s.Client.List(ctx, &nsList); err != nil {
		return plan.ValidationEnv{}, unavailable("cannot list the cluster's namespaces", err)
	}
	view := clusterView{namespaces: map[string]bool{}, release: s.ReleaseNamespace}
	for _, ns := range nsList.Items {
		view.namespaces[ns.Name] = ns.DeletionTimestamp == nil
	}
	view.excluded, view.excludedErr = s.excluded(ctx)
	if view.excludedErr != nil {
		s.Log.Warn("the excluded-namespace list cannot be read", "err", view.excludedErr)
	}
	cats, _, err := s.loadCategories(ctx)
	if err != nil {
		return plan.ValidationEnv{}, err
	}
	names := plan.PlanNamesFunc(func(name string) ([]string, error) {
		var ids []string
		for _, p := range others {
			if plan.SameName(p.Spec.Name, name) {
				ids = append(ids, p.Name)
			}
		}
		return ids, nil
	})
	return plan.ValidationEnv{
		Now:          s.now(),
		Catalog:      render.DefaultCatalog,
		Categories:   cats,
		Cluster:      view,
		Applications: s.applications(ctx),
		Names:        names,
	}, nil
}

// applications resolves applications by the app.kubernetes.io/instance
// label of the cluster's workloads (plan.InstanceLabelResolver), listing
// them on first use. A failed list is a lookup failure (503), not an
// unknown application.
func (s *Server) applications(ctx context.Context) plan.ApplicationResolver {
	var (
		once     sync.Once
		resolver plan.InstanceLabelResolver
		listErr  error
	)
	return plan.ApplicationResolverFunc(func(name string) (plan.Application, error) {
		once.Do(func() { resolver.Objects, listErr = s.workloads(ctx) })
		if listErr != nil {
			return plan.Application{}, listErr
		}
		return resolver.ResolveApplication(name)
	})
}

// resolveApplications resolves a plan's applications for render and
// report; applications that do not resolve are left out (render then
// says which is missing).
func (s *Server) resolveApplications(ctx context.Context, p *plan.ProtectionPlan) ([]plan.Application, error) {
	if len(p.Spec.Scope.Applications) == 0 {
		return nil, nil
	}
	objs, err := s.workloads(ctx)
	if err != nil {
		return nil, err
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

// workloads lists, as metadata only, the objects that make up
// applications (those with the instance label).
func (s *Server) workloads(ctx context.Context) ([]plan.LabeledObject, error) {
	var out []plan.LabeledObject
	for _, gvk := range plan.InstanceMemberKinds() {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := s.Client.List(ctx, list, client.HasLabels{plan.InstanceLabel}); err != nil {
			return nil, unavailable("cannot list the objects that applications resolve to", err)
		}
		for _, o := range list.Items {
			out = append(out, plan.LabeledObject{Kind: gvk.Kind, Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
		}
	}
	return out, nil
}

// livePolicies lists the plan's policies (label telark.io/protection-plan)
// of every kind the server's target renders. A kind the cluster does not
// serve (Kyverno not installed) has no policies.
func (s *Server) livePolicies(ctx context.Context, planID string) ([]*unstructured.Unstructured, error) {
	gvks, err := render.KindsOf(s.target())
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, gvk := range gvks {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := s.Client.List(ctx, list, client.MatchingLabels{render.LabelPlan: planID})
		if apimeta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, unavailable("cannot list the plan's policies", err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// policyViolationEvents lists the PolicyViolation events of the
// namespaces the plan's policies live in.
func (s *Server) policyViolationEvents(ctx context.Context, policies []*unstructured.Unstructured) ([]corev1.Event, error) {
	var namespaces []string
	for _, p := range policies {
		if !slices.Contains(namespaces, p.GetNamespace()) {
			namespaces = append(namespaces, p.GetNamespace())
		}
	}
	var out []corev1.Event
	for _, ns := range namespaces {
		var list corev1.EventList
		if err := s.Client.List(ctx, &list, client.InNamespace(ns), client.MatchingFields{"reason": "PolicyViolation"}); err != nil {
			return nil, unavailable("cannot list the PolicyViolation events", err)
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// unavailable is a 503: a read the answer depends on failed. The
// cluster's message is shown: it says what to fix (RBAC, a missing CRD).
func unavailable(what string, err error) error {
	return &httpError{code: http.StatusServiceUnavailable, msg: what + ": " + err.Error()}
}
