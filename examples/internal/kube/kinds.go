package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// crdListGVK lists CustomResourceDefinitions.
var crdListGVK = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinitionList"}

// ServedKinds reads the discovery facts of the cluster's custom kinds from
// its CRDs (plan.ServedKinds): each CRD's group, kind, plural, scope and,
// for its storage version (or its first served one), the replicas path of
// its /scale. A cluster that does not serve CRDs has none.
//
// CRDs are large (Kyverno's hold megabytes of schema) and a pass reads
// them with the API reader: their metadata is listed each time, and the
// CRDs themselves only when a name or resource version changed.
func (r *Reader) ServedKinds(ctx context.Context) (plan.ServedKinds, error) {
	meta := &metav1.PartialObjectMetadataList{}
	meta.SetGroupVersionKind(crdListGVK)
	err := r.client.List(ctx, meta)
	switch {
	case IsNotServed(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("listing the CustomResourceDefinitions: %w", err)
	}
	versions := make([]string, 0, len(meta.Items))
	for _, m := range meta.Items {
		versions = append(versions, m.Name+"@"+m.ResourceVersion)
	}
	slices.Sort(versions)
	key := strings.Join(versions, ",")
	if kinds, ok := r.kinds.get(key); ok {
		return kinds, nil
	}
	kinds, err := r.readServedKinds(ctx)
	if err == nil {
		r.kinds.put(key, kinds)
	}
	return kinds, err
}

// kindsCache is the last ServedKinds read, under the key of the CRDs it
// was read from.
type kindsCache struct {
	mu    sync.Mutex
	key   string
	kinds plan.ServedKinds
	ok    bool
}

func (c *kindsCache) get(key string) (plan.ServedKinds, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.kinds), c.ok && c.key == key
}

func (c *kindsCache) put(key string, kinds plan.ServedKinds) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.kinds, c.ok = key, slices.Clone(kinds), true
}

// readServedKinds lists the CRDs whole.
func (r *Reader) readServedKinds(ctx context.Context) (plan.ServedKinds, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(crdListGVK)
	err := r.client.List(ctx, list)
	switch {
	case IsNotServed(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("listing the CustomResourceDefinitions: %w", err)
	}
	out := plan.ServedKinds{}
	for _, crd := range list.Items {
		if k, ok := servedKindOf(crd.Object); ok {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b plan.ServedKind) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// servedKindOf reads one CRD; ok is false when it serves no version.
func servedKindOf(crd map[string]any) (plan.ServedKind, bool) {
	group, _, _ := unstructured.NestedString(crd, "spec", "group")
	kind, _, _ := unstructured.NestedString(crd, "spec", "names", "kind")
	plural, _, _ := unstructured.NestedString(crd, "spec", "names", "plural")
	scope, _, _ := unstructured.NestedString(crd, "spec", "scope")
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	var chosen map[string]any
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if served, _ := m["served"].(bool); !served {
			continue
		}
		if storage, _ := m["storage"].(bool); storage || chosen == nil {
			chosen = m
		}
	}
	if chosen == nil || kind == "" || plural == "" {
		return plan.ServedKind{}, false
	}
	name, _ := chosen["name"].(string)
	replicas, _, _ := unstructured.NestedString(chosen, "subresources", "scale", "specReplicasPath")
	return plan.ServedKind{Group: group, Version: name, Kind: kind, Resource: plural,
		Namespaced: scope == "Namespaced", ScaleReplicasPath: replicas}, true
}
