package health

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// GuardPolicyName is the name of the guard ValidatingAdmissionPolicy (and
// its binding) in config/admission/policies.yaml, which refuses updates
// and deletes of the plans' Kyverno policies by anyone but the operator.
const GuardPolicyName = "protectionplans-policies"

// checkVAP checks one policy of the vap target: a ValidatingAdmissionPolicy
// and its binding.
func (e *enforcer) checkVAP(p render.Policy) {
	var vap, binding *unstructured.Unstructured
	for _, o := range p.Objects {
		switch o.GetKind() {
		case "ValidatingAdmissionPolicy":
			vap = o
		case "ValidatingAdmissionPolicyBinding":
			binding = o
		}
	}
	if vap == nil {
		return
	}
	ns := p.Namespace
	desc := describe(vap)
	if live := e.live[keyOf(vap)]; live != nil {
		if fp, _, _ := unstructured.NestedString(live.Object, "spec", "failurePolicy"); fp == "Ignore" {
			e.findings.add(ReasonWebhookFailsOpen, ns, desc,
				"%s has failurePolicy Ignore: a request whose expressions fail to evaluate in %s is admitted", desc, ns)
		}
		warnings, _, _ := unstructured.NestedSlice(live.Object, "status", "typeChecking", "expressionWarnings")
		var ws []string
		for _, w := range warnings {
			wm, _ := w.(map[string]any)
			ws = append(ws, fmt.Sprintf("%v: %v", wm["fieldRef"], firstLine(fmt.Sprint(wm["warning"]))))
		}
		if len(ws) > 0 {
			e.findings.add(ReasonTypeCheckWarnings, ns, desc,
				"the API server found type errors in %s (%s): those expressions fail at run time and the policy refuses everything they guard",
				desc, strings.Join(ws, "; "))
		}
	}
	if binding == nil {
		return
	}
	bdesc := describe(binding)
	live := e.live[keyOf(binding)]
	if live == nil {
		e.findings.add(ReasonBindingNotEnforcing, ns, bdesc, "%s is missing: %s enforces nothing in %s", bdesc, desc, ns)
		return
	}
	if pn, _, _ := unstructured.NestedString(live.Object, "spec", "policyName"); pn != vap.GetName() {
		e.findings.add(ReasonBindingNotEnforcing, ns, bdesc, "%s binds policy %q, not %s: nothing enforces it in %s", bdesc, pn, vap.GetName(), ns)
		return
	}
	actions, _, _ := unstructured.NestedStringSlice(live.Object, "spec", "validationActions")
	if e.in.Plan.Spec.Mode == plan.ModeEnforce && !slices.Contains(actions, "Deny") {
		e.findings.add(ReasonBindingNotEnforcing, ns, bdesc,
			"%s has validationActions %v without Deny: the plan enforces, but changes in %s are admitted", bdesc, actions, ns)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkGuard reports a missing guard (Kyverno targets; when gathered).
func (e *enforcer) checkGuard() {
	g := e.in.Guard
	if g == nil {
		return
	}
	var missing []string
	if g.Policy == nil {
		missing = append(missing, "ValidatingAdmissionPolicy "+GuardPolicyName)
	}
	if g.Binding == nil {
		missing = append(missing, "ValidatingAdmissionPolicyBinding "+GuardPolicyName)
	}
	if len(missing) == 0 {
		return
	}
	e.findings.add(ReasonGuardMissing, "", strings.Join(missing, ", "),
		"the guard %s is not installed: whoever may edit Kyverno policies in %s can delete or change the freeze's policies until the next pass repairs them; apply config/admission/policies.yaml",
		strings.Join(missing, " and "), e.frozen())
}
