package reconcile

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

// CheckpointDue reports whether a violations checkpoint is due at now:
// none was made yet (last is zero), or period has passed since the last.
func CheckpointDue(last, now time.Time, period time.Duration) bool {
	return last.IsZero() || !now.Before(last.Add(period))
}

// Checkpoint is what a periodic checkpoint reads and merges: the plans
// whose violations it merges into their ledgers (violations.Checkpoint),
// the index that attributes events and PolicyReports to them, and the
// namespaces whose events and PolicyReports to list (one list per
// namespace, shared by the plans).
type Checkpoint struct {
	Plans      []string
	Index      violations.PolicyIndex
	Namespaces []string
}

// CheckpointOf is the checkpoint of a pass: the plans that exist and have
// live policies (live is every plan's, listed with health.ListSelector).
// The vap target's policies are cluster-scoped and the API server records
// no event or report of their decisions: they give no namespace to read.
func CheckpointOf(plans []*plan.ProtectionPlan, live []*unstructured.Unstructured) Checkpoint {
	byPlan := health.GroupByPlan(live)
	var c Checkpoint
	var objs []*unstructured.Unstructured
	var more []string
	for _, p := range plans {
		if l := byPlan[p.Name]; len(l) > 0 {
			c.Plans = append(c.Plans, p.Name)
			objs = append(objs, l...)
			more = append(more, eventNamespaces(l, p.Status.Coverage)...)
		}
	}
	c.Index = violations.IndexPolicies(objs)
	c.Namespaces = withEventNamespaces(Namespaces(objs), more)
	return c
}
