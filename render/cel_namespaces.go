package render

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/telark/protectionplans/plan"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// celNamespaceLabels is the CEL translation of the NamespaceLabelsTemplate
// policy (see kyvernoNamespaceLabels): namespaces UPDATE, refused when
// some selector selects the old labels and none the new ones; the
// exemptions and the plan's requesters as match conditions, like every
// policy of the plan.
func celNamespaceLabels(c *compiled, opt celOptions) celSpec {
	sels := c.nsSelectors()
	rule := celRule([]Kind{{Group: "", Version: "v1", Kind: "Namespace", Resource: "namespaces"}}, opt,
		[]string{string(OpUpdate)}, []string{"namespaces"}, nil)
	cluster := admissionregistrationv1.ClusterScope
	rule.Scope = &cluster
	vars := &celVars{}
	held := celSelectors(sels, vars.use(varOldLabels))
	kept := celSelectors(sels, vars.use(varNewLabels))
	return celSpec{
		match:      celMatchResources([]admissionregistrationv1.NamedRuleWithOperations{rule}, nil, opt),
		conditions: celConditions(c, nsScope{}, false),
		variables:  vars.declarations(),
		validations: []admissionregistrationv1.Validation{{
			Expression: "!" + held + " || " + kept,
			Message:    opt.text(c.message(namespaceLabelsWhat)),
			Reason:     opt.reason,
		}},
	}
}

// vapSelectorPolicy makes the policy and binding of one selector of a
// namespaceSelectors scope: the binding selects the namespaces (its
// matchResources.namespaceSelector), so the API server covers a namespace
// labelled later at once.
func vapSelectorPolicy(c *compiled, u policyUnit, name string, mode plan.Mode, sel *metav1.LabelSelector, proto *specProto) (Policy, error) {
	vap, vapHash, err := renderedObject(c, vapAPIVersion, vapKind, u.template, name, "", nil, proto)
	if err != nil {
		return Policy{}, err
	}
	spec := bindingSpec(mode, name, "")
	spec.MatchResources.NamespaceSelector = sel
	bindingProto, err := newSpecProto(spec)
	if err != nil {
		return Policy{}, err
	}
	binding, bindingHash, err := renderedObject(c, vapAPIVersion, bindingKind, u.template, name, "", nil, bindingProto)
	if err != nil {
		return Policy{}, err
	}
	sum := sha256.Sum256([]byte(vapHash + "\n" + bindingHash))
	return Policy{
		Target: TargetVAP, Template: u.template, Templates: u.templates, Name: name,
		Hash: hashPrefix + hex.EncodeToString(sum[:]), Objects: []*unstructured.Unstructured{vap, binding},
	}, nil
}

// vapNamespaceLabels makes the NamespaceLabelsTemplate policy for vap: its
// binding selects every namespace (a Namespace object is matched against
// its own new labels, so the relabelled one would not be selected).
func vapNamespaceLabels(c *compiled, opt celOptions) (Policy, error) {
	cs := celNamespaceLabels(c, opt)
	fail := admissionregistrationv1.Fail
	proto, err := newSpecProto(admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &cs.match,
		MatchConditions:  cs.conditions,
		Variables:        cs.variables,
		Validations:      cs.validations,
		FailurePolicy:    &fail,
	})
	if err != nil {
		return Policy{}, err
	}
	u := policyUnit{template: NamespaceLabelsTemplate, templates: []string{NamespaceLabelsTemplate}}
	return vapSelectorPolicy(c, u, namespaceLabelsPolicyName(c.planID), c.mode, &metav1.LabelSelector{}, proto)
}
