package render

import (
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// A namespaceSelectors scope (plan.ScopeNamespaceSelectors) is rendered
// cluster-wide, one set of policies per selector, each carrying the
// selector as the target's own namespaceSelector, so that a namespace
// created or labelled later is covered by the admission chain at once,
// without a pass of the operator:
//
//   - kyverno: a kyverno.io/v1 ClusterPolicy per template and selector,
//     every match filter with resources.namespaceSelector (Kyverno reads
//     the namespace's labels from its cache at admission);
//   - kyverno-cel: a policies.kyverno.io/v1 ValidatingPolicy (the
//     cluster-wide twin of NamespacedValidatingPolicy) per template and
//     selector, with matchConstraints.namespaceSelector, which Kyverno
//     copies into its webhook: the API server selects;
//   - vap: a ValidatingAdmissionPolicy and binding per template and
//     selector, the binding's matchResources.namespaceSelector the
//     selector.
//
// The per-namespace layouts cannot serve a selector scope: a Policy or a
// NamespacedValidatingPolicy only sees its own namespace, so a namespace
// labelled tonight would stay open until the next pass wrote its
// policies. Selectors are ORed: a namespace two selectors select is
// checked by both policies (the same rules and messages; an enforced
// refusal is the same refusal). Each selector is ANDed with
// "kubernetes.io/metadata.name notin (<AlwaysLeftOut>)" (the release
// namespace, the excluded namespaces, kube-system, kube-public and
// kube-node-lease): the API server sets that label on every namespace to
// its name, and nobody can change it.
//
// Old and new labels both count: one more cluster-wide policy
// (NamespaceLabelsTemplate) refuses, or records in audit mode, an UPDATE
// of a Namespace that some selector selected before and none selects
// after, as the application scope guards do for objects (guard.go). It
// cannot use the namespaceSelector (the API server matches a Namespace
// object against its new labels), so it tests the old and new labels in
// its rule.

// NamespaceLabelsTemplate is the template label (and Policy.Template) of
// the policy that freezes relabelling a namespace out of a
// namespaceSelectors scope. No catalog template has this name.
const NamespaceLabelsTemplate = "namespace-labels"

// namespaceLabelsRule is the name of that policy's rule.
const namespaceLabelsRule = "namespace-relabel"

// SelectorPolicyName is the name of the cluster-wide policy rendering
// template for the selector at index i of the plan's namespaceSelectors:
// PolicyName with the template written "<template>-s<i>" (no catalog
// template ends like that), so it is a DNS label of at most 63
// characters, as every target's names must be. The vap target names both
// its objects so; the name has no dot, unlike VAPName's.
func SelectorPolicyName(planID, template string, i int) string {
	return PolicyName(planID, template+"-s"+strconv.Itoa(i))
}

// namespaceLabelsPolicyName is the name of the NamespaceLabelsTemplate
// policy (one per plan).
func namespaceLabelsPolicyName(planID string) string {
	return PolicyName(planID, NamespaceLabelsTemplate)
}

// selectorScopes returns one cluster-wide scope per selector, in the
// plan's order: the whole of every namespace the selector selects
// (all), with the selector ANDed with the namespaces always left out.
// The release namespace must be known: without it the render could
// freeze the namespace the product runs in.
func selectorScopes(in Input, fld *field.Path) ([]nsScope, field.ErrorList) {
	if in.ReleaseNamespace == "" {
		return nil, field.ErrorList{field.Required(field.NewPath("releaseNamespace"),
			"a namespaceSelectors scope always leaves the release namespace out; the render needs its name")}
	}
	leftOut := plan.AlwaysLeftOut(in.ReleaseNamespace, in.ExcludedNamespaces)
	var errs field.ErrorList
	for i, n := range leftOut {
		if e := checkNamespace(n, field.NewPath("excludedNamespaces").Index(i)); e != nil {
			errs = append(errs, e)
		}
	}
	var out []nsScope
	for i, s := range in.Plan.Spec.Scope.NamespaceSelectors {
		p := fld.Index(i)
		if _, err := metav1.LabelSelectorAsSelector(&s); err != nil {
			errs = append(errs, field.Invalid(p, metav1.FormatLabelSelector(&s), err.Error()))
			continue
		}
		sel := s.DeepCopy()
		sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: plan.MetadataNameLabel, Operator: metav1.LabelSelectorOpNotIn, Values: leftOut,
		})
		norm, e := normalizeSelector(sel, p)
		if len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		out = append(out, nsScope{all: true, nsSelector: norm, selIndex: i,
			key: "nssel:" + strconv.Itoa(i) + ":" + selectorKey(norm)})
	}
	return out, errs
}

// nsSelectors are the namespace selectors of the compiled plan's scopes,
// in order; none for a scope by namespaces or applications.
func (c *compiled) nsSelectors() []*metav1.LabelSelector {
	var out []*metav1.LabelSelector
	for _, ns := range c.namespaces {
		if ns.nsSelector != nil {
			out = append(out, ns.nsSelector)
		}
	}
	return out
}

