package render

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// compiled is a plan checked and reduced to what every target and Explain
// need: the bound templates, the namespaces, the exclusions and the
// messages. Render and Explain both start from it, so they cannot disagree
// about the plan.
type compiled struct {
	planID   string
	planName string
	mode     plan.Mode
	until    string
	target   Target
	// compact is the compact layout: one policy per namespace.
	compact bool
	// parts are the parts of the compact policies, by scope key
	// (withParts).
	parts map[string]policyParts
	// templates are in the plan's order.
	templates []boundTemplate
	// namespaces are sorted by name.
	namespaces []nsScope
	// excludedKinds are sorted and distinct.
	excludedKinds []string
	// exempt are the requesters the plan never freezes
	// (spec.requesters.exclude); include, when it names anyone, the only
	// requesters it freezes. Exclusions win.
	exempt, include requesterSet
	// grants, in a clocked render, are the break-glass grants in force,
	// each exempting its users within its instants (grants.go); without a
	// clock their users are in exempt.
	grants grantSet
	// now is Input.Now.
	now time.Time
	// clock, in a clocked render (Input.Clock on a target with a clock),
	// are the intervals the policies refuse in; nil otherwise.
	clock []window.Interval
	// served are the custom kinds the cluster serves (Input.Kinds).
	served plan.ServedKinds
	// edge is the plan's executor exemption, nil when there is none.
	edge *edgeExemption
	// warn are the plan's advance warnings, nil when it warns of nothing
	// (warnings.go).
	warn *warnCompiled
}

// kindIdentifier is what an excluded kind must look like: an identifier
// (no slash, dot or wildcard can reach Kyverno's kind matching).
var kindIdentifier = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

// compile checks the input and reduces it. Every problem is reported at
// once, as a *plan.ValidationError (400) naming the field; a template rule
// with a condition outside the closed set is an *UnknownConditionError
// (500), reported first. Plan validation checks most of this already;
// Render checks again everything that reaches a policy, since it cannot
// know that validation ran.
func compile(in Input) (*compiled, error) {
	if in.Plan == nil {
		return nil, plan.NewValidationError(field.ErrorList{field.Required(field.NewPath("plan"), "a plan to render")})
	}
	target, err := resolveTarget(in.Target)
	if err != nil {
		return nil, err
	}
	p := in.Plan
	spec := field.NewPath("spec")
	c := &compiled{planID: p.Name, planName: p.Spec.Name, mode: p.Spec.Mode, target: target, compact: in.Compact, served: in.Kinds}
	if strings.TrimSpace(c.planName) == "" {
		c.planName = p.Name
	}
	errs := checkPlanID(p.Name, field.NewPath("metadata", "name"))
	if p.Spec.Mode != plan.ModeAudit && p.Spec.Mode != plan.ModeEnforce {
		errs = append(errs, field.NotSupported(spec.Child("mode"), p.Spec.Mode, []string{"audit", "enforce"}))
	}
	var e field.ErrorList
	c.until, e = untilText(p.Spec.Window, in.Now, spec.Child("window"), in.WindowOptions)
	errs = append(errs, e...)
	if in.clocked() {
		c.clock = clockIntervals(p.Spec.Window, in.Now, in.WindowOptions)
		if u, ok := clockUntil(p.Spec.Window, c.clock); ok {
			c.until = u
		}
	}
	c.warn = compileWarnings(in)
	c.templates, e = bindTemplates(p.Spec.Templates, p.Spec.Scope.Type(), in.Kinds, spec.Child("templates"))
	errs = append(errs, e...)
	c.namespaces, e = resolveScope(in)
	errs = append(errs, e...)
	c.edge, e = compileEdge(in, p)
	errs = append(errs, e...)
	c.excludedKinds, e = excludedKinds(p.Spec.Exclusions.Kinds, spec.Child("exclusions", "kinds"))
	errs = append(errs, e...)
	// Requester names reach policies as Kyverno subjects and CEL string
	// literals: checked as plan validation checks them (no wildcard, no
	// template delimiters, no control characters).
	errs = append(errs, plan.ValidateRequesters(p.Spec.Requesters, spec.Child("requesters"))...)
	c.exempt = newRequesterSet(p.Spec.Requesters.ExcludeSet())
	c.grants, c.exempt, e = compileGrants(in, c.exempt)
	errs = append(errs, e...)
	c.now = in.Now
	c.include = newRequesterSet(p.Spec.Requesters.IncludeSet())
	if target == TargetVAP { // the only target that writes members' names
		errs = append(errs, checkMembers(c.namespaces)...)
	}
	if err := checkConditions(c.templates, p.Spec.Templates, spec.Child("templates")); err != nil {
		return nil, err // the catalog's fault (500) before the plan's (400)
	}
	if err := plan.NewValidationError(errs); err != nil {
		return nil, err
	}
	return c, nil
}

