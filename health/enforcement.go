package health

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// EnforcementInput is what the operator gathers of the enforcer for
// Enforcement: it reads, the library decides. A nil or empty field that
// was not gathered is said so by its own comment; nothing is listed twice.
type EnforcementInput struct {
	// Plan is the plan, its phase current.
	Plan *plan.ProtectionPlan
	// Render is the fresh render of the plan (as for Check).
	Render render.Result
	// Live are the plan's live policies with their status, as for Check.
	Live []*unstructured.Unstructured
	// Webhooks are the ValidatingWebhookConfigurations Kyverno manages
	// (label KyvernoWebhookLabel=kyverno): read for the Kyverno targets
	// only. Empty with a Kyverno target: Kyverno registered no webhook.
	Webhooks []*unstructured.Unstructured
	// Exceptions are the PolicyExceptions of every namespace, of both
	// APIs (kyverno.io/v2 and policies.kyverno.io).
	Exceptions []*unstructured.Unstructured
	// KyvernoConfig is Kyverno's ConfigMap (kyverno/kyverno), nil when
	// it was not found.
	KyvernoConfig *unstructured.Unstructured
	// NamespaceLabels are the labels of the frozen namespaces, by name,
	// for the webhooks' namespace selectors. A namespace without an entry
	// is taken to carry only kubernetes.io/metadata.name, which the API
	// server sets on every namespace.
	NamespaceLabels map[string]map[string]string
	// Guard is the guard ValidatingAdmissionPolicy and binding as found
	// (GuardPolicyName), nil when not gathered: then it is not judged.
	Guard *GuardState
	// Probes are the answers to this pass's probes (see Probes and
	// JudgeProbe), none when probing is off or not due.
	Probes []ProbeResult
	// Now is the instant of the check.
	Now time.Time
}

// GuardState is what the operator found of the guard: either may be nil
// (not installed).
type GuardState struct {
	Policy, Binding *unstructured.Unstructured
}

// KyvernoWebhookLabel is the label Kyverno puts on the webhook
// configurations it manages (value "kyverno"): list them with it.
const KyvernoWebhookLabel = "webhook.kyverno.io/managed-by"

// Reasons of the EnforcementVerified condition. The False ones are
// findings, most severe first: the condition takes the most severe
// finding's reason, and its message lists every finding.
const (
	// ReasonEnforced: every check passed (and the probes, if any, were
	// refused with the plan's message).
	ReasonEnforced = "Enforced"
	// ReasonNotEnforcing: the plan is not active; nothing is enforced
	// (status Unknown).
	ReasonNotEnforcing = "NotEnforcing"
	// ReasonPlanFailed: the plan failed (its policies could not all be put
	// in place, its Ready condition says why): the freeze it should hold
	// is not verified. The only finding then: the enforcer is not judged.
	ReasonPlanFailed = "PlanFailed"
	// ReasonWebhookMissing: Kyverno registered no webhook at all.
	ReasonWebhookMissing = "WebhookMissing"
	// ReasonEnforcerNotAnswering: a probe got no answer from the
	// enforcer (timeout or webhook error).
	ReasonEnforcerNotAnswering = "EnforcerNotAnswering"
	// ReasonProbeAdmitted: a dry-run the plan must refuse was admitted.
	ReasonProbeAdmitted = "ProbeAdmitted"
	// ReasonWebhookFailsOpen: the only webhooks that send the plan's
	// requests to Kyverno have failurePolicy Ignore.
	ReasonWebhookFailsOpen = "WebhookFailsOpen"
	// ReasonPolicyNotReady: Kyverno did not load a policy (its status).
	ReasonPolicyNotReady = "PolicyNotReady"
	// ReasonWebhookNotCovering: no webhook sends some of the plan's
	// requests in a frozen namespace to Kyverno.
	ReasonWebhookNotCovering = "WebhookNotCovering"
	// ReasonPolicyExcepted: a PolicyException names a policy of the plan.
	ReasonPolicyExcepted = "PolicyExcepted"
	// ReasonResourceFiltered: Kyverno's resourceFilters drop some of the
	// plan's requests before any policy sees them.
	ReasonResourceFiltered = "ResourceFiltered"
	// ReasonRequestersExcluded: Kyverno's excludeGroups (or usernames,
	// roles) exempt requesters from every policy.
	ReasonRequestersExcluded = "RequestersExcluded"
	// ReasonTypeCheckWarnings: the API server found type errors in a
	// ValidatingAdmissionPolicy of the plan (vap).
	ReasonTypeCheckWarnings = "TypeCheckWarnings"
	// ReasonBindingNotEnforcing: a ValidatingAdmissionPolicyBinding of the
	// plan is missing, points at another policy, or does not deny.
	ReasonBindingNotEnforcing = "BindingNotEnforcing"
	// ReasonProbeRefusedOtherwise: a probe was refused, but not with this
	// plan's message (another policy refused it first): the plan's own
	// refusal is not proven.
	ReasonProbeRefusedOtherwise = "ProbeRefusedOtherwise"
	// ReasonGuardMissing: the guard that keeps namespace admins from
	// deleting the plan's policies is not installed.
	ReasonGuardMissing = "GuardMissing"
)

