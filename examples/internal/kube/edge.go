package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// EdgeObjects lists the objects of kinds cluster-wide, for a plan's edge
// actions (edge.ListKinds): Argo CD and Flux objects live outside the
// scope they deploy into, so no namespace narrows the list. A kind the
// cluster does not serve (Argo CD or Flux not installed) has no objects.
func (r *Reader) EdgeObjects(ctx context.Context, kinds []schema.GroupVersionKind) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, gvk := range kinds {
		objs, err := r.list(ctx, gvk.GroupVersion().WithKind(gvk.Kind+"List"))
		if IsNotServed(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			o.SetGroupVersionKind(gvk) // a list's items may come without it
		}
		out = append(out, objs...)
	}
	return out, nil
}

// EdgeJournal reads the Secret named name in the release namespace, where
// the operator keeps edge journals (edge.JournalSecret); nil when there is
// none.
func (r *Reader) EdgeJournal(ctx context.Context, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	err := r.client.Get(ctx, client.ObjectKey{Namespace: r.facts.ReleaseNamespace, Name: name}, s)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the edge journal %s/%s: %w", r.facts.ReleaseNamespace, name, err)
	}
	return s, nil
}