// checkPlanID checks the plan ID: it goes into a label value and into
// policy names.
func checkPlanID(id string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if id == "" {
		return field.ErrorList{field.Required(fld, "the plan ID (metadata.name) names and labels its policies")}
	}
	for _, msg := range validation.IsDNS1123Subdomain(id) {
		errs = append(errs, field.Invalid(fld, id, msg))
	}
	if len(id) > validation.LabelValueMaxLength {
		errs = append(errs, field.TooLong(fld, id, validation.LabelValueMaxLength))
	}
	return errs
}

// bindTemplates looks up every template of the plan and binds its
// parameters.
func bindTemplates(refs []plan.TemplateRef, scope plan.ScopeType, served plan.ServedKinds, fld *field.Path) ([]boundTemplate, field.ErrorList) {
	var (
		out  []boundTemplate
		errs field.ErrorList
	)
	if len(refs) == 0 {
		return nil, field.ErrorList{field.Required(fld, "choose at least one template from the catalog")}
	}
	for i, ref := range refs {
		p := fld.Index(i)
		t, ok := Lookup(ref.Name)
		switch {
		case !ok:
			errs = append(errs, field.NotSupported(p.Child("name"), ref.Name, templateNames()))
			continue
		case slices.ContainsFunc(refs[:i], func(r plan.TemplateRef) bool { return r.Name == ref.Name }):
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, "is listed twice"))
			continue
		case scope != "" && !t.info.Supports(scope):
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, fmt.Sprintf("does not support a %s scope", scope)))
			continue
		}
		bt, e := bindTemplate(t, ref.Parameters, served, p)
		errs = append(errs, e...)
		out = append(out, bt)
	}
	return out, errs
}

func templateNames() []string {
	names := make([]string, len(catalog))
	for i, t := range catalog {
		names[i] = t.info.Name
	}
	return names
}

