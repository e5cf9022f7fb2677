package health

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// Reasons of the PoliciesHealthy condition.
const (
	// ReasonInPlace: an active plan's policies all match its render.
	ReasonInPlace = "InPlace"
	// ReasonNothingDeployed: a plan that is not active has no policy left,
	// as it should (R-R7).
	ReasonNothingDeployed = "NothingDeployed"
	// ReasonPreArmed: a scheduled plan's policies, which read the clock,
	// are in place ahead of the start and refuse nothing before it
	// (render.Armed, issue 20).
	ReasonPreArmed = "PreArmed"
	// ReasonPoliciesMissing, ReasonPoliciesOutdated,
	// ReasonFailureActionChanged and ReasonUnexpectedPolicies: the most
	// severe drift found (in that order); the message lists every kind.
	ReasonPoliciesMissing      = "PoliciesMissing"
	ReasonPoliciesOutdated     = "PoliciesOutdated"
	ReasonFailureActionChanged = "FailureActionChanged"
	ReasonUnexpectedPolicies   = "UnexpectedPolicies"
	// ReasonInconsistentInput: the check could not judge its input (no
	// plan; a render that does not fit the plan's phase or is of another
	// plan). Status Unknown, no actions.
	ReasonInconsistentInput = "InconsistentInput"
)

// ReasonNotObserved is the reason of the Ready condition Check reports for
// a plan whose lifecycle has not set Ready yet.
const ReasonNotObserved = "NotObserved"

// maxNamespacesShown caps the namespaces a message lists.
const maxNamespacesShown = 5

// conditions are Ready (the plan's own), Approved and PoliciesHealthy,
// stamped as plan.SetCondition would store them.
func conditions(in Input, healthy metav1.Condition) []metav1.Condition {
	p := in.Plan
	ready := metav1.Condition{
		Type: plan.ConditionReady, Status: metav1.ConditionUnknown, Reason: ReasonNotObserved,
		Message: "the lifecycle has not set Ready yet", ObservedGeneration: p.Generation,
		LastTransitionTime: metav1.NewTime(in.Now),
	}
	if c := meta.FindStatusCondition(p.Status.Conditions, plan.ConditionReady); c != nil {
		ready = *c
	}
	return []metav1.Condition{ready, stamp(p, plan.ApprovedCondition(p), in.Now), healthy}
}

// stamp sets the generation and transition time of c as plan.SetCondition
// would: the time of the plan's condition of the same type when its
// status is the same, now otherwise.
func stamp(p *plan.ProtectionPlan, c metav1.Condition, now time.Time) metav1.Condition {
	c.LastTransitionTime = metav1.NewTime(now)
	if p == nil {
		return c
	}
	c.ObservedGeneration = p.Generation
	if old := meta.FindStatusCondition(p.Status.Conditions, c.Type); old != nil && old.Status == c.Status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	return c
}

// coverageNote says, for a plan on namespace selectors, how many
// namespaces its policies cover now (status.coverage, which the pass
// resolves): a selector that selects nothing (a label misspelt) holds
// policies that refuse nothing, which only the number shows.
func coverageNote(p *plan.ProtectionPlan) string {
	if p.Spec.Scope.Type() != plan.ScopeNamespaceSelectors {
		return ""
	}
	n := len(p.Status.Coverage)
	if n == 0 {
		return "; but its namespace selectors select no namespace now: the freeze refuses nothing until a namespace is labelled to match (status.coverage)"
	}
	names := make([]string, 0, min(n, 3))
	for _, c := range p.Status.Coverage[:min(n, 3)] {
		names = append(names, c.Namespace)
	}
	more := ""
	if n > 3 {
		more = fmt.Sprintf(" and %d more", n-3)
	}
	return fmt.Sprintf("; they cover %s now (%s%s; status.coverage)", count(n, "namespace", "namespaces"), strings.Join(names, ", "), more)
}

func unknownHealthy(p *plan.ProtectionPlan, now time.Time, why string) metav1.Condition {
	return stamp(p, metav1.Condition{
		Type: plan.ConditionPoliciesHealthy, Status: metav1.ConditionUnknown,
		Reason: ReasonInconsistentInput, Message: why,
	}, now)
}

// policiesHealthy is health's verdict, in words a person can act on.
//
// faults are the templates at fault of compact policies by state
// (templatesAtFaultByState): the message names them after the namespaces.
func policiesHealthy(in Input, s Summary, sp spread, faults map[State][]string) metav1.Condition {
	c := metav1.Condition{Type: plan.ConditionPoliciesHealthy, Status: metav1.ConditionTrue}
	phase := in.Plan.Status.Phase
	switch {
	case s.healthy() && phase == plan.PhaseActive:
		c.Reason = ReasonInPlace
		c.Message = fmt.Sprintf("all %s in place and match the plan", count(s.Rendered, "policy is", "policies are"))
		if s.Rendered == 1 {
			c.Message = "the plan's only policy is in place and matches the plan"
		}
		c.Message += coverageNote(in.Plan)
	case s.healthy() && phase == plan.PhaseScheduled && s.Rendered > 0:
		c.Reason = ReasonPreArmed
		c.Message = fmt.Sprintf("all %s in place ahead of the window's start; they refuse nothing before its start instant (they read the clock)",
			count(s.Rendered, "policy is", "policies are"))
		if warningsOnly(in.Render) {
			c.Message = fmt.Sprintf("the plan's %s in place ahead of the window's start: they only warn (advance warnings)",
				count(s.Rendered, "warning policy is", "warning policies are"))
		}
	case s.healthy():
		c.Reason, c.Message = ReasonNothingDeployed, nothingDeployed(phase)
	case phase != plan.PhaseActive && s.Rendered == 0:
		c.Status, c.Reason = metav1.ConditionFalse, ReasonUnexpectedPolicies
		c.Message = fmt.Sprintf("%s still deployed in %s although %s: %s",
			count(s.Unexpected, "policy", "policies"), sp.namespaces(StateUnexpected),
			phaseClause(phase), fix(in.Repair, "deleted"))
	default:
		c.Status = metav1.ConditionFalse
		c.Reason, c.Message = drift(in, s, sp, faults)
	}
	return stamp(in.Plan, c, in.Now)
}

