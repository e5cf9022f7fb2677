package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
func (r *Reader) ServedKinds(ctx context.Context) (plan.ServedKinds, error) {
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