// excludedKinds checks the excluded kinds and returns them sorted and
// distinct.
func excludedKinds(kinds []string, fld *field.Path) ([]string, field.ErrorList) {
	var errs field.ErrorList
	for i, k := range kinds {
		if plan.IsCustomKindName(k) {
			continue // a custom kind (custom_kinds.go)
		}
		if e := checkKindName(k, fld.Index(i)); e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return slices.Compact(slices.Sorted(slices.Values(kinds))), nil
}

// checkKindName refuses a kind that is not an identifier.
func checkKindName(kind string, fld *field.Path) *field.Error {
	if !kindIdentifier.MatchString(kind) {
		return field.Invalid(fld, kind, "must be a kind such as ConfigMap (an upper-case letter, then letters and digits)")
	}
	return nil
}

// CompactTemplate is the template label (and Policy.Template) of a
// policy of the compact layout, which holds every template of the plan.
// No catalog template has this name.
const CompactTemplate = "compact"

// policyUnit is what one policy holds: its template label, the templates
// whose rules it has, and the rules, each template's scope guards after
// its rules, with the template each rule comes from (owners). Explain
// walks the same units, so the first failing rule or validation of a
// policy is the one Explain names.
type policyUnit struct {
	template  string
	templates []string
	rules     []RuleSpec
	owners    []string
	// record: the record policy of exempt requesters (recordUnit).
	record bool
	// warn: the warning policy (warnUnit).
	warn bool
}

// units are the policies of a namespace, in the plan's template order:
// one per template, or one for all of them in the compact layout, where a
// scope guard's name is prefixed with its template's (every template has
// its guards, and rule names are unique in a kyverno.io/v1 Policy; the
// catalog's own rule names are unique across templates, a test holds it).
func (c *compiled) units(ns nsScope) []policyUnit {
	if c.warn != nil && c.warn.only {
		return nil // not active yet: only the warning policy is in place
	}
	if c.compact {
		return []policyUnit{c.compactUnit(ns, CompactTemplate)}
	}
	out := make([]policyUnit, len(c.templates))
	for i, bt := range c.templates {
		out[i] = templateUnit(bt, ns)
	}
	return out
}

// templateUnit is the policy of one template in a namespace, as the
// standard layout renders it.
func templateUnit(bt boundTemplate, ns nsScope) policyUnit {
	rules := policyRules(bt, ns)
	owners := make([]string, len(rules))
	for j := range owners {
		owners[j] = bt.name
	}
	return policyUnit{template: bt.name, templates: []string{bt.name}, rules: rules, owners: owners}
}

// compactUnit holds every template's rules and scope guards, in the
// plan's order, a scope guard's name prefixed with its template's.
func (c *compiled) compactUnit(ns nsScope, template string) policyUnit {
	u := policyUnit{template: template}
	for _, bt := range c.templates {
		u.templates = append(u.templates, bt.name)
		for _, r := range policyRules(bt, ns) {
			if r.Condition == LeavesApplication {
				r.Name = compactRuleName(bt.name, r)
			}
			u.rules = append(u.rules, r)
			u.owners = append(u.owners, bt.name)
		}
	}
	return u
}

// compactRuleName is the name of a template's rule in a policy holding
// every template: a scope guard's is prefixed with its template's.
func compactRuleName(template string, r RuleSpec) string {
	if r.Condition == LeavesApplication {
		return template + "-" + r.Name
	}
	return r.Name
}

// allUnits are the policies of a namespace: units, then, when the plan
// exempts requesters, the record policy (recordUnit).
func (c *compiled) allUnits(ns nsScope) []policyUnit {
	us := c.units(ns)
	if !c.exempt.empty() || len(c.grants) > 0 {
		us = append(us, c.recordUnit(ns))
	}
	if c.warn != nil {
		us = append(us, c.warnUnit(ns))
	}
	return us
}

// recordUnit is the policy that records the writes of exempt requesters
// in a namespace: every template's rules as in the compact layout,
// matching only exempt requesters (and, with include, included ones), in
// audit mode, with a message naming the requester. The rules decide as
// the plan's own do, so it records exactly the writes the exemptions
// admit.
func (c *compiled) recordUnit(ns nsScope) policyUnit {
	u := c.compactUnit(ns, ExemptTemplate)
	u.record = true
	return u
}

// modeOf is the mode of a unit's policy: the plan's, or audit for the
// record policy.
func (c *compiled) modeOf(u policyUnit) plan.Mode {
	switch {
	case u.record:
		return plan.ModeAudit
	case u.warn:
		return modeWarn
	}
	return c.mode
}

// policyRules are a template's rules and scope guards for a namespace.
func policyRules(bt boundTemplate, ns nsScope) []RuleSpec {
	return append(slices.Clone(bt.rules), scopeGuards(bt, ns)...)
}

// eachPolicy makes every policy of the plan, namespace by namespace and
// unit by unit: the units and, with spec, each unit's spec are built once
// per scope key (namespaces with the same key share them: a plan over
// 2,000 namespaces builds nine specs, not 18,000), and policy wraps a spec
// in the namespace's objects.
func (c *compiled) eachPolicy(spec func(u policyUnit, ns nsScope) (*specProto, error),
	policy func(u policyUnit, ns nsScope, proto *specProto) (Policy, error)) ([]Policy, error) {
	protos := map[string]*specProto{}
	units := map[string][]policyUnit{}
	out := make([]Policy, 0, len(c.templates)*len(c.namespaces))
	for _, ns := range c.namespaces {
		us, ok := units[ns.key]
		if !ok {
			us = c.allUnits(ns)
			units[ns.key] = us
		}
		for _, u := range us {
			key := u.template + "\x00" + ns.key
			proto := protos[key]
			if proto == nil {
				var err error
				if proto, err = spec(u, ns); err != nil {
					return nil, err
				}
				protos[key] = proto
			}
			p, err := policy(u, ns, proto)
			if err != nil {
				return nil, err
			}
			if u.template == CompactTemplate {
				// per-template hashes and parts (compact_parts.go)
				if p, err = c.withParts(p, ns, protos, spec); err != nil {
					return nil, err
				}
			}
			out = append(out, p)
		}
	}
	return out, nil
}
