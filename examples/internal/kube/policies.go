package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// PolicyReportListGVK is what PolicyReports are listed as.
var PolicyReportListGVK = schema.GroupVersionKind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Kind: "PolicyReportList"}

// AllPlans selects every plan's policies in Reader.Policies.
const AllPlans = ""

// NotServedError says which kinds the cluster does not serve.
type NotServedError struct {
	Kinds []schema.GroupVersionKind
	// Err is the first kind's error.
	Err error
}

func (e *NotServedError) Error() string {
	names := make([]string, len(e.Kinds))
	for i, k := range e.Kinds {
		names[i] = k.Kind + "." + k.GroupVersion().String()
	}
	return fmt.Sprintf("not served by the cluster: %s: %v", strings.Join(names, ", "), e.Err)
}

func (e *NotServedError) Unwrap() error { return e.Err }

// IsNotServed reports whether err says that a kind is not served by the
// API server: a *NotServedError, no REST mapping, or a 404 on a list.
func IsNotServed(err error) bool {
	if err == nil {
		return false
	}
	var ns *NotServedError
	var noMatch *meta.NoKindMatchError
	return errors.As(err, &ns) || meta.IsNoMatchError(err) || errors.As(err, &noMatch) || apierrors.IsNotFound(err)
}

// Policies lists the managed policies of the kinds target renders
// (render.KindsOf): every plan's (label render.LabelPlan exists,
// health.ListSelector) when planID is AllPlans, else that plan's. The
// kinds the cluster does not serve have no policies: the policies of the
// others are returned with a *NotServedError naming them.
func (r *Reader) Policies(ctx context.Context, target render.Target, planID string) ([]*unstructured.Unstructured, error) {
	kinds, err := render.KindsOf(target)
	if err != nil {
		return nil, fmt.Errorf("the policy kinds of target %q: %w", target, err)
	}
	var sel client.ListOption = client.HasLabels{health.ListSelector}
	if planID != AllPlans {
		sel = client.MatchingLabels{render.LabelPlan: planID}
	}
	var out []*unstructured.Unstructured
	var notServed *NotServedError
	for _, gvk := range kinds {
		items, err := r.listPolicies(ctx, gvk, sel, planID)
		if IsNotServed(err) {
			if notServed == nil {
				notServed = &NotServedError{Err: err}
			}
			notServed.Kinds = append(notServed.Kinds, gvk)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing the managed policies of kind %s: %w", gvk.Kind, err)
		}
		out = append(out, items...)
	}
	if notServed != nil {
		return out, notServed
	}
	return out, nil
}

// listPolicies lists the managed policies of kind gvk selected by sel:
// through the held policies for every plan's (HoldPolicies), else in
// full.
func (r *Reader) listPolicies(ctx context.Context, gvk schema.GroupVersionKind, sel client.ListOption, planID string) ([]*unstructured.Unstructured, error) {
	if planID == AllPlans && r.held != nil {
		return r.held.list(ctx, r.client, gvk, sel)
	}
	return listFull(ctx, r.client, gvk, sel)
}

// listFull lists the objects of gvk matching sel, whole.
func listFull(ctx context.Context, c client.Reader, gvk schema.GroupVersionKind, sel client.ListOption) ([]*unstructured.Unstructured, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := c.List(ctx, list, sel); err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// Sources are what violations are read from (violations.FromEvents,
// violations.FromPolicyReports).
type Sources struct {
	Events  []corev1.Event
	Reports []*unstructured.Unstructured
	// ReportsServed is false when the cluster does not serve
	// PolicyReports (Kyverno's report CRDs are not installed).
	ReportsServed bool
}

// ViolationSources lists the PolicyViolation events and the PolicyReports
// of each namespace. PolicyReports not served are none, not an error.
func (r *Reader) ViolationSources(ctx context.Context, namespaces []string) (Sources, error) {
	src := Sources{ReportsServed: true}
	var err error
	if src.Events, err = r.PolicyViolationEvents(ctx, namespaces); err != nil {
		return Sources{}, err
	}
	for _, ns := range names(namespaces) {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(PolicyReportListGVK)
		err := r.client.List(ctx, list, client.InNamespace(ns))
		if IsNotServed(err) {
			src.ReportsServed = false
			break
		}
		if err != nil {
			return Sources{}, fmt.Errorf("listing the PolicyReports of %s: %w", ns, err)
		}
		for i := range list.Items {
			src.Reports = append(src.Reports, &list.Items[i])
		}
	}
	return src, nil
}

// PolicyViolationEvents lists the events of reason
// violations.ReasonPolicyViolation of each namespace.
func (r *Reader) PolicyViolationEvents(ctx context.Context, namespaces []string) ([]corev1.Event, error) {
	var out []corev1.Event
	for _, ns := range names(namespaces) {
		var list corev1.EventList
		if err := r.client.List(ctx, &list, client.InNamespace(ns),
			client.MatchingFields{"reason": violations.ReasonPolicyViolation}); err != nil {
			return nil, fmt.Errorf("listing the PolicyViolation events of %s: %w", ns, err)
		}
		out = append(out, list.Items...)
	}
	return out, nil
}

// names are the namespaces once each, in order, without the empty name (a
// cluster-scoped object's, which would list every namespace).
func names(namespaces []string) []string {
	var out []string
	for _, ns := range namespaces {
		if ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}
