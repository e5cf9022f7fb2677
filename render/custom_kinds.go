package render

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// Custom resources as kinds (issue 23). A template's kinds parameter
// (create, delete, all-writes) and the excluded kinds may name any
// namespaced kind the cluster serves, written <Kind>.<group>
// (plan.IsCustomKindName), resolved through the discovery facts the
// embedder passes in (Input.Kinds): its group, served version and plural
// resource are what every target matches by. The scaling template covers,
// besides Deployments and StatefulSets, every served namespaced kind with
// a /scale subresource whose replicas path is .spec.replicas (what the
// rules compare); a kind whose CRD declares another path is not covered
// yet.

// specReplicasPath is the replicas path the scaling rules read.
const specReplicasPath = ".spec.replicas"

// customKind is a served kind in the catalog's shape.
func customKind(k plan.ServedKind) Kind {
	return Kind{Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: k.Resource, Scalable: k.ScaleReplicasPath != ""}
}

// resolveKinds returns the kinds a kinds parameter names: the catalog's
// (kindsOf, in catalog order), then the custom ones, sorted by name, each
// checked against the served kinds (render needs them: no facts, no
// custom kind).
func resolveKinds(names []string, served plan.ServedKinds, fld *field.Path) ([]Kind, field.ErrorList) {
	out := kindsOf(names)
	var custom []string
	var errs field.ErrorList
	for _, n := range names {
		if !plan.IsCustomKindName(n) {
			continue
		}
		if served == nil {
			served = plan.ServedKinds{}
		}
		if e := plan.CheckCustomKind(n, served, false, fld); e != nil {
			errs = append(errs, e)
			continue
		}
		custom = append(custom, n)
	}
	slices.Sort(custom)
	for _, n := range custom {
		k, _ := served.Lookup(n)
		out = append(out, customKind(k))
	}
	return out, errs
}

// scalableServed are the served namespaced kinds the scaling template
// covers: with a /scale whose replicas path is .spec.replicas, sorted by
// name, none of the catalog's groups.
func scalableServed(served plan.ServedKinds) []Kind {
	var ks []plan.ServedKind
	for _, k := range served {
		if k.Namespaced && k.ScaleReplicasPath == specReplicasPath && !isCatalogGroup(k.Group) {
			ks = append(ks, k)
		}
	}
	slices.SortFunc(ks, func(a, b plan.ServedKind) int { return strings.Compare(a.Name(), b.Name()) })
	out := make([]Kind, len(ks))
	for i, k := range ks {
		out[i] = customKind(k)
	}
	return out
}

// isCatalogGroup: the catalog's own kinds come from the catalog.
func isCatalogGroup(group string) bool {
	return slices.ContainsFunc(knownKinds, func(k Kind) bool { return k.Group == group })
}

// kindNamed finds a kind by the name a plan writes: the catalog's
// (Deployment) or a served custom one (Rollout.argoproj.io).
func (c *compiled) kindNamed(name string) (Kind, bool) {
	if k, ok := kindByName(name); ok {
		return k, true
	}
	if k, ok := c.served.Lookup(name); ok && plan.IsCustomKindName(name) {
		return customKind(k), true
	}
	return Kind{}, false
}

// excludedKindList resolves the excluded kinds; unknown ones exclude
// nothing and are left out.
func (c *compiled) excludedKindList() []Kind {
	var out []Kind
	for _, n := range c.excludedKinds {
		if k, ok := c.kindNamed(n); ok {
			out = append(out, k)
		}
	}
	return out
}

// excludesKind reports whether the plan excludes a request's kind: a
// catalog name excludes the kind in every group (as Kyverno's plain kind
// selector does), a custom name its kind in its group.
func (c *compiled) excludesKind(gvk schema.GroupVersionKind) bool {
	return slices.Contains(c.excludedKinds, gvk.Kind) ||
		(gvk.Group != "" && slices.Contains(c.excludedKinds, gvk.Kind+"."+gvk.Group))
}

// kyvernoKindSelector is how a Kyverno rule names an excluded kind: a
// catalog name as is, a custom one as <group>/*/<Kind>.
func kyvernoKindSelector(name string) string {
	if kind, group, ok := strings.Cut(name, "."); ok {
		return group + "/*/" + kind
	}
	return name
}
