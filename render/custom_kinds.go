package render

import (
	"fmt"
	"maps"
	"regexp"
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
// a /scale subresource: its /scale (a Scale always has spec.replicas),
// and writes of the resource itself at the replicas path its CRD declares
// (subresources.scale.specReplicasPath): .spec.replicas in the template's
// rule, any other path in a rule of its own (replicasPathRules). A path
// whose fields are not plain identifiers (replicasFields) leaves writes of
// the resource itself uncovered; its /scale is covered all the same.

// specReplicasPath is the replicas path the scaling rules read.
const specReplicasPath = ".spec.replicas"

// customKind is a served kind in the catalog's shape.
func customKind(k plan.ServedKind) Kind {
	out := Kind{Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: k.Resource, Scalable: k.ScaleReplicasPath != ""}
	if _, ok := replicasFields(k.ScaleReplicasPath); ok && k.ScaleReplicasPath != specReplicasPath {
		out.ReplicasPath = k.ScaleReplicasPath
	}
	return out
}

// replicasFields splits a CRD's specReplicasPath (".spec.instances") into
// its fields, when each is an identifier that JMESPath, CEL and the API
// server's CEL read as written (letters, digits and underscores, not a
// CEL reserved word, which the API server would expect escaped). The
// path comes from a CRD, text no plan author wrote but no render
// evaluates either: anything else is refused.
func replicasFields(path string) ([]string, bool) {
	rest, ok := strings.CutPrefix(path, ".")
	if !ok || len(path) > maxReplicasPath {
		return nil, false
	}
	fields := strings.Split(rest, ".")
	for _, f := range fields {
		if !identifier.MatchString(f) || celReserved[f] {
			return nil, false
		}
	}
	return fields, true
}

// maxReplicasPath bounds a replicas path: rule names are made of it.
const maxReplicasPath = 200

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// celReserved are CEL's reserved words, which the API server escapes in
// field names (__in__).
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true,
	"let": true, "loop": true, "package": true, "namespace": true, "return": true, "var": true,
	"void": true, "while": true,
}

// replicasPathRules are, for a ReplicasChanged rule, the rules that
// compare the replicas of its kinds whose CRD declares another path than
// spec.replicas, on writes of the resource itself: one rule per path,
// named after it ("replicas-spec-instances"), in path order. Their /scale
// stays the rule's own.
func replicasPathRules(r RuleSpec) []RuleSpec {
	byPath := map[string][]Kind{}
	for _, k := range r.Kinds {
		if k.ReplicasPath != "" {
			byPath[k.ReplicasPath] = append(byPath[k.ReplicasPath], k)
		}
	}
	paths := slices.Sorted(maps.Keys(byPath))
	used := map[string]bool{r.Name: true}
	out := make([]RuleSpec, 0, len(paths))
	for _, p := range paths {
		fields, _ := replicasFields(p)
		x := r.clone()
		x.Kinds, x.Subresources, x.ReplicasPath = byPath[p], nil, fields
		x.Name = uniqueRuleName(r.Name+"-"+strings.ToLower(strings.Join(fields, "-")), used)
		out = append(out, x)
	}
	return out
}

// uniqueRuleName shortens name to a DNS label (a rule's name) and makes it
// differ from those used.
func uniqueRuleName(name string, used map[string]bool) string {
	name = strings.Trim(strings.ReplaceAll(name, "_", "-"), "-")
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	base := name[:min(len(name), 59)]
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s-%d", strings.TrimRight(base, "-"), i)
	}
	used[name] = true
	return name
}

// hasReplicasPath: the rule compares the replicas of a kind whose CRD
// declares another path than spec.replicas.
func hasReplicasPath(r RuleSpec) bool {
	return r.Condition == ReplicasChanged && slices.ContainsFunc(r.Kinds, func(k Kind) bool { return k.ReplicasPath != "" })
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
// covers: with a /scale, sorted by name, none of the catalog's groups.
func scalableServed(served plan.ServedKinds) []Kind {
	var ks []plan.ServedKind
	for _, k := range served {
		if k.Namespaced && k.ScaleReplicasPath != "" && !isCatalogGroup(k.Group) {
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

// hasScale reports whether a kind a plan names (the catalog's, or a
// served custom one) has a /scale subresource. A kind render does not
// know keeps its /scale in exclusions: a needless one costs Kyverno a
// warning, a missing one would let a /scale through.
func (c *compiled) hasScale(name string) bool {
	if k, ok := c.kindNamed(name); ok {
		return k.Scalable
	}
	return true
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