// drift describes an active plan's drift, most severe first.
func drift(in Input, s Summary, sp spread, faults map[State][]string) (reason string, msg string) {
	var parts []string
	add := func(n int, r, what string, st State, repair string) {
		if n == 0 {
			return
		}
		if reason == "" {
			reason = r
		}
		parts = append(parts, fmt.Sprintf("%s in %s%s: %s", what, sp.namespaces(st), templatesNote(faults[st]), fix(in.Repair, repair)))
	}
	of := func(n int) string { return fmt.Sprintf("%d of %s", n, count(s.Rendered, "policy", "policies")) }
	add(s.Missing, ReasonPoliciesMissing, of(s.Missing)+" missing", StateMissing, "re-applied")
	add(s.Outdated, ReasonPoliciesOutdated, of(s.Outdated)+" outdated", StateOutdated, "re-applied")
	add(s.ActionChanged, ReasonFailureActionChanged, of(s.ActionChanged)+" with a changed failure action",
		StateActionChanged, "patched back to "+string(in.Plan.Spec.Mode))
	add(s.Unexpected, ReasonUnexpectedPolicies,
		fmt.Sprintf("%d unexpected %s with the plan's label", s.Unexpected, plural(s.Unexpected, "policy", "policies")),
		StateUnexpected, "deleted")
	return reason, strings.Join(parts, "; ")
}

// fix says when a repair happens: now (Repair) or on the operator's next
// tick ("Refresh health").
func fix(repair bool, done string) string {
	if repair {
		return "being " + done
	}
	return done + " on the next tick"
}

func nothingDeployed(phase plan.Phase) string {
	switch phase {
	case plan.PhaseScheduled:
		return "nothing is deployed before the window starts"
	case plan.PhasePendingApproval:
		return "nothing is deployed while the plan waits for approval"
	case plan.PhaseTerminated:
		return "the window ended; no policy is left"
	case plan.PhaseCanceled:
		return "the plan is canceled; no policy is left"
	case plan.PhaseFailed:
		return "nothing is deployed while the plan is failed; the next tick retries it"
	}
	return "nothing is deployed: the plan has no phase yet"
}

// phaseClause says why nothing may be deployed in a phase other than
// active.
func phaseClause(phase plan.Phase) string {
	switch phase {
	case plan.PhaseScheduled:
		return "the window has not started"
	case plan.PhasePendingApproval:
		return "the plan waits for approval"
	case plan.PhaseTerminated:
		return "the window ended"
	case plan.PhaseCanceled:
		return "the plan is canceled"
	case plan.PhaseFailed:
		return "the plan failed"
	}
	return "the plan has no phase yet"
}

func phaseName(p plan.Phase) string {
	if p == "" {
		return "not yet created"
	}
	return string(p)
}

func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// spread records the namespaces each state was found in.
type spread map[State]map[string]bool

func (s spread) add(st State, ns string) {
	if s[st] == nil {
		s[st] = map[string]bool{}
	}
	s[st][ns] = true
}

// namespaces lists a state's namespaces, sorted, at most
// maxNamespacesShown of them: "payments, shop" or "a, b, c, d, e and 3
// more". A cluster-scoped object counts as "the cluster scope".
func (s spread) namespaces(st State) string {
	var ns []string
	for n := range s[st] {
		if n == "" {
			n = "the cluster scope"
		}
		ns = append(ns, n)
	}
	slices.Sort(ns)
	if len(ns) > maxNamespacesShown {
		return strings.Join(ns[:maxNamespacesShown], ", ") + fmt.Sprintf(" and %d more", len(ns)-maxNamespacesShown)
	}
	return strings.Join(ns, ", ")
}

// warningsOnly reports whether a render holds only warning policies: a
// scheduled plan within the lead on a target without a clock (issue 20).
func warningsOnly(r render.Result) bool {
	for _, p := range r.Policies {
		if p.Template != render.WarnTemplate {
			return false
		}
	}
	return len(r.Policies) > 0
}

// templatesNote names the templates at fault of the compact policies in a
// state: " (templates scaling, image-change)"; nothing for none.
func templatesNote(ts []string) string {
	switch len(ts) {
	case 0:
		return ""
	case 1:
		return " (template " + ts[0] + ")"
	}
	return " (templates " + strings.Join(ts, ", ") + ")"
}
