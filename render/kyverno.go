package render

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// kyvernoTarget renders kyverno.io/v1 Policy objects: one per template and
// namespace, with one or more rules per rule spec (see kyvernoRules), the
// plan's mode as spec.validationFailureAction, admission only
// (background: false), and Kyverno's pod-controller autogen switched off
// (see AnnotationKyvernoAutogen).
type kyvernoTarget struct{}

var _ translator = kyvernoTarget{}

func (kyvernoTarget) policies(c *compiled) ([]Policy, error) {
	protos := map[string]*specProto{}
	messages := kyvernoMessages(c)
	out := make([]Policy, 0, len(c.templates)*len(c.namespaces))
	for _, bt := range c.templates {
		name := PolicyName(c.planID, bt.name)
		for _, ns := range c.namespaces {
			key := bt.name + "\x00" + ns.key
			proto := protos[key]
			if proto == nil {
				var err error
				if proto, err = kyvernoSpec(c, bt, ns, messages); err != nil {
					return nil, err
				}
				protos[key] = proto
			}
			p, err := kyvernoPolicy(c, bt.name, name, ns.name, proto)
			if err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// kyvernoMessages wraps every rule's message once.
func kyvernoMessages(c *compiled) map[string]string {
	out := map[string]string{}
	for _, bt := range c.templates {
		for _, r := range bt.rules {
			out[bt.name+"/"+r.Name] = kyvernoMessage(c.message(r.What))
		}
	}
	return out
}

// kyvernoSpec renders the spec of a template's policy for a namespace.
func kyvernoSpec(c *compiled, bt boundTemplate, ns nsScope, messages map[string]string) (*specProto, error) {
	exclude := kyvernoExclude(c.excludedKinds, ns)
	spec := kySpec{
		Admission:               true,
		Background:              false,
		EmitWarning:             false,
		ValidationFailureAction: kyvernoAction(c.mode),
	}
	for _, r := range bt.rules {
		spec.Rules = append(spec.Rules, kyvernoRules(r, ns, messages[bt.name+"/"+r.Name], exclude)...)
	}
	for _, g := range scopeGuards(bt, ns) {
		prefix, suffix := c.guardMessageParts(g.Application)
		spec.Rules = append(spec.Rules, kyvernoGuard(g, ns, kyvernoGuardMessage(prefix, suffix), exclude))
	}
	return newSpecProto(spec)
}

// kyvernoPolicy makes the object of one namespace from a shared spec.
func kyvernoPolicy(c *compiled, template, name, namespace string, proto *specProto) (Policy, error) {
	annotations := map[string]string{AnnotationKyvernoAutogen: "none"}
	obj, hash, err := renderedObject(c, kyvernoAPIVersion, kyvernoKind, template, name, namespace, annotations, proto)
	if err != nil {
		return Policy{}, err
	}
	return Policy{
		Target: TargetKyverno, Template: template, Namespace: namespace, Name: name,
		Hash: hash, Objects: []*unstructured.Unstructured{obj},
	}, nil
}

// kyvernoAction spells a mode as Kyverno's validationFailureAction.
func kyvernoAction(m plan.Mode) string {
	if m == plan.ModeEnforce {
		return "Enforce"
	}
	return "Audit"
}

func (kyvernoTarget) kinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{{Group: "kyverno.io", Version: "v1", Kind: kyvernoKind}}
}

// failureAction reads spec.validationFailureAction. Kyverno 1.19 still
// honours it (and its deprecated lower-case spellings); missing means
// Audit, the CRD default. A rule-level validate.failureAction would
// override it for that rule; Render never writes one, so a live policy
// that has one no longer hashes like its render and health sees it as
// outdated.
func (kyvernoTarget) failureAction(obj *unstructured.Unstructured) (plan.Mode, error) {
	v, _, err := unstructured.NestedString(obj.Object, "spec", "validationFailureAction")
	if err != nil {
		return "", fmt.Errorf("render: %s/%s: %w", obj.GetNamespace(), obj.GetName(), err)
	}
	switch strings.ToLower(v) {
	case "enforce":
		return plan.ModeEnforce, nil
	case "audit", "":
		return plan.ModeAudit, nil
	}
	return "", fmt.Errorf("render: %s/%s: unknown validationFailureAction %q", obj.GetNamespace(), obj.GetName(), v)
}

func (kyvernoTarget) setFailureAction(obj *unstructured.Unstructured, m plan.Mode) error {
	return unstructured.SetNestedField(obj.Object, kyvernoAction(m), "spec", "validationFailureAction")
}

func (kyvernoTarget) traits() explainTraits {
	return explainTraits{
		policyName:      func(planID, template, _ string) string { return PolicyName(planID, template) },
		describe:        func(ns, name string) string { return "policy " + ns + "/" + name },
		splitScaleRules: true,
		text:            func(s string) string { return s },
	}
}