// findingOrder ranks the False reasons, most severe first.
var findingOrder = []string{
	ReasonPlanFailed, ReasonWebhookMissing, ReasonEnforcerNotAnswering, ReasonProbeAdmitted, ReasonWebhookFailsOpen,
	ReasonPolicyNotReady, ReasonWebhookNotCovering, ReasonBindingNotEnforcing, ReasonPolicyExcepted,
	ReasonResourceFiltered, ReasonRequestersExcluded, ReasonTypeCheckWarnings, ReasonProbeRefusedOtherwise,
	ReasonGuardMissing,
}

// Finding is one reason the freeze may not refuse what it should.
type Finding struct {
	// Reason is one of the Reason constants above (not ReasonEnforced).
	Reason string
	// Namespaces are the frozen namespaces it concerns, sorted; empty for
	// a finding about no namespace in particular (the guard).
	Namespaces []string
	// Object names the object the finding is about, for people:
	// "ValidatingWebhookConfiguration kyverno-resource-validating-webhook-cfg".
	Object string
	// Message says what is wrong and what follows, for people.
	Message string
}

// EnforcementResult is what Enforcement found.
type EnforcementResult struct {
	// Findings are sorted by severity, then object and message.
	Findings []Finding
	// Condition is EnforcementVerified, stamped as plan.SetCondition
	// would store it.
	Condition metav1.Condition
}

// Verified reports whether the freeze is verified (the condition is
// True).
func (r EnforcementResult) Verified() bool { return r.Condition.Status == metav1.ConditionTrue }

// Enforcement reads what the operator gathered of the enforcer and says
// whether the plan's freeze really holds: EnforcementVerified, and every
// finding as data. Like Check it is pure and never fails. It changes
// nothing and proposes no repair: the objects it reads are Kyverno's or
// the cluster's, never the operator's to write (the plan's own policies
// are Check's: a missing or changed one is re-applied there).
//
// The checks, per target:
//
//   - kyverno, kyverno-cel: every request a policy matches (group,
//     resource or subresource, operation, in its namespace) must reach a
//     Kyverno webhook whose rules and namespaceSelector cover it, and one
//     of those must have failurePolicy Fail; the policy's own status must
//     say Kyverno loaded it; no PolicyException may name it; Kyverno's
//     resourceFilters must not drop its kinds in its namespace, nor its
//     excludeGroups, excludeUsernames, excludeRoles or excludeClusterRoles
//     exempt anyone (the default system:nodes excepted); the guard must be
//     installed (when gathered).
//   - vap: the binding must name the policy and deny (enforce) or warn
//     (audit); the policy must fail closed and have no type-checking
//     warnings. The guard is RBAC there (cluster-scoped objects that no
//     admission policy sees), so none is judged.
//   - every target: the probes of the pass (ProbeResult).
func Enforcement(in EnforcementInput) EnforcementResult {
	c := metav1.Condition{Type: plan.ConditionEnforcementVerified}
	switch {
	case in.Plan == nil:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonInconsistentInput, "no plan to check"
		return EnforcementResult{Condition: stamp(nil, c, in.Now)}
	case in.Plan.Status.Phase == plan.PhaseFailed:
		// A failed plan was meant to enforce: its last verdict (True,
		// before a policy was deleted and its repair refused) must not
		// outlive it, nor read as "not checked".
		f := Finding{Reason: ReasonPlanFailed, Object: "ProtectionPlan " + in.Plan.Name,
			Message: "the freeze is not verified: the plan failed, its policies are not all in place (its Ready condition says why)"}
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, f.Reason, f.Message
		return EnforcementResult{Findings: []Finding{f}, Condition: stamp(in.Plan, c, in.Now)}
	case in.Plan.Status.Phase != plan.PhaseActive:
		c.Status, c.Reason = metav1.ConditionUnknown, ReasonNotEnforcing
		c.Message = "nothing is enforced: " + phaseClause(in.Plan.Status.Phase)
		return EnforcementResult{Condition: stamp(in.Plan, c, in.Now)}
	case len(in.Render.Policies) == 0:
		c.Status, c.Reason = metav1.ConditionUnknown, ReasonInconsistentInput
		c.Message = "the plan is active but its render holds no policies: render the plan before checking it"
		return EnforcementResult{Condition: stamp(in.Plan, c, in.Now)}
	}
	e := newEnforcer(in)
	e.check()
	fs := e.findings.sorted()
	r := EnforcementResult{Findings: fs}
	if len(fs) == 0 {
		c.Status, c.Reason = metav1.ConditionTrue, ReasonEnforced
		c.Message = e.verifiedMessage()
	} else {
		c.Status, c.Reason = metav1.ConditionFalse, fs[0].Reason
		c.Message = enforcementMessage(fs)
	}
	r.Condition = stamp(in.Plan, c, in.Now)
	return r
}

