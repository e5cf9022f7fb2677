package render

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// Scope guards close a side door of the applications scope. Rules match
// an UPDATE when the old or the new object carries the application's
// labels, so removing the label in the same update as a frozen change is
// caught; but two updates would not be: the first only removes the label
// (it changes no image, no replica count: nothing the template freezes),
// the second makes the frozen change on an object that is no longer in
// scope. A scope guard refuses the first: an UPDATE after which the
// application's selector no longer selects an object it selected before.
//
// Every policy of a namespace in scope through application selectors gets
// one guard per application living there, after the template's own rules,
// over the template's kinds (what the template freezes is what must not be
// moved out of reach). So health and messages stay per template: the guard
// is part of each template's policy, and its message names the plan like
// any other. A /scale request needs no guard: a Scale cannot change labels.

// scopeGuardRule is the rule name of a namespace's only scope guard; with
// several applications in the namespace they are scope-guard-1,
// scope-guard-2, ... in the order of the applications' names.
const scopeGuardRule = "scope-guard"

// scopeGuards returns the scope guards of a template's policy in a
// namespace: none when the whole namespace is in scope.
func scopeGuards(bt boundTemplate, ns nsScope) []RuleSpec {
	if ns.all || len(ns.apps) == 0 {
		return nil
	}
	kinds := templateKinds(bt)
	out := make([]RuleSpec, len(ns.apps))
	for i, a := range ns.apps {
		name := scopeGuardRule
		if len(ns.apps) > 1 {
			name = fmt.Sprintf("%s-%d", scopeGuardRule, i+1)
		}
		out[i] = RuleSpec{
			Name:        name,
			What:        "moving resources out of application " + a.name,
			Kinds:       kinds,
			Operations:  []Operation{OpUpdate},
			Condition:   LeavesApplication,
			Application: a.name,
		}
	}
	return out
}

// templateKinds is every kind a template's rules match, in catalog order.
func templateKinds(bt boundTemplate) []Kind {
	var out []Kind
	for _, k := range knownKinds {
		if slices.ContainsFunc(bt.rules, func(r RuleSpec) bool { return slices.Contains(r.Kinds, k) }) {
			out = append(out, k)
		}
	}
	for _, r := range bt.rules { // custom kinds (custom_kinds.go), in the rules' order
		for _, k := range r.Kinds {
			if !slices.Contains(knownKinds, k) && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// appSelector returns the selector of an application of the namespace.
func (ns nsScope) appSelector(app string) *metav1.LabelSelector {
	for _, a := range ns.apps {
		if a.name == app {
			return a.sel
		}
	}
	return nil
}

// guardMessageParts returns the text before and after the object of a
// scope guard's message, which reads, with "<kind> <name>" of the request
// between the two parts:
//
//	moving <kind> <name> out of application <app> is frozen by protection plan <plan> until ...
//	would be blocked by protection plan <plan>: moving <kind> <name> out of application <app>
//
// Each target writes the parts as literal text (never evaluated) around
// the request's kind and name.
func (c *compiled) guardMessageParts(app string) (prefix, suffix string) {
	before, after := "moving ", " out of application "+app
	if c.mode == plan.ModeEnforce {
		return before, enforceMessage(c.planName, after, c.until)
	}
	return auditMessage(c.planName, before), after
}
