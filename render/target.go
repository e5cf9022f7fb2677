package render

import (
	"errors"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// Target is the kind of admission policy a plan renders to. It is a closed
// set.
type Target string

const (
	// TargetKyverno renders kyverno.io/v1 Policy objects (the default, and
	// what the product documentation describes).
	TargetKyverno Target = "kyverno"
	// TargetKyvernoCEL renders policies.kyverno.io/v1
	// NamespacedValidatingPolicy objects: Kyverno's CEL policies, which
	// Kyverno 1.19 recommends over kyverno.io/v1.
	TargetKyvernoCEL Target = "kyverno-cel"
	// TargetVAP renders admissionregistration.k8s.io/v1
	// ValidatingAdmissionPolicy objects, each with its
	// ValidatingAdmissionPolicyBinding: the API server enforces them
	// itself, no Kyverno needed (Kubernetes 1.30+).
	TargetVAP Target = "vap"
)

// Targets returns every target, supported or not, in a stable order.
func Targets() []Target { return []Target{TargetKyverno, TargetKyvernoCEL, TargetVAP} }

// Supported reports whether Render can render to t yet.
func Supported(t Target) bool {
	_, ok := translators[t]
	return ok
}

// translator is the seam between the rule vocabulary and one kind of
// admission policy. A target is one file implementing it plus one line in
// translators. It is sealed: only this package implements it.
type translator interface {
	// policies renders every policy of the compiled plan, in any order.
	policies(c *compiled) ([]Policy, error)
	// kinds are the kinds of object the target renders.
	kinds() []schema.GroupVersionKind
	// failureAction reads the mode a live object enforces.
	failureAction(obj *unstructured.Unstructured) (plan.Mode, error)
	// setFailureAction writes a mode into a live object (a repair).
	setFailureAction(obj *unstructured.Unstructured, m plan.Mode) error
	// traits are what Explain needs to know about the target.
	traits() explainTraits
	// frozenNamespace is the namespace a live object of the target
	// freezes; ok is false for an object that is not the first of its
	// policy (a VAP's binding).
	frozenNamespace(obj *unstructured.Unstructured) (string, bool)
}

// explainTraits is what Explain needs to know about a target to name what
// it renders, and to mirror the one place where targets decide
// differently (the /scale of an applications scope under vap).
type explainTraits struct {
	// policyName names the policy object of a template in a namespace.
	policyName func(planID, template, namespace string) string
	// describe names a policy object in Explain's reasons.
	describe func(namespace, name string) string
	// splitScaleRules: the target gives the /scale requests of an
	// applications scope rules of their own (scaleRuleName).
	splitScaleRules bool
	// scaleByMembers: the target selects the /scale requests of an
	// applications scope by the applications' members, by name, since it
	// cannot read the labels of a Scale's parent.
	scaleByMembers bool
	// text is a message as the target writes it.
	text func(string) string
	// requester is the requester's user name as a record's message
	// writes it (after recordPrefix).
	requester func(string) string
}

// translators are the supported targets.
var translators = map[Target]translator{
	TargetKyverno:    kyvernoTarget{},
	TargetKyvernoCEL: kyvernoCELTarget{},
	TargetVAP:        vapTarget{},
}

// ErrNoFailureAction is wrapped by FailureAction and SetFailureAction for
// an object of a target's that carries no failure action: a
// ValidatingAdmissionPolicy, whose binding carries it.
var ErrNoFailureAction = errors.New("the object carries no failure action")

// UnsupportedTargetError is returned by Render and Explain for a target
// that is unknown or not implemented yet. It is the caller's fault (400).
type UnsupportedTargetError struct {
	Target Target
}

func (e *UnsupportedTargetError) Error() string {
	for _, t := range Targets() {
		if t == e.Target {
			return fmt.Sprintf("render target %q not supported yet", e.Target)
		}
	}
	return fmt.Sprintf("unknown render target %q (known: kyverno, kyverno-cel, vap)", e.Target)
}

// HTTPCode is 400.
func (e *UnsupportedTargetError) HTTPCode() int { return http.StatusBadRequest }

var _ plan.Coder = (*UnsupportedTargetError)(nil)

// resolveTarget applies the default and refuses unsupported targets.
func resolveTarget(t Target) (Target, error) {
	if t == "" {
		t = TargetKyverno
	}
	if !Supported(t) {
		return "", &UnsupportedTargetError{Target: t}
	}
	return t, nil
}

// ErrNotRendered is wrapped by the health helpers when an object is of no
// kind any target renders.
var ErrNotRendered = errors.New("not a kind of object protection plans render")

// KindsOf returns the kinds of object a target renders: what health lists
// (with PlanSelector) to find a plan's live policies.
func KindsOf(t Target) ([]schema.GroupVersionKind, error) {
	t, err := resolveTarget(t)
	if err != nil {
		return nil, err
	}
	return translators[t].kinds(), nil
}

// PlanSelector is the label selector of every object rendered for a plan.
func PlanSelector(planID string) string { return LabelPlan + "=" + planID }

// Identify reads back from a live object the Policy it is part of: its
// target, template, the namespace it freezes and its name (Objects and
// Hash are left empty). A policy of several objects is identified by its
// first one only (a vap policy by its ValidatingAdmissionPolicy, not its
// binding): ok is false for the others and for objects of no target.
func Identify(obj *unstructured.Unstructured) (Policy, bool) {
	t, ok := TargetOf(obj)
	if !ok {
		return Policy{}, false
	}
	ns, ok := translators[t].frozenNamespace(obj)
	if !ok {
		return Policy{}, false
	}
	tmpl := obj.GetLabels()[LabelTemplate]
	return Policy{Target: t, Template: tmpl, Templates: []string{tmpl}, Namespace: ns, Name: obj.GetName()}, true
}

// TargetOf returns the target whose kind of object obj is.
func TargetOf(obj *unstructured.Unstructured) (Target, bool) {
	gvk := obj.GroupVersionKind()
	for _, t := range Targets() {
		tr, ok := translators[t]
		if !ok {
			continue
		}
		for _, k := range tr.kinds() {
			if k == gvk {
				return t, true
			}
		}
	}
	return "", false
}

func translatorOf(obj *unstructured.Unstructured) (translator, error) {
	if obj == nil {
		return nil, fmt.Errorf("render: nil object: %w", ErrNotRendered)
	}
	t, ok := TargetOf(obj)
	if !ok {
		return nil, fmt.Errorf("render: %s %s: %w", obj.GetAPIVersion(), obj.GetKind(), ErrNotRendered)
	}
	return translators[t], nil
}

// FailureAction returns the mode a live policy enforces: plan.ModeEnforce
// when it refuses, plan.ModeAudit when it only records. Health compares it
// with the plan's mode ("action changed"). Per target: kyverno reads
// spec.validationFailureAction; kyverno-cel reads spec.validationActions
// (Deny is enforce); vap reads the binding's spec.validationActions, and a
// ValidatingAdmissionPolicy itself has none (ErrNoFailureAction).
func FailureAction(obj *unstructured.Unstructured) (plan.Mode, error) {
	tr, err := translatorOf(obj)
	if err != nil {
		return "", err
	}
	return tr.failureAction(obj)
}

// SetFailureAction writes a mode into a live policy, in place, the way its
// target spells it; health patches the result back. The render hash of the
// object is the rendered one again once the mode is the plan's.
func SetFailureAction(obj *unstructured.Unstructured, m plan.Mode) error {
	if m != plan.ModeAudit && m != plan.ModeEnforce {
		return fmt.Errorf("render: unknown mode %q", m)
	}
	tr, err := translatorOf(obj)
	if err != nil {
		return err
	}
	return tr.setFailureAction(obj, m)
}
