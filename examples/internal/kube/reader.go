package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
)

// Reader reads the facts from a cluster. It keeps nothing between calls
// but the served kinds of unchanged CRDs (ServedKinds), and, when asked
// to (HoldPolicies), every plan's policies as last listed.
type Reader struct {
	client client.Reader
	facts  Facts
	// kinds caches ServedKinds by the CRDs' names and resource versions.
	kinds *kindsCache
	// held keeps every plan's policies between passes; nil: listed in
	// full every time (HoldPolicies).
	held *heldPolicies
}

// New returns a Reader over c (a client, a cache, or a fake in tests).
func New(c client.Reader, facts Facts) *Reader {
	return &Reader{client: c, facts: facts, kinds: &kindsCache{}}
}

// Facts are the settings r was built with.
func (r *Reader) Facts() Facts { return r.facts }

// ErrInvalidContent marks a ConfigMap that was read but whose content
// cannot be decoded (the categories' JSON): the fault is whoever wrote it,
// not the connection.
var ErrInvalidContent = errors.New("invalid content")

// Namespaces lists, metadata only, the names of the namespaces that exist
// and are not being deleted, sorted.
func (r *Reader) Namespaces(ctx context.Context) ([]string, error) {
	names, _, err := r.NamespacesAndLabels(ctx)
	return names, err
}

// NamespacesAndLabels is Namespaces, with each namespace's labels by name
// (what a namespaceSelectors scope selects).
func (r *Reader) NamespacesAndLabels(ctx context.Context) ([]string, map[string]map[string]string, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Version: "v1", Kind: "NamespaceList"})
	if err := r.client.List(ctx, list); err != nil {
		return nil, nil, fmt.Errorf("listing the namespaces: %w", err)
	}
	var out []string
	labels := map[string]map[string]string{}
	for _, ns := range list.Items {
		if ns.DeletionTimestamp == nil {
			out = append(out, ns.Name)
			labels[ns.Name] = ns.Labels
		}
	}
	slices.Sort(out)
	return out, labels, nil
}

// Excluded reads the excluded namespaces: the static list, then the
// ConfigMap's, if one is set. A ConfigMap that cannot be read or lacks the
// key is an error naming it.
func (r *Reader) Excluded(ctx context.Context) ([]string, error) {
	ex := r.facts.Excluded
	out := slices.Clone(ex.Static)
	if ex.ConfigMap == nil {
		return out, nil
	}
	var cm corev1.ConfigMap
	if err := r.client.Get(ctx, *ex.ConfigMap, &cm); err != nil {
		return nil, fmt.Errorf("reading the excluded-namespace ConfigMap %s: %w", ex.ConfigMap, err)
	}
	key := ex.Key
	if key == "" {
		key = ExcludedKey
	}
	raw, ok := cm.Data[key]
	if !ok {
		return nil, fmt.Errorf("the excluded-namespace ConfigMap %s has no key %q", ex.ConfigMap, key)
	}
	return append(out, SplitNames(raw)...), nil
}

// Categories reads the categories and the ConfigMap they came from, for
// a write with its resourceVersion; the ConfigMap is nil when it does not
// exist (only the built-ins). Content that does not decode is an error
// wrapping ErrInvalidContent.
//
// Without a release namespace there is no categories ConfigMap: the
// built-ins only.
func (r *Reader) Categories(ctx context.Context) (plan.Categories, *corev1.ConfigMap, error) {
	ref := r.facts.CategoriesRef()
	if ref.Namespace == "" {
		return plan.Categories{}, nil, nil
	}
	var cm corev1.ConfigMap
	err := r.client.Get(ctx, ref, &cm)
	if apierrors.IsNotFound(err) {
		return plan.Categories{}, nil, nil
	}
	if err != nil {
		return plan.Categories{}, nil, fmt.Errorf("reading the categories ConfigMap %s: %w", ref, err)
	}
	var custom []plan.Category
	if raw := cm.Data[CategoriesKey]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &custom); err != nil {
			return plan.Categories{}, nil, fmt.Errorf("the categories ConfigMap %s, key %s: %w: %w", ref, CategoriesKey, ErrInvalidContent, err)
		}
	}
	cats, err := plan.NewCategories(custom)
	if err != nil {
		return plan.Categories{}, nil, fmt.Errorf("the categories ConfigMap %s, key %s: %w: %w", ref, CategoriesKey, ErrInvalidContent, err)
	}
	return cats, &cm, nil
}

// Members lists, metadata only, the objects of plan.InstanceMemberKinds
// that carry plan.InstanceLabel, in every namespace: the input of
// plan.InstanceLabelResolver.
func (r *Reader) Members(ctx context.Context) ([]plan.LabeledObject, error) {
	var out []plan.LabeledObject
	for _, gvk := range plan.InstanceMemberKinds() {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := r.client.List(ctx, list, client.HasLabels{plan.InstanceLabel}); err != nil {
			return nil, fmt.Errorf("listing the objects of kind %s with label %s: %w", gvk.Kind, plan.InstanceLabel, err)
		}
		for _, o := range list.Items {
			out = append(out, plan.LabeledObject{Kind: gvk.Kind, Namespace: o.Namespace, Name: o.Name, Labels: o.Labels})
		}
	}
	return out, nil
}
