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
	// TargetKyvernoCEL will render policies.kyverno.io/v1
	// NamespacedValidatingPolicy objects. Not supported yet.
	TargetKyvernoCEL Target = "kyverno-cel"
	// TargetVAP will render admissionregistration.k8s.io/v1
	// ValidatingAdmissionPolicy and Binding objects (no Kyverno needed).
	// Not supported yet.
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
}

// translators are the supported targets.
var translators = map[Target]translator{
	TargetKyverno: kyvernoTarget{},
}

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
// with the plan's mode ("action changed").
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
