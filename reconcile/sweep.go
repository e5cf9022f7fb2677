package reconcile

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// SweepInput is what is left of plans in the cluster and on the
// embedder's storage.
type SweepInput struct {
	// Plans are the plans that exist.
	Plans []*plan.ProtectionPlan
	// Live are every plan's policies (listed with health.ListSelector).
	Live []*unstructured.Unstructured
	// PolicyAPI is non-nil when the policy kinds are not served: nothing
	// was listed, nothing is swept.
	PolicyAPI error
	// Stored are the plan IDs the embedder stores files for (a reports
	// directory), each with the UID its record names ("" when it has no
	// readable record).
	Stored map[string]types.UID
}

// SweepOutput is what to remove.
type SweepOutput struct {
	// Actions delete the policies of plans that no longer exist.
	Actions []health.Action
	// Remove are the plan IDs whose files go (R-T4: reports are deleted
	// with their plan): plans that no longer exist, and plans recreated
	// under the same ID (another UID). Sorted.
	Remove []string
}

// Sweep decides what is left of deleted plans.
func Sweep(in SweepInput) SweepOutput {
	var out SweepOutput
	uids := make(map[string]types.UID, len(in.Plans))
	for _, p := range in.Plans {
		uids[p.Name] = p.UID
	}
	if in.PolicyAPI == nil {
		out.Actions = health.Sweep(in.Live, sets.KeySet(uids))
	}
	for id, recorded := range in.Stored {
		uid, ok := uids[id]
		if ok && (recorded == "" || recorded == uid) {
			continue
		}
		out.Remove = append(out.Remove, id)
	}
	slices.Sort(out.Remove)
	return out
}

// NeedsApplications reports whether some of plans needs its applications
// resolved in a pass: an applications scope whose lifecycle has not ended
// (a plan without a status is validated against them).
func NeedsApplications(plans []*plan.ProtectionPlan) bool {
	return slices.ContainsFunc(plans, func(p *plan.ProtectionPlan) bool {
		return p.Spec.Scope.Type() == plan.ScopeApplications &&
			p.Status.Phase != plan.PhaseCanceled && p.Status.Phase != plan.PhaseTerminated
	})
}
