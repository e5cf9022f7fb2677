package reconcile

import (
	"slices"
	"time"

	"github.com/telark/protectionplans/plan"
)

// coverage is what a plan's status says it covers (plan.Status.Coverage):
// for an active namespaceSelectors plan, the namespaces its selectors
// select now among those of the pass (with their labels,
// Cluster.NamespaceLabels), less those always left out, each since when
// this run first found it covered; nothing otherwise.
func coverage(p *plan.ProtectionPlan, c *Cluster, now time.Time) []plan.Coverage {
	if p.Status.Phase != plan.PhaseActive || p.Spec.Scope.Type() != plan.ScopeNamespaceSelectors {
		return nil
	}
	infos := make([]plan.NamespaceInfo, 0, len(c.Namespaces))
	for ns, ok := range c.Namespaces {
		if ok {
			infos = append(infos, plan.NamespaceInfo{Name: ns, Labels: c.NamespaceLabels[ns]})
		}
	}
	slices.SortFunc(infos, func(a, b plan.NamespaceInfo) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	covered := plan.CoveredNamespaces(p.Spec.Scope, plan.AlwaysLeftOut(c.ReleaseNamespace, c.Excluded), infos)
	return plan.UpdateCoverage(p.Status.Coverage, covered, now)
}
