package kube

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/render"
)

// ServedKinds returns which of candidates the cluster serves, as m (a
// discovery-backed RESTMapper) maps them. A kind m knows no mapping for
// is not served; any other failure (the API server unreachable) is an
// error, so that a cluster that could not be asked is never taken for one
// without Kyverno.
func ServedKinds(m meta.RESTMapper, candidates []schema.GroupVersionKind) ([]schema.GroupVersionKind, error) {
	var served []schema.GroupVersionKind
	for _, gvk := range candidates {
		_, err := m.RESTMapping(gvk.GroupKind(), gvk.Version)
		switch {
		case meta.IsNoMatchError(err):
		case err != nil:
			return nil, fmt.Errorf("discovering whether %s is served: %w", gvk, err)
		default:
			served = append(served, gvk)
		}
	}
	return served, nil
}

// ResolveTarget returns target as it is, or for render.TargetAuto the
// choice render.ChooseTarget makes from the kinds of every target that m
// serves. The operator and the API server resolve it once, at start.
func ResolveTarget(m meta.RESTMapper, target render.Target) (render.Choice, error) {
	if target != render.TargetAuto {
		return render.Choice{Target: target}, nil
	}
	var candidates []schema.GroupVersionKind
	for _, t := range render.Targets() {
		kinds, err := render.KindsOf(t)
		if err != nil {
			continue // a target render cannot render yet is never chosen
		}
		candidates = append(candidates, kinds...)
	}
	served, err := ServedKinds(m, candidates)
	if err != nil {
		return render.Choice{}, err
	}
	return render.ChooseTarget(served)
}
