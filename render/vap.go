package render

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// vapTarget renders native admissionregistration.k8s.io/v1 policies: per
// template and namespace, a ValidatingAdmissionPolicy and a
// ValidatingAdmissionPolicyBinding of the same name (VAPName). The API
// server evaluates them itself: nothing else has to run, nothing can be
// down. Both objects are cluster-scoped and carry the plan's labels and
// their own render hash; Policy.Hash covers the two.
//
// The policy holds the CEL translation of cel_rules.go, with
// failurePolicy Fail, each kind's served version in its resource rules (so
// that the API server type-checks the expressions against the kinds'
// schemas: status.typeChecking), and validations with reason Forbidden.
// The binding scopes it to the namespace (a namespaceSelector on
// kubernetes.io/metadata.name) and carries the plan's mode:
// validationActions [Deny] to enforce, [Audit, Warn] to audit (the
// decision goes to the audit log as an annotation, and the client sees a
// warning). Neither uses parameters: every value is in the expressions,
// quoted (a ConfigMap parameter would add an object to keep in step, and
// the API server's parameter informers have had bugs).
//
// Two differences with the Kyverno targets:
//
//   - a Scale has no labels and a ValidatingAdmissionPolicy cannot read
//     another object, so in an applications scope /scale is matched by
//     the names of the applications' members (resourceNames) as resolved
//     when rendering. A member created later is not covered until the
//     next render (the operator renders on every tick). Explain decides
//     /scale the same way for this target;
//   - the API server refuses a message with a line break, so line breaks
//     in the plan's and applications' names read as spaces (vapText).
type vapTarget struct{}

var _ translator = vapTarget{}

const (
	vapAPIVersion = "admissionregistration.k8s.io/v1"
	vapKind       = "ValidatingAdmissionPolicy"
	bindingKind   = "ValidatingAdmissionPolicyBinding"
)

// vapOptions are the vap target's CEL options.
var vapOptions = celOptions{
	exactVersions:  true,
	scaleByMembers: true,
	reason:         func() *metav1.StatusReason { r := metav1.StatusReasonForbidden; return &r }(),
	text:           vapText,
}

// VAPName returns the name of the ValidatingAdmissionPolicy (and of its
// binding) rendering template for the plan planID in namespace: the
// policy name of the Kyverno targets, a dot, and the namespace, e.g.
// "summer-freeze-scaling.shop". VAPs are cluster-scoped, so the namespace
// is part of the name. It is a DNS subdomain of at most 127 characters
// (PolicyName is a DNS label of at most 63, a namespace too), and two
// (plan, template, namespace) never share one: a namespace has no dot, so
// the name splits back at its last dot into a policy name, unique per plan
// and template, and the namespace. No hash is needed to shorten it.
func VAPName(planID, template, namespace string) string {
	return PolicyName(planID, template) + "." + namespace
}

func (vapTarget) policies(c *compiled) ([]Policy, error) {
	opt := vapOptions
	opt.dynObjects = c.compact
	ps, err := c.eachPolicy(
		func(u policyUnit, ns nsScope) (*specProto, error) {
			o := opt
			o.dynObjects = c.compact // read per unit: a compact policy's parts render as the standard layout does (withParts)
			spec, err := vapSpec(c, u, ns, o)
			if err != nil {
				return nil, err
			}
			return newSpecProto(spec)
		},
		func(u policyUnit, ns nsScope, proto *specProto) (Policy, error) {
			if ns.nsSelector != nil {
				return vapSelectorPolicy(c, u, SelectorPolicyName(c.planID, u.template, ns.selIndex), c.modeOf(u), ns.nsSelector, proto)
			}
			return vapPolicy(c, u, ns.name, proto)
		})
	if err != nil || len(c.nsSelectors()) == 0 {
		return ps, err
	}
	guard, err := vapNamespaceLabels(c, opt)
	if err != nil {
		return nil, err
	}
	return append(ps, guard), nil
}

// vapSpec renders the spec of a ValidatingAdmissionPolicy holding a
// unit's rules for a namespace.
func vapSpec(c *compiled, u policyUnit, ns nsScope, opt celOptions) (admissionregistrationv1.ValidatingAdmissionPolicySpec, error) {
	cs, err := celTranslate(c, u, ns, opt)
	if err != nil {
		return admissionregistrationv1.ValidatingAdmissionPolicySpec{}, err
	}
	fail := admissionregistrationv1.Fail
	return admissionregistrationv1.ValidatingAdmissionPolicySpec{
		MatchConstraints: &cs.match,
		MatchConditions:  cs.conditions,
		Variables:        cs.variables,
		Validations:      cs.validations,
		FailurePolicy:    &fail,
	}, nil
}

// vapPolicy makes the policy and binding of one namespace.
func vapPolicy(c *compiled, u policyUnit, namespace string, proto *specProto) (Policy, error) {
	name := VAPName(c.planID, u.template, namespace)
	vap, vapHash, err := renderedObject(c, vapAPIVersion, vapKind, u.template, name, "", nil, proto)
	if err != nil {
		return Policy{}, err
	}
	bindingProto, err := bindingSpecProto(c.modeOf(u), name, namespace)
	if err != nil {
		return Policy{}, err
	}
	binding, bindingHash, err := renderedObject(c, vapAPIVersion, bindingKind, u.template, name, "", nil, bindingProto)
	if err != nil {
		return Policy{}, err
	}
	sum := sha256.Sum256([]byte(vapHash + "\n" + bindingHash))
	return Policy{
		Target: TargetVAP, Template: u.template, Templates: u.templates, Namespace: namespace, Name: name,
		Hash: hashPrefix + hex.EncodeToString(sum[:]), Objects: []*unstructured.Unstructured{vap, binding},
	}, nil
}

