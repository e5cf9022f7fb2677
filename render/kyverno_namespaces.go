package render

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kyvernoSelectNamespaces narrows every match filter of the rules to the
// namespaces the selector selects (resources.namespaceSelector). Filters
// may share their resources with other rules, so each gets a copy.
func kyvernoSelectNamespaces(rules []kyRule, sel *metav1.LabelSelector) {
	narrow := func(fs []kyFilter) []kyFilter {
		out := make([]kyFilter, len(fs))
		for i, f := range fs {
			if f.Resources != nil {
				r := *f.Resources
				r.NamespaceSelector = sel
				f.Resources = &r
			}
			out[i] = f
		}
		return out
	}
	for i := range rules {
		rules[i].Match.Any = narrow(rules[i].Match.Any)
		rules[i].Match.All = narrow(rules[i].Match.All)
	}
}

// kyvernoNamespaceLabels renders the ClusterPolicy that freezes
// relabelling a namespace out of the plan's selectors: an UPDATE of a
// Namespace whose old labels some selector selects and whose new labels
// none does. The selectors carry the namespaces always left out
// (kubernetes.io/metadata.name notin ...), so those are never held. The
// exemptions and the plan's requesters apply as to every rule.
func kyvernoNamespaceLabels(c *compiled) (Policy, error) {
	sels := c.nsSelectors()
	rule := kyRule{
		Name: namespaceLabelsRule,
		Match: kyMatch{Any: []kyFilter{{Resources: &kyResources{
			Kinds: []string{"Namespace"}, Operations: []string{string(OpUpdate)},
		}}}},
		Exclude: kyvernoExclude(nil, nsScope{}, c.exempt, c.hasScale),
		// Kyverno validates every {{ }} at apply time: an expression that
		// starts with "(" is wrapped in a function returning it (scaleRule).
		Preconditions: &kyConditions{All: []kyCondition{
			isTrue("not_null(" + selectorJMESPath(sels, oldObject+".metadata.labels") + ")"),
			{Key: "{{ not_null(" + selectorJMESPath(sels, newObject+".metadata.labels") + ") }}", Operator: "Equals", Value: false},
		}},
		SkipBackgroundRequests: true,
		Validate: kyValidate{
			AllowExistingViolations: false,
			Message:                 kyvernoMessage(c.message(namespaceLabelsWhat)),
			Deny: kyDeny{Conditions: kyConditions{All: []kyCondition{
				{Key: "{{ request.operation }}", Operator: "AnyIn", Value: []string{string(OpUpdate)}},
			}}},
		},
	}
	if err := c.kyvernoRequesters(&rule, false); err != nil {
		return Policy{}, err
	}
	c.grants.kyvernoPrecondition(&rule, false, c.exempt)
	spec := kySpec{
		Admission: true, Background: false, EmitWarning: false,
		ValidationFailureAction: kyvernoAction(c.mode),
		Rules:                   []kyRule{rule},
	}
	if c.clock != nil { // refuses only in the window, as the plan's other policies
		addKyvernoClock(&spec, c.clock)
	}
	proto, err := newSpecProto(spec)
	if err != nil {
		return Policy{}, err
	}
	u := policyUnit{template: NamespaceLabelsTemplate, templates: []string{NamespaceLabelsTemplate}}
	return kyvernoPolicy(c, u, namespaceLabelsPolicyName(c.planID), "", proto)
}
