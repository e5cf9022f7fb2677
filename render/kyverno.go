package render

import (
	"encoding/base64"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// kyvernoTarget renders kyverno.io/v1 Policy objects: one per template and
// namespace (in the compact layout, one per namespace holding every
// template's rules), with one or more rules per rule spec (see kyvernoRules), the
// plan's mode as spec.validationFailureAction, admission only
// (background: false), and Kyverno's pod-controller autogen switched off
// (see AnnotationKyvernoAutogen).
type kyvernoTarget struct{}

var _ translator = kyvernoTarget{}

func (kyvernoTarget) policies(c *compiled) ([]Policy, error) {
	messages := kyvernoMessages(c)
	ps, err := c.eachPolicy(
		func(u policyUnit, ns nsScope) (*specProto, error) { return kyvernoSpec(c, u, ns, messages) },
		func(u policyUnit, ns nsScope, proto *specProto) (Policy, error) {
			return kyvernoPolicy(c, u, c.policyNameIn(u.template, ns), ns.name, proto)
		})
	if err != nil || len(c.nsSelectors()) == 0 {
		return ps, err
	}
	guard, err := kyvernoNamespaceLabels(c)
	if err != nil {
		return nil, err
	}
	return append(ps, guard), nil
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

// kyvernoMessage wraps a message for a kyverno.io/v1 rule. Kyverno treats
// messages as templates, recursively: any "{{ }}" or "$( )" in them is
// evaluated, and text substituted into them is evaluated again. The only
// form that reproduces arbitrary text exactly is the text's base64, decoded
// by Kyverno's base64_decode inside one shallow ("{{- ") substitution that
// makes up the whole message: Kyverno then returns the decoded string as
// is, without looking into it. Nothing of the plan's text is left for
// Kyverno to read.
func kyvernoMessage(text string) string {
	return "{{- base64_decode('" + base64.StdEncoding.EncodeToString([]byte(text)) + "') }}"
}

// kyvernoGuardMessage writes a scope guard's message for a kyverno.io/v1
// rule: the request's kind and name between two literal parts. It is one
// shallow substitution making up the whole message, like kyvernoMessage:
// a JMESPath join of the two parts (base64, decoded) and of the request's
// kind and name, which Kyverno returns as is. Kinds and names are
// Kubernetes identifiers, and are not read again either.
func kyvernoGuardMessage(prefix, suffix string) string {
	enc := base64.StdEncoding.EncodeToString
	return "{{- join('', [base64_decode('" + enc([]byte(prefix)) + "'), request.kind.kind, ' ', request.name, base64_decode('" +
		enc([]byte(suffix)) + "')]) }}"
}

// kyvernoRecordMessage writes the message of a write an exemption
// admitted: the literal parts (base64, decoded) around the base64 of the
// requester's user name (base64_encode), in one shallow substitution as
// kyvernoGuardMessage. The name comes from the request at run time and is
// text like any other: Kyverno would evaluate a "{{ }}" in it if it were
// substituted as is; its base64 holds nothing Kyverno reads.
func kyvernoRecordMessage(suffix string) string {
	enc := base64.StdEncoding.EncodeToString
	return "{{- join('', [base64_decode('" + enc([]byte(recordPrefix+recordBase64)) +
		"'), base64_encode(request.userInfo.username || ''), base64_decode('" + enc([]byte(suffix)) + "')]) }}"
}

// kyvernoSpec renders the spec of a policy for a namespace. The plan's
// exempt requesters are excluded from every rule; with include, every
// rule matches only the included requesters. The record policy
// (policyUnit.record) instead matches only exempt requesters (and
// included ones: a match.all of the two), in audit mode, with the record
// message.
func kyvernoSpec(c *compiled, u policyUnit, ns nsScope, messages map[string]string) (*specProto, error) {
	exempt := c.exempt
	if u.record {
		exempt = requesterSet{}
	}
	exclude := kyvernoExclude(c.excludedKinds, ns, exempt, c.hasScale)
	if u.warn {
		return kyvernoWarnSpec(c, u, ns, exclude)
	}
	spec := kySpec{
		Admission:               true,
		Background:              false,
		EmitWarning:             false,
		ValidationFailureAction: kyvernoAction(c.modeOf(u)),
	}
	for i, r := range u.rules {
		var rules []kyRule
		switch {
		case u.record:
			msg := kyvernoRecordMessage(c.recordSuffix(r.What))
			var err error
			if r.Condition == LeavesApplication {
				var guard kyRule
				guard, err = kyvernoGuard(r, ns, msg, exclude)
				rules = []kyRule{guard}
			} else {
				rules, err = kyvernoRules(r, ns, msg, exclude)
			}
			if err != nil {
				return nil, err
			}
		case r.Condition == LeavesApplication:
			prefix, suffix := c.guardMessageParts(r.Application)
			guard, err := kyvernoGuard(r, ns, kyvernoGuardMessage(prefix, suffix), exclude)
			if err != nil {
				return nil, err
			}
			rules = []kyRule{guard}
		default:
			var err error
			if rules, err = kyvernoRules(r, ns, messages[u.owners[i]+"/"+r.Name], exclude); err != nil {
				return nil, err
			}
		}
		for j := range rules {
			if err := c.kyvernoRequesters(&rules[j], u.record); err != nil {
				return nil, err
			}
			c.edge.kyvernoPrecondition(&rules[j])
			c.grants.kyvernoPrecondition(&rules[j], u.record, c.exempt)
		}
		spec.Rules = append(spec.Rules, rules...)
	}
	if c.clock != nil {
		addKyvernoClock(&spec, c.clock)
	}
	if ns.nsSelector != nil {
		kyvernoSelectNamespaces(spec.Rules, ns.nsSelector)
	}
	return newSpecProto(spec)
}

// kyvernoRequesters narrows a rule's match by requester: to the included
// requesters (subjects in its filter), and in the record policy to the
// exempt requesters too (a match.all of two filters on the same
// resources: included and exempt).
func (c *compiled) kyvernoRequesters(rule *kyRule, record bool) error {
	include := c.include.kyvernoSubjects()
	if !record && len(include) == 0 {
		return nil
	}
	if len(rule.Match.Any) != 1 || len(rule.Match.All) > 0 {
		return fmt.Errorf("render: rule %s: a match of one filter expected, to narrow by requester", rule.Name)
	}
	f := rule.Match.Any[0]
	switch {
	case !record:
		rule.Match.Any[0].Subjects = include
	case len(include) == 0:
		rule.Match.Any[0].Subjects = c.recordSubjects()
	default:
		rule.Match = kyMatch{All: []kyFilter{
			{Resources: f.Resources, Subjects: include},
			{Resources: f.Resources, Subjects: c.recordSubjects()},
		}}
	}
	return nil
}

// recordSubjects are the subjects the record policy matches: the exempt
// requesters and, on a clocked render, the granted users (recorded only
// within their grant: grantSet.kyvernoPrecondition).
func (c *compiled) recordSubjects() []kySubject {
	return append(c.exempt.kyvernoSubjects(), c.grants.kyvernoSubjects()...)
}

// kyvernoPolicy makes the object of one namespace from a shared spec.
// An empty namespace makes a ClusterPolicy (a namespaceSelectors scope).
func kyvernoPolicy(c *compiled, u policyUnit, name, namespace string, proto *specProto) (Policy, error) {
	annotations := map[string]string{AnnotationKyvernoAutogen: "none"}
	kind := kyvernoKind
	if namespace == "" {
		kind = kyvernoClusterKind
	}
	obj, hash, err := renderedObject(c, kyvernoAPIVersion, kind, u.template, name, namespace, annotations, proto)
	if err != nil {
		return Policy{}, err
	}
	return Policy{
		Target: TargetKyverno, Template: u.template, Templates: u.templates, Namespace: namespace, Name: name,
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
	return []schema.GroupVersionKind{
		{Group: "kyverno.io", Version: "v1", Kind: kyvernoKind},
		{Group: "kyverno.io", Version: "v1", Kind: kyvernoClusterKind},
	}
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
		requester:       func(u string) string { return recordBase64 + base64.StdEncoding.EncodeToString([]byte(u)) },
	}
}

// frozenNamespace: the policy lives in the namespace it freezes; a
// ClusterPolicy (a namespaceSelectors scope) freezes no one namespace: "".
func (kyvernoTarget) frozenNamespace(obj *unstructured.Unstructured) (string, bool) {
	return obj.GetNamespace(), true
}
