package render

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
)

// UserInfo is who makes a request, as the API server authenticated it.
type UserInfo struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups,omitempty"`
	// Extra is the user-info extra (e.g. EdgeExtraKey, sent by an
	// impersonating operator).
	Extra map[string][]string `json:"extra,omitempty"`
}

// Request is an admission request, reduced to what the rules read.
type Request struct {
	// Operation is CREATE, UPDATE or DELETE.
	Operation Operation `json:"operation"`
	// Kind is the kind of the resource; for a subresource, the kind of its
	// parent (a kubectl scale of a Deployment is apps/v1 Deployment with
	// Subresource "scale"), as Kyverno sees it.
	Kind schema.GroupVersionKind `json:"kind"`
	// Subresource is "" for the resource itself, or e.g. "scale",
	// "status", "ephemeralcontainers".
	Subresource string `json:"subresource,omitempty"`
	// Namespace and Name identify the object (for a subresource, its
	// parent). Name defaults to the objects' metadata.name.
	Namespace string `json:"namespace"`
	Name      string `json:"name,omitempty"`
	// Labels are matched against application selectors when the objects
	// carry none to read: for /scale, the labels of the parent (a Scale has
	// none), and for any request given without objects. Otherwise the
	// labels of Object and OldObject are used.
	Labels map[string]string `json:"labels,omitempty"`
	// NamespaceLabels are the labels of the request's namespace, which a
	// namespaceSelectors scope selects by (its kubernetes.io/metadata.name
	// is Namespace whatever they say).
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	// Object is the new object (nil on DELETE); OldObject the old one (nil
	// on CREATE). For /scale they are autoscaling/v1 Scale objects.
	Object    map[string]any `json:"object,omitempty"`
	OldObject map[string]any `json:"oldObject,omitempty"`
	// UserInfo is the requester.
	UserInfo UserInfo `json:"userInfo"`
	// FieldManager is the request's options.fieldManager (an apply's).
	FieldManager string `json:"fieldManager,omitempty"`
}

