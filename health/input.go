package health

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// ListSelector is the label selector that lists the live policies of every
// plan in one call per kind (the label exists, whatever its value). Split
// the list with GroupByPlan, and list the kinds render.KindsOf names, in
// the versions it names.
const ListSelector = render.LabelPlan

// Input is everything a health check depends on. The caller gathers it;
// Check decides.
type Input struct {
	// Plan is the plan, its phase current (tick it first).
	Plan *plan.ProtectionPlan
	// Render is the fresh render of the plan at Now (render.Render of the
	// same plan). A plan that is not active renders empty (R-R7).
	Render render.Result
	// Live are the live policies that carry the plan's label, as listed
	// from the cluster (GroupByPlan(list)[plan ID]). Objects labelled for
	// another plan, and objects of a kind no target renders, are ignored.
	// They are only read.
	Live []*unstructured.Unstructured
	// Now is the instant of the check: the conditions' transition time.
	Now time.Time
	// Repair asks for the repair actions. False is "Refresh health": the
	// same states and conditions, no actions.
	Repair bool
	// Verified is the Result.Verified of the plan's previous check, or
	// the zero value: live objects it remembers unchanged are not compared
	// again.
	Verified Verified
}

// GroupByPlan splits one list of live policies (listed with ListSelector)
// by plan ID, keeping the list's order. Objects without the plan label, or
// with an empty one, are left out.
func GroupByPlan(live []*unstructured.Unstructured) map[string][]*unstructured.Unstructured {
	out := map[string][]*unstructured.Unstructured{}
	for _, o := range live {
		if id := labelOf(o, render.LabelPlan); id != "" {
			out[id] = append(out[id], o)
		}
	}
	return out
}
