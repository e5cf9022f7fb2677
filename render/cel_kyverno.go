package render

import (
	policieskyvernoio "github.com/kyverno/api/api/policies.kyverno.io"
	policiesv1 "github.com/kyverno/api/api/policies.kyverno.io/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// kyvernoCELTarget renders policies.kyverno.io/v1 NamespacedValidatingPolicy
// objects, typed with github.com/kyverno/api (the light module Kyverno
// publishes for importers): one per template and namespace, named like the
// kyverno target's policies, with the CEL translation of cel_rules.go and
//
//   - validationActions [Deny] in enforce mode, [Audit] in audit mode (the
//     violation is recorded in events and reports; the client sees
//     nothing, as with the kyverno target);
//   - failurePolicy Fail, and evaluation in admission only (background
//     off: the rules read the request, and Kyverno's background scan has
//     no request);
//   - the /scale of an applications scope selected by its parent's labels,
//     read with resource.Get (a Scale has none).
//
// Messages are static: Kyverno's CEL engine returns a validation's message
// as written (it evaluates messageExpression only, and substitutes no
// variables), so user text is written as is, but for control characters
// YAML cannot carry (celText). Every field the CRD or the
// API server would default is written, so a live policy reads back equal to
// its render.
type kyvernoCELTarget struct{}

var _ translator = kyvernoCELTarget{}

const (
	nvpolAPIVersion = "policies.kyverno.io/v1"
	nvpolKind       = "NamespacedValidatingPolicy"
	// vpolKind is the cluster-wide twin, for a namespaceSelectors scope.
	vpolKind = "ValidatingPolicy"
)

// kyvernoCELOptions are the kyverno-cel target's CEL options.
var kyvernoCELOptions = celOptions{text: celText}

func (kyvernoCELTarget) policies(c *compiled) ([]Policy, error) {
	opt := kyvernoCELOptions
	opt.dynObjects = c.compact
	ps, err := c.eachPolicy(
		func(u policyUnit, ns nsScope) (*specProto, error) {
			o := opt
			o.dynObjects = c.compact // read per unit: a compact policy's parts render as the standard layout does (withParts)
			spec, err := kyvernoCELSpec(c, u, ns, o)
			if err != nil {
				return nil, err
			}
			return newSpecProto(spec)
		},
		func(u policyUnit, ns nsScope, proto *specProto) (Policy, error) {
			return kyvernoCELPolicy(c, u, c.policyNameIn(u.template, ns), ns.name, proto)
		})
	if err != nil || len(c.nsSelectors()) == 0 {
		return ps, err
	}
	labels := celNamespaceLabels(c, opt)
	if c.clock != nil { // refuses only in the window, as the plan's other policies
		labels.conditions = addCELClock(labels.conditions, c.clock)
	}
	proto, err := newSpecProto(kyvernoCELSpecOf(c.mode, labels))
	if err != nil {
		return nil, err
	}
	u := policyUnit{template: NamespaceLabelsTemplate, templates: []string{NamespaceLabelsTemplate}}
	guard, err := kyvernoCELPolicy(c, u, namespaceLabelsPolicyName(c.planID), "", proto)
	if err != nil {
		return nil, err
	}
	return append(ps, guard), nil
}

// kyvernoCELPolicy makes the object of one namespace from a shared spec;
// an empty namespace makes a cluster-wide ValidatingPolicy (a
// namespaceSelectors scope).
func kyvernoCELPolicy(c *compiled, u policyUnit, name, namespace string, proto *specProto) (Policy, error) {
	kind := nvpolKind
	if namespace == "" {
		kind = vpolKind
	}
	obj, hash, err := renderedObject(c, nvpolAPIVersion, kind, u.template, name, namespace, nil, proto)
	if err != nil {
		return Policy{}, err
	}
	return Policy{
		Target: TargetKyvernoCEL, Template: u.template, Templates: u.templates, Namespace: namespace, Name: name,
		Hash: hash, Objects: []*unstructured.Unstructured{obj},
	}, nil
}

// kyvernoCELSpec renders the spec of a policy holding a unit's rules for
// a namespace.
func kyvernoCELSpec(c *compiled, u policyUnit, ns nsScope, opt celOptions) (policiesv1.ValidatingPolicySpec, error) {
	cs, err := celTranslate(c, u, ns, opt)
	if err != nil {
		return policiesv1.ValidatingPolicySpec{}, err
	}
	if c.clock != nil && !u.warn { // warnings are timed rule by rule
		cs.conditions = addCELClock(cs.conditions, c.clock)
	}
	if ns.nsSelector != nil {
		cs.match.NamespaceSelector = ns.nsSelector
	}
	return kyvernoCELSpecOf(c.modeOf(u), cs), nil
}

// kyvernoCELSpecOf writes a translated policy as a ValidatingPolicySpec
// in a mode.
func kyvernoCELSpecOf(mode plan.Mode, cs celSpec) policiesv1.ValidatingPolicySpec {
	fail := admissionregistrationv1.Fail
	yes, no := true, false
	return policiesv1.ValidatingPolicySpec{
		MatchConstraints: &cs.match,
		MatchConditions:  cs.conditions,
		Variables:        cs.variables,
		Validations:      cs.validations,
		FailurePolicy:    &fail,
		ValidationAction: celActions(mode, TargetKyvernoCEL),
		EvaluationConfiguration: &policiesv1.EvaluationConfiguration{
			Mode:       policieskyvernoio.EvaluationModeKubernetes,
			Admission:  &policiesv1.AdmissionConfiguration{Enabled: &yes},
			Background: &policiesv1.BackgroundConfiguration{Enabled: &no},
		},
	}
}

func (kyvernoCELTarget) kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		{Group: "policies.kyverno.io", Version: "v1", Kind: nvpolKind},
		{Group: "policies.kyverno.io", Version: "v1", Kind: vpolKind},
	}
}

// failureAction reads spec.validationActions: Deny is enforce, Audit (or
// Warn) audit; Kyverno reads a missing list as [Deny].
func (kyvernoCELTarget) failureAction(obj *unstructured.Unstructured) (plan.Mode, error) {
	return modeOfActions(obj, plan.ModeEnforce)
}

func (kyvernoCELTarget) setFailureAction(obj *unstructured.Unstructured, m plan.Mode) error {
	return unstructured.SetNestedSlice(obj.Object, actionsAsStrings(m, TargetKyvernoCEL), "spec", "validationActions")
}

func (kyvernoCELTarget) traits() explainTraits {
	return explainTraits{
		policyName: func(planID, template, _ string) string { return PolicyName(planID, template) },
		describe:   func(ns, name string) string { return "NamespacedValidatingPolicy " + ns + "/" + name },
		text:       celText,
		requester:  celRecordText,
	}
}

// frozenNamespace: the policy lives in the namespace it freezes; a
// ValidatingPolicy (a namespaceSelectors scope) in none: "".
func (kyvernoCELTarget) frozenNamespace(obj *unstructured.Unstructured) (string, bool) {
	return obj.GetNamespace(), true
}
