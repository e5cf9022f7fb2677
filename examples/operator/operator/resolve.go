package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// world is what one pass knows of the cluster, gathered once for every
// plan: the managed policies (one list per policy kind), the namespaces,
// and, when some plan has an applications scope, the labelled objects the
// applications resolve from.
type world struct {
	now time.Time
	// live are every plan's policies (label telark.io/protection-plan
	// exists); byPlan splits them by plan ID.
	live   []*unstructured.Unstructured
	byPlan map[string][]*unstructured.Unstructured
	// policyAPI is non-nil when the target's policy kinds are not served
	// (Kyverno is not installed): plans cannot be put in place.
	policyAPI error
	// namespaces are the namespaces that exist and are not being deleted.
	namespaces map[string]bool
	// apps resolves applications; nil when no plan needs it.
	apps plan.ApplicationResolver
	// index attributes violations to plans, from the live policies.
	index violations.PolicyIndex
}

// gather reads the world for one pass. An error here is transient (the API
// server is unreachable): the pass is skipped and the next tick retries.
func (r *reconciler) gather(ctx context.Context, plans []plan.ProtectionPlan, now time.Time) (*world, error) {
	w := &world{now: now, namespaces: map[string]bool{}}
	live, err := r.listPolicies(ctx)
	switch {
	case isNotServed(err):
		w.policyAPI = err
	case err != nil:
		return nil, fmt.Errorf("listing the managed policies: %w", err)
	}
	w.live = live
	w.byPlan = health.GroupByPlan(live)
	w.index = violations.IndexPolicies(live)

	nsList := &metav1.PartialObjectMetadataList{}
	nsList.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "NamespaceList"})
	if err := r.reader.List(ctx, nsList); err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	for _, ns := range nsList.Items {
		if ns.DeletionTimestamp == nil {
			w.namespaces[ns.Name] = true
		}
	}

	if slices.ContainsFunc(plans, func(p plan.ProtectionPlan) bool {
		return p.Spec.Scope.Type() == plan.ScopeApplications && mayNeedPolicies(&p)
	}) {
		objs, err := r.listMembers(ctx)
		if err != nil {
			return nil, err
		}
		w.apps = plan.InstanceLabelResolver{Objects: objs}
	}
	return w, nil
}

// mayNeedPolicies is false for plans whose lifecycle has ended: their
// scope needs no resolving.
func mayNeedPolicies(p *plan.ProtectionPlan) bool {
	return p.Status.Phase != plan.PhaseCanceled && p.Status.Phase != plan.PhaseTerminated
}

// listPolicies lists every plan's policies: one call per kind the target
// renders, selected by the existence of the plan label.
func (r *reconciler) listPolicies(ctx context.Context) ([]*unstructured.Unstructured, error) {
	kinds, err := render.KindsOf(r.cfg.Target)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, gvk := range kinds {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.reader.List(ctx, list, client.HasLabels{health.ListSelector}); err != nil {
			return nil, err
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// isNotServed reports whether err says that a kind is not served by the API
// server: no REST mapping, or a 404 on the list itself.
func isNotServed(err error) bool {
	if err == nil {
		return false
	}
	var noMatch *meta.NoKindMatchError
	return meta.IsNoMatchError(err) || errors.As(err, &noMatch) || apierrors.IsNotFound(err)
}

// listMembers lists, metadata only, the objects of plan.InstanceMemberKinds that carry
// the instance label, in every namespace: the input of
// plan.InstanceLabelResolver.
func (r *reconciler) listMembers(ctx context.Context) ([]plan.LabeledObject, error) {
	var out []plan.LabeledObject
	for _, gvk := range plan.InstanceMemberKinds() {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.reader.List(ctx, list, client.HasLabels{plan.InstanceLabel}); err != nil {
			return nil, fmt.Errorf("listing %s with label %s: %w", gvk.Kind, plan.InstanceLabel, err)
		}
		for _, o := range list.Items {
			out = append(out, plan.LabeledObject{Kind: gvk.Kind, Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
		}
	}
	return out, nil
}

// failure is why a plan cannot be put in place: a plan.Fail reason and
// message.
type failure struct {
	reason, message string
}

// ReasonApplicationNotFound is the Ready reason of a plan whose application
// no object carries the instance label of any more (the operator's own
// reason, next to plan's NamespaceGone).
const ReasonApplicationNotFound = "ApplicationNotFound"

// ReasonInvalidPlan is the Ready reason of a plan that render refuses (a
// plan created with kubectl skips the server's validation).
const ReasonInvalidPlan = "InvalidPlan"

// resolveScope resolves an active plan's applications and checks that its
// namespaces exist. It returns the applications (for render and the
// report), or the failure that keeps the plan from being put in place.
func resolveScope(p *plan.ProtectionPlan, w *world) ([]plan.Application, *failure) {
	var apps []plan.Application
	var namespaces []string
	switch p.Spec.Scope.Type() {
	case plan.ScopeNamespaces:
		namespaces = p.Spec.Scope.Namespaces
	case plan.ScopeApplications:
		if w.apps == nil {
			return nil, &failure{ReasonApplicationNotFound, "no application could be resolved"}
		}
		for _, name := range p.Spec.Scope.Applications {
			app, err := w.apps.ResolveApplication(name)
			if err != nil {
				return nil, &failure{ReasonApplicationNotFound, fmt.Sprintf("application %q: %v", name, err)}
			}
			apps = append(apps, app)
			namespaces = append(namespaces, app.Namespaces...)
		}
	}
	var gone []string
	for _, ns := range namespaces {
		if !w.namespaces[ns] && !slices.Contains(gone, ns) {
			gone = append(gone, ns)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		return apps, &failure{plan.ReasonNamespaceGone, fmt.Sprintf("namespaces in scope do not exist: %v", gone)}
	}
	return apps, nil
}