// bindingSpec binds the policy name to one namespace, with the plan's
// mode as validation actions and the fields the API server defaults.
func bindingSpec(m plan.Mode, name, namespace string) admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec {
	equivalent := admissionregistrationv1.Equivalent
	return admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName:        name,
		ValidationActions: celActions(m, TargetVAP),
		MatchResources: &admissionregistrationv1.MatchResources{
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpIn, Values: []string{namespace},
			}}},
			ObjectSelector: &metav1.LabelSelector{},
			MatchPolicy:    &equivalent,
		},
	}
}

// bindingSpecProto is bindingSpec's unstructured and canonical forms,
// built directly: one binding per namespace, so it is on the hot path of a
// large render (a test holds it equal to newSpecProto(bindingSpec(...))).
// The spec is the binding's alone (single).
func bindingSpecProto(m plan.Mode, name, namespace string) (*specProto, error) {
	spec := map[string]any{
		"policyName":        name,
		"validationActions": actionsAsStrings(m, TargetVAP),
		"matchResources": map[string]any{
			"matchPolicy": string(admissionregistrationv1.Equivalent),
			"namespaceSelector": map[string]any{"matchExpressions": []any{map[string]any{
				"key": "kubernetes.io/metadata.name", "operator": string(metav1.LabelSelectorOpIn), "values": []any{namespace},
			}}},
			"objectSelector": map[string]any{},
		},
	}
	return &specProto{spec: spec, json: bindingJSON(spec["validationActions"].([]any), name, namespace), single: true}, nil
}

// bindingJSON writes the canonical JSON of a binding's spec as json.Marshal
// writes the map bindingSpecProto builds (keys sorted), without reflection.
func bindingJSON(actions []any, name, namespace string) []byte {
	b := make([]byte, 0, 320)
	b = append(b, `{"matchResources":{"matchPolicy":`...)
	b = appendJSONString(b, string(admissionregistrationv1.Equivalent))
	b = append(b, `,"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":`...)
	b = appendJSONString(b, string(metav1.LabelSelectorOpIn))
	b = append(b, `,"values":[`...)
	b = appendJSONString(b, namespace)
	b = append(b, `]}]},"objectSelector":{}},"policyName":`...)
	b = appendJSONString(b, name)
	b = append(b, `,"validationActions":`...)
	if actions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, a := range actions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, a.(string))
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// vapText is a message as the vap target writes it: the API server
// refuses a validation message with a line break (\n or \r), so every
// line break (CR LF, CR, LF, NEL, LS, PS) reads as one space; and, as for
// kyverno-cel, control characters read as U+FFFD (celText).
func vapText(s string) string {
	if strings.ContainsAny(s, "\r\n\u0085\u2028\u2029") {
		s = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\u0085", " ", "\u2028", " ", "\u2029", " ").Replace(s)
	}
	return celText(s)
}

func (vapTarget) kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: vapKind},
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: bindingKind},
	}
}

// failureAction reads a binding's spec.validationActions (Deny is
// enforce, Audit and Warn audit). A ValidatingAdmissionPolicy carries no
// action: ErrNoFailureAction.
func (vapTarget) failureAction(obj *unstructured.Unstructured) (plan.Mode, error) {
	if obj.GetKind() != bindingKind {
		return "", fmt.Errorf("render: %s %s: %w (its binding does)", obj.GetKind(), obj.GetName(), ErrNoFailureAction)
	}
	return modeOfActions(obj, "")
}

func (vapTarget) setFailureAction(obj *unstructured.Unstructured, m plan.Mode) error {
	if obj.GetKind() != bindingKind {
		return fmt.Errorf("render: %s %s: %w (its binding does)", obj.GetKind(), obj.GetName(), ErrNoFailureAction)
	}
	return unstructured.SetNestedSlice(obj.Object, actionsAsStrings(m, TargetVAP), "spec", "validationActions")
}

func (vapTarget) traits() explainTraits {
	return explainTraits{
		policyName:     VAPName,
		describe:       func(_, name string) string { return "ValidatingAdmissionPolicy " + name },
		scaleByMembers: true,
		text:           vapText,
		requester:      celRecordText,
	}
}

// frozenNamespace: a ValidatingAdmissionPolicy is cluster-scoped and named
// VAPName, <policy name>.<namespace> (plan IDs, template names and
// namespaces hold no dot); its binding is the same policy. A name without
// a dot (SelectorPolicyName, a namespaceSelectors scope) freezes no one
// namespace: "".
func (vapTarget) frozenNamespace(obj *unstructured.Unstructured) (string, bool) {
	if obj.GetKind() != vapKind {
		return "", false
	}
	i := strings.LastIndexByte(obj.GetName(), '.')
	if i < 0 {
		return "", true
	}
	return obj.GetName()[i+1:], true
}