// Decision is what the plan's policies do with a request.
type Decision struct {
	// Blocked is true when an enforcing policy refuses the request.
	Blocked bool `json:"blocked"`
	// Audited is true when an auditing policy admits it and records a
	// violation (it would be blocked in enforce mode).
	Audited bool `json:"audited"`
	// Exempt is true when the plan would refuse or record the request but
	// its requester is exempt (spec.requesters.exclude): it is admitted,
	// and recorded as a write an exemption admitted by the namespace's
	// record policy (ExemptTemplate), which Policy, Rule and Message
	// name; Template is the template whose rule would have applied.
	Exempt bool `json:"exempt,omitempty"`
	// Template, Rule, Namespace and Policy name the rule that applies (the
	// first in the plan's template order, a template's scope guards after
	// its rules), as rendered for the input's target: Policy is the name of
	// the policy object (for vap, the ValidatingAdmissionPolicy), Rule the
	// rule's name (for the CEL targets, the name of the RuleSpec whose
	// validation it is: Kyverno and the API server report no rule names).
	// Empty when no rule applies.
	Template  string `json:"template,omitempty"`
	Rule      string `json:"rule,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Policy    string `json:"policy,omitempty"`
	// ClusterPolicy is set when Policy is cluster-wide (the ClusterPolicy
	// or ValidatingPolicy of a namespaceSelectors scope): Namespace is
	// then the request's, not the policy's.
	ClusterPolicy bool `json:"clusterPolicy,omitempty"`
	// Message is the rule's message, as the requester or the violation
	// reads it.
	Message string `json:"message,omitempty"`
	// Reason says why, for people: which rule applies, or why none does.
	Reason string `json:"reason"`
}

// Explain says whether the plan's policies refuse or record a request. It is
// the reference semantics of the rendered policies, computed from the same
// rule specs: the CLI's explain, and the end-to-end differential check
// (real Kyverno must agree on every case). Like Render, it sees a plan
// whose phase is not active as having no policies, and returns the same
// errors for an input it cannot render (an *UnknownConditionError
// whatever the request).
func Explain(in Input, req Request) (Decision, error) {
	if _, err := resolveTarget(in.Target); err != nil {
		return Decision{}, err
	}
	if !Armed(in) {
		phase := plan.Phase("")
		if in.Plan != nil {
			phase = in.Plan.Status.Phase
		}
		return Decision{Reason: fmt.Sprintf("the plan is not active (phase %q): it deploys no policies", phase)}, nil
	}
	c, err := compile(in)
	if err != nil {
		return Decision{}, err
	}
	if c.clock != nil && !inIntervals(c.clock, in.Now) {
		return Decision{Reason: "the plan's policies are in place but refuse nothing before its window's start or after its end (they read the clock)"}, nil
	}
	return c.explain(req.normalized())
}

// normalized fills Name from the objects.
func (r Request) normalized() Request {
	if r.Name == "" {
		for _, o := range []map[string]any{r.Object, r.OldObject} {
			if n, ok := lookup(o, "metadata", "name").(string); ok && n != "" {
				r.Name = n
				break
			}
		}
	}
	return r
}

// stage is how far a request got through one rule: match by kind and
// operation, the exemptions, the included requesters, the exclusions, the
// application selectors, the condition. (A plan's exempt requesters go as
// far as the others: their writes are recorded where the rule applies.)
type stage int

const (
	stageNoMatch stage = iota
	stageExempt
	stageNotIncluded
	stageExcluded
	stageNotSelected
	stageUnchanged
	stageApplies
)

// outcome is a stage and its reason.
type outcome struct {
	stage  stage
	reason string
	rule   string
	// exempt names the plan's exemption that covers the requester
	// (requesterSet.which), "" for none.
	exempt string
}

func (c *compiled) explain(req Request) (Decision, error) {
	if d, ok := c.explainRelabel(req); ok {
		return d, nil
	}
	ns, ok := c.scopeOf(req)
	if !ok {
		return Decision{Reason: fmt.Sprintf("namespace %q is not in the plan's scope", req.Namespace)}, nil
	}
	best := outcome{reason: fmt.Sprintf("no template of the plan freezes %s", describeRequest(req))}
	var unchanged []string
	for _, u := range c.units(ns) {
		for i, r := range u.rules {
			o, err := c.evaluate(r, ns, req)
			if err != nil {
				return Decision{}, err
			}
			switch {
			case o.stage == stageApplies && o.exempt != "":
				return c.recordDecision(u.owners[i], r, o, ns, req), nil
			case o.stage == stageApplies:
				return c.decision(u, u.owners[i], r, o, ns, req), nil
			case o.stage == stageUnchanged && !slices.Contains(unchanged, r.What):
				unchanged = append(unchanged, r.What)
			}
			if o.stage > best.stage {
				best = o
			}
		}
	}
	if best.stage == stageUnchanged {
		best.reason = fmt.Sprintf("%s is not %s", describeRequest(req), orList(unchanged))
	}
	return Decision{Reason: best.reason}, nil
}

// orList joins "a", "b" and "c" as "a, b or c".
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func (c *compiled) decision(u policyUnit, template string, r RuleSpec, o outcome, ns nsScope, req Request) Decision {
	tr := translators[c.target].traits()
	name, ref := c.explainedPolicy(tr, u.template, ns)
	msg := c.message(r.What)
	if r.Condition == LeavesApplication {
		prefix, suffix := c.guardMessageParts(r.Application)
		msg = prefix + req.Kind.Kind + " " + req.Name + suffix
	}
	d := Decision{
		Template: template, Rule: o.rule, Namespace: ns.name,
		Policy: name, ClusterPolicy: ns.nsSelector != nil, Message: tr.text(msg),
	}
	if c.mode == plan.ModeEnforce {
		d.Blocked = true
		d.Reason = fmt.Sprintf("refused by rule %s of %s", o.rule, ref)
	} else {
		d.Audited = true
		d.Reason = fmt.Sprintf("admitted and recorded by rule %s of %s (audit mode)", o.rule, ref)
	}
	return d
}

// recordDecision is the decision on a write the plan's exemptions admit:
// the record policy's rule (named as in the compact layout) records it.
func (c *compiled) recordDecision(template string, r RuleSpec, o outcome, ns nsScope, req Request) Decision {
	tr := translators[c.target].traits()
	name, ref := c.explainedPolicy(tr, ExemptTemplate, ns)
	rule := o.rule
	if r.Condition == LeavesApplication && !c.compact {
		rule = compactRuleName(template, r)
	}
	return Decision{
		Exempt: true, Template: template, Rule: rule, Namespace: ns.name, Policy: name, ClusterPolicy: ns.nsSelector != nil,
		Message: tr.text(recordPrefix) + tr.requester(req.UserInfo.Username) + tr.text(c.recordSuffix(r.What)),
		Reason: fmt.Sprintf("admitted: %s is exempt from the plan (%s); recorded by rule %s of %s",
			req.UserInfo.Username, o.exempt, rule, ref),
	}
}

// evaluate runs one rule on a request, in Kyverno's order: match, exclude,
// preconditions (the application selectors), deny conditions (the
// condition). A scope guard goes the same way: an object the application
// never held is "not selected"; one that stays in it is "unchanged" (the
// guard's What says what it would have caught).
func (c *compiled) evaluate(r RuleSpec, ns nsScope, req Request) (outcome, error) {
	tr := translators[c.target].traits()
	ruleName, scale, ok := ruleFor(r, ns, req, tr.splitScaleRules)
	if !ok {
		return outcome{stage: stageNoMatch}, nil
	}
	if e, ok := exemptionFor(req.UserInfo); ok {
		return outcome{stage: stageExempt, reason: fmt.Sprintf("%s is exempt (%s): Kubernetes' own control plane is never frozen", req.UserInfo.Username, e.Why)}, nil
	}
	if c.edge.admits(req, kindResource(req.Kind.Kind)) {
		return outcome{stage: stageExempt, reason: fmt.Sprintf("%s writes the plan's own edge actions (user-info extra %s naming the plan, field manager %s)", req.UserInfo.Username, EdgeExtraKey, edge.DefaultFieldManager)}, nil
	}
	if !c.include.empty() && !c.include.matches(req.UserInfo) {
		return outcome{stage: stageNotIncluded, reason: fmt.Sprintf("%s is not among the requesters the plan is limited to (spec.requesters.include)", req.UserInfo.Username)}, nil
	}
	if c.excludesKind(req.Kind) {
		return outcome{stage: stageExcluded, reason: fmt.Sprintf("kind %s is excluded from the plan", req.Kind.Kind)}, nil
	}
	if slices.ContainsFunc(ns.excluded, func(x plan.ResourceRef) bool { return x.Kind == req.Kind.Kind && x.Name == req.Name }) {
		return outcome{stage: stageExcluded, reason: fmt.Sprintf("%s %s/%s is excluded from the plan", req.Kind.Kind, ns.name, req.Name)}, nil
	}
	if !inScope(r, ns, req, scale, tr.scaleByMembers) {
		return outcome{stage: stageNotSelected, reason: fmt.Sprintf("%s %s/%s belongs to none of the plan's applications", req.Kind.Kind, ns.name, req.Name)}, nil
	}
	holds, err := conditionHolds(r, ns, req)
	if err != nil {
		return outcome{}, err
	}
	if !holds {
		return outcome{stage: stageUnchanged}, nil
	}
	exempt := c.exempt.which(req.UserInfo)
	if exempt == "" {
		exempt = c.grants.which(req.UserInfo, c.now)
	}
	return outcome{stage: stageApplies, rule: ruleName, exempt: exempt}, nil
}

// inScope mirrors the application-selector tests of a rule: selected; for
// a scope guard, its application's selector on the old object (the
// kyverno guard's precondition, celScope).
func inScope(r RuleSpec, ns nsScope, req Request, scale, byMembers bool) bool {
	if r.Condition == LeavesApplication {
		sel := ns.appSelector(r.Application)
		oldLabels, _ := objectLabels(req)
		return sel != nil && selectorMatchesOne(sel, oldLabels)
	}
	return selected(r, ns, req, scale, byMembers)
}

// objectLabels returns the labels of the old and new objects, or the
// request's Labels for both when it carries neither object.
func objectLabels(req Request) (oldLabels, newLabels map[string]string) {
	if req.Object == nil && req.OldObject == nil {
		return req.Labels, req.Labels
	}
	return labelsOf(req.OldObject), labelsOf(req.Object)
}

// ruleFor reports whether the rule, as rendered for the namespace, matches
// the request's kind, subresource and operation, and under which rule name.
func ruleFor(r RuleSpec, ns nsScope, req Request, splitScale bool) (name string, scale bool, ok bool) {
	if !r.hasOp(req.Operation) {
		return "", false, false
	}
	switch req.Subresource {
	case "":
		return r.Name, false, slices.ContainsFunc(r.Kinds, func(k Kind) bool { return k.matchesGVK(req.Kind) })
	case "ephemeralcontainers":
		// Kyverno lets a rule on Pod match pods/ephemeralcontainers too.
		return r.Name, false, slices.Contains(r.Kinds, KindPod) && KindPod.matchesGVK(req.Kind)
	case SubresourceScale:
		if req.Operation != OpUpdate {
			return "", false, false
		}
		for _, k := range r.scalableKinds() {
			if k.matchesGVK(req.Kind) {
				if ns.all || !splitScale {
					return r.Name, true, true
				}
				return scaleRuleName(r, k), true, true
			}
		}
	}
	return "", false, false
}

// selected mirrors the application-selector preconditions (see
// objectSelectorJMESPath): for /scale, the parent's labels, or for a
// target that cannot read the parent (vap) the applications' members by
// name; otherwise the new object's labels on CREATE, the old one's on
// DELETE, either on UPDATE.
func selected(r RuleSpec, ns nsScope, req Request, scale, byMembers bool) bool {
	if ns.all {
		return true
	}
	if scale && byMembers {
		return slices.Contains(ns.members[req.Kind.Kind], req.Name)
	}
	if scale {
		return selectorMatches(ns.selectors, req.Labels)
	}
	oldLabels, newLabels := objectLabels(req)
	switch req.Operation {
	case OpCreate:
		return selectorMatches(ns.selectors, newLabels)
	case OpDelete:
		return selectorMatches(ns.selectors, oldLabels)
	}
	return selectorMatches(ns.selectors, oldLabels) || selectorMatches(ns.selectors, newLabels)
}

func describeRequest(req Request) string {
	s := fmt.Sprintf("%s of %s %s/%s", req.Operation, req.Kind.Kind, req.Namespace, req.Name)
	if req.Subresource != "" {
		s += " (" + req.Subresource + ")"
	}
	return s
}