// enforcer is one enforcement check in progress.
type enforcer struct {
	in       EnforcementInput
	live     map[objKey]*unstructured.Unstructured
	hooks    []webhook
	config   kyvernoConfig
	findings findingSet
	kyverno  bool // some policy has a Kyverno target
	policies int
}

func newEnforcer(in EnforcementInput) *enforcer {
	e := &enforcer{in: in, live: make(map[objKey]*unstructured.Unstructured, len(in.Live))}
	for _, o := range in.Live {
		if o != nil {
			e.live[keyOf(o)] = o
		}
	}
	for _, w := range in.Webhooks {
		e.hooks = append(e.hooks, webhooksOf(w)...)
	}
	e.config = parseKyvernoConfig(in.KyvernoConfig)
	return e
}

func (e *enforcer) check() {
	for _, p := range e.in.Render.Policies {
		e.policies++
		switch p.Target {
		case render.TargetKyverno, render.TargetKyvernoCEL:
			e.kyverno = true
			e.checkKyverno(p)
		case render.TargetVAP:
			e.checkVAP(p)
		}
	}
	if e.kyverno && len(e.hooks) == 0 {
		e.findings.add(ReasonWebhookMissing, "", "Kyverno's webhooks",
			"Kyverno has registered no validating webhook: it is not installed or not running, and nothing in %s is refused", e.frozen())
	}
	if e.kyverno {
		e.checkConfig()
		e.checkGuard()
	}
	e.checkProbes()
}

// frozen lists the render's namespaces for messages.
func (e *enforcer) frozen() string {
	sp := spread{}
	for _, p := range e.in.Render.Policies {
		sp.add(StateOK, p.Namespace)
	}
	return sp.namespaces(StateOK)
}

func (e *enforcer) verifiedMessage() string {
	var parts []string
	if e.kyverno {
		parts = append(parts, "Kyverno's webhooks fail closed and cover every frozen namespace and kind", "Kyverno loaded every policy, and no exception or filter exempts them")
	} else {
		parts = append(parts, "every policy is bound, fails closed and type-checks")
	}
	refused := 0
	for _, p := range e.in.Probes {
		if p.Outcome == ProbeRefused {
			refused++
		}
	}
	if refused > 0 {
		parts = append(parts, fmt.Sprintf("%s refused with the plan's message", count(refused, "probe was", "probes were")))
	}
	return fmt.Sprintf("the freeze of %s holds: %s", count(e.policies, "policy", "policies"), strings.Join(parts, "; "))
}

// findingSet merges findings of the same reason, object and message over
// namespaces.
type findingSet struct {
	byKey map[[3]string]*Finding
	order [][3]string
}

func (s *findingSet) add(reason, namespace, object, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	k := [3]string{reason, object, msg}
	if s.byKey == nil {
		s.byKey = map[[3]string]*Finding{}
	}
	f, ok := s.byKey[k]
	if !ok {
		f = &Finding{Reason: reason, Object: object, Message: msg}
		s.byKey[k] = f
		s.order = append(s.order, k)
	}
	if namespace != "" && !slices.Contains(f.Namespaces, namespace) {
		f.Namespaces = append(f.Namespaces, namespace)
	}
}

func (s *findingSet) sorted() []Finding {
	out := make([]Finding, 0, len(s.order))
	for _, k := range s.order {
		f := *s.byKey[k]
		slices.Sort(f.Namespaces)
		out = append(out, f)
	}
	rank := func(r string) int { return slices.Index(findingOrder, r) }
	slices.SortStableFunc(out, func(a, b Finding) int {
		if c := rank(a.Reason) - rank(b.Reason); c != 0 {
			return c
		}
		if c := strings.Compare(a.Object, b.Object); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return out
}

// maxFindingsShown caps the findings the condition's message spells out.
const maxFindingsShown = 5

// enforcementMessage joins the findings, most severe first.
func enforcementMessage(fs []Finding) string {
	var parts []string
	for i, f := range fs {
		if i == maxFindingsShown {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-maxFindingsShown))
			break
		}
		parts = append(parts, f.Message)
	}
	return strings.Join(parts, "; ")
}

// nsList lists namespaces for messages, at most maxNamespacesShown.
func nsList(ns []string) string {
	sp := spread{}
	for _, n := range ns {
		sp.add(StateOK, n)
	}
	return sp.namespaces(StateOK)
}

// RecordEnforcement stores an enforcement check on a copy of p: the
// EnforcementVerified condition (plan.SetCondition) and, when its status
// or reason changes (a first condition that is not True included), an
// EnforcementChanged timeline event: the unverified intervals of a report.
func RecordEnforcement(p *plan.ProtectionPlan, r EnforcementResult, now time.Time) plan.Result {
	out := p.DeepCopy()
	before := meta.FindStatusCondition(out.Status.Conditions, plan.ConditionEnforcementVerified)
	if before != nil {
		before = before.DeepCopy()
	}
	plan.SetCondition(out, r.Condition, now)
	return resultOf(out, before, plan.ConditionEnforcementVerified, plan.EventEnforcementChanged, now)
}
