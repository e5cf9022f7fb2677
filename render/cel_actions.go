package render

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

// The failure action of the CEL targets: both spell the plan's mode as a
// validationActions list, kyverno-cel in its policies, vap in its
// bindings.

// celActions spells a mode as validationActions: Deny to enforce; to
// audit, Audit for kyverno-cel (reports and events) and Audit plus Warn
// for vap (the audit log, and a warning the client sees).
func celActions(m plan.Mode, t Target) []admissionregistrationv1.ValidationAction {
	switch {
	case m == modeWarn: // the warning policy (warnings.go)
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}
	case m == plan.ModeEnforce:
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
	case t == TargetVAP:
		return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit, admissionregistrationv1.Warn}
	}
	return []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit}
}

// actionsAsStrings is celActions as an unstructured value.
func actionsAsStrings(m plan.Mode, t Target) []any {
	var out []any
	for _, a := range celActions(m, t) {
		out = append(out, string(a))
	}
	return out
}

// modeOfActions reads validationActions: Deny enforces; anything else
// (Audit, Warn) only records. A missing list reads as missingIs, or is an
// error when missingIs is empty.
func modeOfActions(obj *unstructured.Unstructured, missingIs plan.Mode) (plan.Mode, error) {
	actions, found, err := unstructured.NestedStringSlice(obj.Object, "spec", "validationActions")
	if err != nil {
		return "", fmt.Errorf("render: %s %s: %w", obj.GetKind(), describeName(obj), err)
	}
	if !found || len(actions) == 0 {
		if missingIs == "" {
			return "", fmt.Errorf("render: %s %s has no validationActions", obj.GetKind(), describeName(obj))
		}
		return missingIs, nil
	}
	if slices.Contains(actions, string(admissionregistrationv1.Deny)) {
		return plan.ModeEnforce, nil
	}
	return plan.ModeAudit, nil
}

func describeName(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
