package health

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/telark/protectionplans/render"
)

// Sweep returns a Delete for every managed policy whose plan is not in
// activePlanIDs: policies left behind by plans that ended, or that no
// longer exist (R-H2). live is the operator's one list of every plan's
// policies (ListSelector). A policy is managed when it carries both the
// plan label and app.kubernetes.io/managed-by=render.ManagedBy, and is of
// a kind some target renders; Sweep never touches anything else, whatever
// its labels say.
//
// activePlanIDs are the plans whose policies stay: the plans in phase
// active. (Check deletes the strays of the plans it checks, so an operator
// that checks every existing plan may pass all their IDs instead; with
// only the active ones, Sweep and Check both delete the policies of an
// existing plan that is not active, which is harmless: the second delete
// fails its precondition or finds nothing.)
//
// Deletes carry the uid and resourceVersion preconditions and are sorted
// like Check's.
func Sweep(live []*unstructured.Unstructured, activePlanIDs sets.Set[string]) []Action {
	var out []Action
	seen := map[objKey]bool{}
	for _, o := range live {
		if o == nil || labelOf(o, render.LabelManagedBy) != render.ManagedBy {
			continue
		}
		id := labelOf(o, render.LabelPlan)
		if id == "" || activePlanIDs.Has(id) {
			continue
		}
		if _, ok := render.TargetOf(o); !ok {
			continue
		}
		k := keyOf(o)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, Action{
			Kind:   Delete,
			Object: identity(o),
			Reason: describe(o) + " belongs to plan " + id + ", which is not active or no longer exists",
		})
	}
	sortActions(out)
	return out
}
