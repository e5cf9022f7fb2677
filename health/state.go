package health

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// State is the health of one policy. The values are what
// plan.PolicyStatus.State holds.
type State string

// States, from healthy to most severe. A policy whose objects are in
// several states takes the most severe one.
const (
	// StateOK: the live policy is the render, byte for byte in its
	// canonical form (render.HashOf).
	StateOK State = "ok"
	// StateActionChanged: the live policy differs from the render only in
	// its failure action (the plan's mode); it is patched back.
	StateActionChanged State = "action_changed"
	// StateOutdated: the live policy was rendered from another version of
	// the plan (its render-hash annotation differs from the render's), or
	// its spec was changed by hand under an intact annotation (it no longer
	// hashes to its annotation) in more than the failure action. It is
	// applied again, which also fixes a changed failure action.
	StateOutdated State = "outdated"
	// StateMissing: the render has it, the cluster does not.
	StateMissing State = "missing"
	// StateUnexpected: a live policy carries the plan's label but is not in
	// the render: a stray, a policy of an older render with another name or
	// namespace, or any policy of a plan that is not active. It is deleted.
	StateUnexpected State = "unexpected"
)

// severity orders states; unexpected policies are counted apart from the
// rendered ones, so its rank only matters for the condition's reason.
func (s State) severity() int {
	switch s {
	case StateMissing:
		return 4
	case StateOutdated:
		return 3
	case StateActionChanged:
		return 2
	case StateUnexpected:
		return 1
	}
	return 0
}

// PolicyHealth is the health of one policy: a rendered one (a template in a
// namespace) or an unexpected live object.
type PolicyHealth struct {
	// Target is the target of the render or of the live object.
	Target render.Target
	// Template is the catalog name of the template (from the label, for an
	// unexpected object).
	Template string
	// Namespace is the namespace the policy freezes (render.Policy), or the
	// live object's namespace for an unexpected one ("" when
	// cluster-scoped).
	Namespace string
	// Name is the policy's name.
	Name string
	// State is its health.
	State State
	// Templates are, for a policy of the compact layout that is not ok,
	// the templates at fault, in the plan's order: every one of a missing
	// policy, or those whose rules changed (compact.go). A repair still
	// applies the whole compact policy. nil for other policies, whose
	// Template says it.
	Templates []string
	// Detail says what is wrong, for people; empty when ok.
	Detail string
}

// Summary counts policies by state. Rendered is the number of policies in
// the render; Unexpected counts live policies outside it.
type Summary struct {
	Rendered, OK, Missing, Outdated, ActionChanged, Unexpected int
}

func (s *Summary) add(st State) {
	switch st {
	case StateOK:
		s.OK++
	case StateMissing:
		s.Missing++
	case StateOutdated:
		s.Outdated++
	case StateActionChanged:
		s.ActionChanged++
	case StateUnexpected:
		s.Unexpected++
	}
}

// healthy reports whether every rendered policy is ok and nothing is
// unexpected.
func (s Summary) healthy() bool { return s.OK == s.Rendered && s.Unexpected == 0 }

// Result is a health check.
type Result struct {
	// PlanID is the plan's metadata.name.
	PlanID string
	// Phase is the plan's phase.
	Phase plan.Phase
	// Policies are the rendered policies and the unexpected live ones,
	// sorted by namespace, name and template.
	Policies []PolicyHealth
	// Summary counts them by state.
	Summary Summary
	// Conditions are Ready (the plan's own, as the lifecycle set it: health
	// never changes it), Approved (plan.ApprovedCondition) and
	// PoliciesHealthy (health's verdict), in that order.
	Conditions []metav1.Condition
	// Actions converge the cluster on the render, in the order to carry
	// them out (see Action). Empty unless Input.Repair, and empty in the
	// steady state: an operator that follows them writes nothing.
	Actions []Action
	// Verified remembers the live objects found ok, for the next check's
	// Input.Verified.
	Verified Verified
}

// Condition returns the condition of type typ, or nil.
func (r Result) Condition(typ string) *metav1.Condition {
	for i := range r.Conditions {
		if r.Conditions[i].Type == typ {
			return &r.Conditions[i]
		}
	}
	return nil
}

// PolicyStatuses returns the policies as the plan's status stores them.
func (r Result) PolicyStatuses() []plan.PolicyStatus {
	out := make([]plan.PolicyStatus, len(r.Policies))
	for i, p := range r.Policies {
		out[i] = plan.PolicyStatus{Namespace: p.Namespace, Name: p.Name, Template: p.Template, State: string(p.State)}
	}
	return out
}

func sortPolicies(ps []PolicyHealth) {
	slices.SortStableFunc(ps, func(a, b PolicyHealth) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Template, b.Template)
	})
}
