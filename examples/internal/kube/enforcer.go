package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// DefaultKyvernoNamespace is where Kyverno's ConfigMap (named kyverno) is
// read from unless the operator is told otherwise.
const DefaultKyvernoNamespace = "kyverno"

// exceptionLists are the PolicyException kinds health reads, of both APIs.
var exceptionLists = []schema.GroupVersionKind{
	{Group: "kyverno.io", Version: "v2", Kind: "PolicyExceptionList"},
	{Group: "policies.kyverno.io", Version: "v1", Kind: "PolicyExceptionList"},
}

// Enforcer reads what health.Enforcement judges of the enforcer, once per
// pass (about 5 lists and 3 gets): Kyverno's webhook configurations (by
// their label), the PolicyExceptions of both APIs, Kyverno's ConfigMap in
// kyvernoNS, the guard and its binding, the namespaces' labels. For the
// vap target only the guard and the namespaces. What is not served or
// not found is none; any other failed read (a forbidden list, a broken
// connection) is an error: the pass then decides no EnforcementVerified
// rather than report what it could not see.
func (r *Reader) Enforcer(ctx context.Context, target render.Target, kyvernoNS string) (*reconcile.Enforcer, error) {
	e := &reconcile.Enforcer{NamespaceLabels: map[string]map[string]string{}}
	nss := &metav1.PartialObjectMetadataList{}
	nss.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "NamespaceList"})
	if err := r.client.List(ctx, nss); err != nil {
		return nil, fmt.Errorf("listing the namespaces' labels: %w", err)
	}
	for _, ns := range nss.Items {
		e.NamespaceLabels[ns.Name] = ns.Labels
	}
	if target != render.TargetVAP {
		hooks, err := r.list(ctx, schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfigurationList"},
			client.HasLabels{health.KyvernoWebhookLabel})
		if err != nil {
			return nil, err
		}
		e.Webhooks = hooks
		for _, gvk := range exceptionLists {
			xs, err := r.list(ctx, gvk)
			if err != nil && !IsNotServed(err) {
				return nil, err
			}
			e.Exceptions = append(e.Exceptions, xs...)
		}
		if kyvernoNS == "" {
			kyvernoNS = DefaultKyvernoNamespace
		}
		cm, err := r.get(ctx, schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, client.ObjectKey{Namespace: kyvernoNS, Name: "kyverno"})
		if err != nil {
			return nil, err
		}
		e.KyvernoConfig = cm
		g := &health.GuardState{}
		if g.Policy, err = r.get(ctx, schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"},
			client.ObjectKey{Name: health.GuardPolicyName}); err != nil {
			return nil, err
		}
		if g.Binding, err = r.get(ctx, schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
			client.ObjectKey{Name: health.GuardPolicyName}); err != nil {
			return nil, err
		}
		e.Guard = g
	}
	return e, nil
}

func (r *Reader) list(ctx context.Context, gvk schema.GroupVersionKind, opts ...client.ListOption) ([]*unstructured.Unstructured, error) {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk)
	if err := r.client.List(ctx, l, opts...); err != nil {
		return nil, fmt.Errorf("listing %s: %w", gvk.Kind, err)
	}
	out := make([]*unstructured.Unstructured, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}

// get reads one object; nil when it does not exist.
func (r *Reader) get(ctx context.Context, gvk schema.GroupVersionKind, key client.ObjectKey) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	err := r.client.Get(ctx, key, u)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", gvk.Kind, key, err)
	}
	return u, nil
}
