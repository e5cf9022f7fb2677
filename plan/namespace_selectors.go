package plan

import (
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ControlPlaneNamespaces are never in a namespaceSelectors scope, whatever
// the selectors say (seed 004): they keep the control plane's start-up and
// recovery outside any freeze.
var ControlPlaneNamespaces = []string{"kube-node-lease", "kube-public", "kube-system"}

// MetadataNameLabel is the label the API server sets on every namespace to
// its name: rendered selectors leave namespaces out by it.
const MetadataNameLabel = "kubernetes.io/metadata.name"

// AlwaysLeftOut returns the namespaces a namespaceSelectors scope never
// covers: the release namespace, the excluded namespaces and
// ControlPlaneNamespaces, sorted and distinct. Empty names are dropped.
func AlwaysLeftOut(releaseNamespace string, excluded []string) []string {
	out := slices.Clone(ControlPlaneNamespaces)
	if releaseNamespace != "" {
		out = append(out, releaseNamespace)
	}
	for _, ns := range excluded {
		if ns != "" {
			out = append(out, ns)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// IsWholeCluster reports whether the selectors are the whole cluster: the
// one empty selector {}.
func IsWholeCluster(sels []metav1.LabelSelector) bool {
	return len(sels) == 1 && isEmptySelector(sels[0])
}

func isEmptySelector(s metav1.LabelSelector) bool {
	return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// validateNamespaceSelectors checks each selector as the API server would
// (metav1.LabelSelectorAsSelector, with the same messages), refuses a
// selector listed twice, and an empty selector (the whole cluster) listed
// with others: it would make them meaningless.
func validateNamespaceSelectors(sels []metav1.LabelSelector, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(sels) > MaxNamespaceSelectors {
		return field.ErrorList{field.TooMany(fld, len(sels), MaxNamespaceSelectors)}
	}
	for i, s := range sels {
		p := fld.Index(i)
		if _, err := metav1.LabelSelectorAsSelector(&s); err != nil {
			errs = append(errs, field.Invalid(p, SelectorText(s), err.Error()))
			continue
		}
		switch {
		case isEmptySelector(s) && len(sels) > 1:
			errs = append(errs, field.Invalid(p, "{}",
				"an empty selector is the whole cluster; list it alone"))
		case slices.ContainsFunc(sels[:i], func(o metav1.LabelSelector) bool { return SelectorText(o) == SelectorText(s) }):
			j := slices.IndexFunc(sels[:i], func(o metav1.LabelSelector) bool { return SelectorText(o) == SelectorText(s) })
			errs = append(errs, listedTwice(p, SelectorText(s), fld.Index(j)))
		}
	}
	return errs
}

// MaxNamespaceSelectors is the most selectors a scope lists (the CRD's
// maxItems): each renders its own cluster-wide policies.
const MaxNamespaceSelectors = 16

// SelectorText writes a selector as kubectl does (a=b,c in (d)), or {}.
func SelectorText(s metav1.LabelSelector) string {
	sel, err := metav1.LabelSelectorAsSelector(&s)
	if err != nil {
		return fmt.Sprintf("%v", s)
	}
	if sel.Empty() {
		return "{}"
	}
	return sel.String()
}

// NamespaceInfo is a namespace as the embedder sees it: its name and
// labels (the API server's kubernetes.io/metadata.name included or not;
// Name counts as that label).
type NamespaceInfo struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
}

// SelectsNamespace reports whether a namespaceSelectors scope covers a
// namespace with these labels: one of the selectors selects it (ORed) and
// it is not in leftOut (AlwaysLeftOut). An invalid selector selects
// nothing (validation refuses it).
func SelectsNamespace(sels []metav1.LabelSelector, leftOut []string, ns NamespaceInfo) bool {
	return selectsNamespace(parseSelectors(sels), leftOut, ns)
}

// parseSelectors converts a scope's selectors once for many namespaces;
// an invalid one is left out: it selects nothing.
func parseSelectors(sels []metav1.LabelSelector) []labels.Selector {
	out := make([]labels.Selector, 0, len(sels))
	for i := range sels {
		if sel, err := metav1.LabelSelectorAsSelector(&sels[i]); err == nil {
			out = append(out, sel)
		}
	}
	return out
}

// selectsNamespace is SelectsNamespace over parsed selectors.
func selectsNamespace(sels []labels.Selector, leftOut []string, ns NamespaceInfo) bool {
	if len(sels) == 0 || slices.Contains(leftOut, ns.Name) {
		return false
	}
	set := namespaceLabels{ns}
	for _, sel := range sels {
		if sel.Matches(set) {
			return true
		}
	}
	return false
}

// namespaceLabels are a namespace's labels as a selector reads them, its
// name as MetadataNameLabel over any label of that key, without copying
// them.
type namespaceLabels struct{ ns NamespaceInfo }

func (l namespaceLabels) Has(key string) bool {
	_, ok := l.lookup(key)
	return ok
}

func (l namespaceLabels) Get(key string) string {
	v, _ := l.lookup(key)
	return v
}

func (l namespaceLabels) Lookup(key string) (string, bool) { return l.lookup(key) }

func (l namespaceLabels) lookup(key string) (string, bool) {
	if key == MetadataNameLabel && l.ns.Name != "" {
		return l.ns.Name, true
	}
	v, ok := l.ns.Labels[key]
	return v, ok
}

// CoveredNamespaces returns the names of the namespaces the scope covers
// now, sorted: for a namespaces scope those listed that exist, for a
// namespaceSelectors scope those the selectors select
// (SelectsNamespace). An applications scope is the embedder's to resolve:
// nil.
func CoveredNamespaces(s Scope, leftOut []string, namespaces []NamespaceInfo) []string {
	var out []string
	var sels []labels.Selector
	if s.Type() == ScopeNamespaceSelectors {
		sels = parseSelectors(s.NamespaceSelectors) // once, not once per namespace
	}
	for _, ns := range namespaces {
		switch s.Type() {
		case ScopeNamespaces:
			if slices.Contains(s.Namespaces, ns.Name) {
				out = append(out, ns.Name)
			}
		case ScopeNamespaceSelectors:
			if selectsNamespace(sels, leftOut, ns) {
				out = append(out, ns.Name)
			}
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// Coverage is a namespace a plan covers, and since when (the first
// resolution that found it covered, as the embedder keeps them).
// +kubebuilder:object:generate=true
type Coverage struct {
	// Namespace is the namespace covered.
	Namespace string `json:"namespace"`
	// Since is when it was first found covered in this run of the plan.
	Since metav1.Time `json:"since"`
}

// UpdateCoverage returns the coverage at now: the namespaces covered now
// (CoveredNamespaces), each keeping its Since from before when it was
// already covered, else since now. A namespace no longer covered is
// dropped; covered again later, it starts again. Sorted by namespace.
func UpdateCoverage(before []Coverage, covered []string, now time.Time) []Coverage {
	out := make([]Coverage, 0, len(covered))
	for _, ns := range covered {
		since := metav1.NewTime(now)
		if i := slices.IndexFunc(before, func(c Coverage) bool { return c.Namespace == ns }); i >= 0 {
			since = before[i].Since
		}
		out = append(out, Coverage{Namespace: ns, Since: since})
	}
	slices.SortFunc(out, func(a, b Coverage) int {
		switch {
		case a.Namespace < b.Namespace:
			return -1
		case a.Namespace > b.Namespace:
			return 1
		}
		return 0
	})
	return out
}