// namespaceLabelsWhat is what the NamespaceLabelsTemplate policy freezes,
// as its message says it.
const namespaceLabelsWhat = "relabelling a namespace out of the plan's namespace selectors"

// policyName is the name of a unit's policy in ns for the Kyverno targets:
// PolicyName, or SelectorPolicyName for a cluster-wide scope.
func (c *compiled) policyNameIn(template string, ns nsScope) string {
	if ns.nsSelector != nil {
		return SelectorPolicyName(c.planID, template, ns.selIndex)
	}
	return PolicyName(c.planID, template)
}

// scopeOf is the scope of the plan a request's namespace is in: the
// namespace's own, or in a namespaceSelectors scope the first selector
// that selects the namespace's labels (Request.NamespaceLabels, its
// kubernetes.io/metadata.name being its name), named after the namespace.
func (c *compiled) scopeOf(req Request) (nsScope, bool) {
	labels := map[string]string{}
	for k, v := range req.NamespaceLabels {
		labels[k] = v
	}
	labels[plan.MetadataNameLabel] = req.Namespace
	for _, ns := range c.namespaces {
		switch {
		case ns.nsSelector == nil && ns.name == req.Namespace:
			return ns, true
		case ns.nsSelector != nil && req.Namespace != "" && selectorMatchesOne(ns.nsSelector, labels):
			ns.name = req.Namespace
			return ns, true
		}
	}
	return nsScope{}, false
}

// explainedPolicy is the name of the policy of template in ns as the
// target renders it, and how Explain's reasons describe it.
func (c *compiled) explainedPolicy(tr explainTraits, template string, ns nsScope) (name, ref string) {
	if ns.nsSelector == nil {
		name = tr.policyName(c.planID, template, ns.name)
		return name, tr.describe(ns.name, name)
	}
	name = SelectorPolicyName(c.planID, template, ns.selIndex)
	kind := map[Target]string{TargetKyverno: kyvernoClusterKind, TargetKyvernoCEL: vpolKind, TargetVAP: vapKind}[c.target]
	return name, kind + " " + name
}

// explainRelabel decides an UPDATE of a Namespace for the
// NamespaceLabelsTemplate policy of a namespaceSelectors scope; ok is
// false for any other request (or scope). Requesters are decided as by
// every rule: the exemptions and the plan's exempt requesters are
// admitted (that policy records nothing), and with include only the
// included are frozen.
func (c *compiled) explainRelabel(req Request) (Decision, bool) {
	sels := c.nsSelectors()
	if len(sels) == 0 || req.Operation != OpUpdate || req.Kind.Group != "" || req.Kind.Kind != "Namespace" || req.Subresource != "" {
		return Decision{}, false
	}
	labelsOf := func(obj map[string]any) map[string]string {
		out := map[string]string{}
		if m, ok := lookup(obj, "metadata", "labels").(map[string]any); ok {
			for k, v := range m {
				if s, ok := v.(string); ok {
					out[k] = s
				}
			}
		}
		out[plan.MetadataNameLabel] = req.Name
		return out
	}
	held, kept := selectorMatches(sels, labelsOf(req.OldObject)), selectorMatches(sels, labelsOf(req.Object))
	switch {
	case !held:
		return Decision{Reason: fmt.Sprintf("namespace %q is not in the plan's scope", req.Name)}, true
	case kept:
		return Decision{Reason: fmt.Sprintf("namespace %q stays in the plan's scope", req.Name)}, true
	}
	if e, ok := exemptionFor(req.UserInfo); ok {
		return Decision{Reason: fmt.Sprintf("%s is exempt (%s %s)", req.UserInfo.Username, e.Kind, e.Name)}, true
	}
	if (!c.include.empty() && !c.include.matches(req.UserInfo)) || c.exempt.matches(req.UserInfo) {
		return Decision{Reason: fmt.Sprintf("%s is not frozen by the plan", req.UserInfo.Username)}, true
	}
	tr := translators[c.target].traits()
	name := namespaceLabelsPolicyName(c.planID)
	kind := map[Target]string{TargetKyverno: kyvernoClusterKind, TargetKyvernoCEL: vpolKind, TargetVAP: vapKind}[c.target]
	d := Decision{Template: NamespaceLabelsTemplate, Rule: namespaceLabelsRule, Policy: name,
		Message: tr.text(c.message(namespaceLabelsWhat))}
	if c.mode == plan.ModeEnforce {
		d.Blocked, d.Reason = true, fmt.Sprintf("refused by rule %s of %s %s", namespaceLabelsRule, kind, name)
	} else {
		d.Audited, d.Reason = true, fmt.Sprintf("admitted and recorded by rule %s of %s %s (audit mode)", namespaceLabelsRule, kind, name)
	}
	return d, true
}
