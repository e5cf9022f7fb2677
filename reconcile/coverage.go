package reconcile

import (
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

// coverage is what a plan's status says it covers (plan.Status.Coverage):
// for an active namespaceSelectors plan, the namespaces its selectors
// select now among those of the pass (with their labels,
// Cluster.NamespaceLabels), less those always left out, each since when
// this run first found it covered (an entry from before the run started
// starts again); for a plan that is not active, its last run's, kept for
// the final report; nothing for other scopes.
func coverage(p *plan.ProtectionPlan, c *Cluster, now time.Time) []plan.Coverage {
	if p.Spec.Scope.Type() != plan.ScopeNamespaceSelectors {
		return nil
	}
	if p.Status.Phase != plan.PhaseActive {
		return p.Status.Coverage
	}
	infos := make([]plan.NamespaceInfo, 0, len(c.Namespaces))
	for ns, ok := range c.Namespaces {
		if ok {
			infos = append(infos, plan.NamespaceInfo{Name: ns, Labels: c.NamespaceLabels[ns]})
		}
	}
	slices.SortFunc(infos, func(a, b plan.NamespaceInfo) int { return strings.Compare(a.Name, b.Name) })
	before := p.Status.Coverage
	if started := p.Status.StartedAt; started != nil {
		before = slices.DeleteFunc(slices.Clone(before), func(c plan.Coverage) bool { return c.Since.Before(started) })
	}
	covered := plan.CoveredNamespaces(p.Spec.Scope, plan.AlwaysLeftOut(c.ReleaseNamespace, c.Excluded), infos)
	return plan.UpdateCoverage(before, covered, now)
}

// eventNamespaces are the namespaces to read a plan's violations from
// besides those its namespaced policies live in (Namespaces): with
// cluster-wide Kyverno policies (a namespaceSelectors scope), "default",
// where client-go records the events about a cluster-scoped object (the
// ClusterPolicy or ValidatingPolicy), and the namespaces the plan covers
// (coverage), where the events on the resources and the PolicyReports
// are. vap policies leave no event or report: none.
func eventNamespaces(objs []*unstructured.Unstructured, coverage ...[]plan.Coverage) []string {
	cluster := slices.ContainsFunc(objs, func(u *unstructured.Unstructured) bool {
		g := u.GroupVersionKind().Group
		return u.GetNamespace() == "" && (g == "kyverno.io" || g == "policies.kyverno.io")
	})
	if !cluster {
		return nil
	}
	out := []string{metav1.NamespaceDefault}
	for _, cov := range coverage {
		for _, c := range cov {
			out = append(out, c.Namespace)
		}
	}
	return out
}

// withEventNamespaces adds more namespaces to a sorted, distinct list.
func withEventNamespaces(nss []string, more []string) []string {
	out := append(slices.Clone(nss), more...)
	slices.Sort(out)
	return slices.Compact(out)
}

// NeedsKinds reports whether a pass over plans needs the cluster's served
// kinds (Cluster.Kinds), which are costly to read (every CRD): some plan
// that is not over names a custom kind (in a kinds parameter or its
// excluded kinds) or has the scaling template, which covers every served
// kind with a /scale; or is new (kubectl apply: its validation checks the
// kinds it names).
func NeedsKinds(plans []*plan.ProtectionPlan) bool {
	return slices.ContainsFunc(plans, func(p *plan.ProtectionPlan) bool {
		if p.Status.Phase == plan.PhaseCanceled || p.Status.Phase == plan.PhaseTerminated {
			return false
		}
		for _, t := range p.Spec.Templates {
			if t.Name == "scaling" || strings.Contains(t.Parameters["kinds"], ".") {
				return true
			}
		}
		return slices.ContainsFunc(p.Spec.Exclusions.Kinds, plan.IsCustomKindName)
	})
}
