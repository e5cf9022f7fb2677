package policytest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// Decision is what a request's policies do with it, strongest first.
type Decision string

const (
	// Blocked: an enforcing policy refuses the request.
	Blocked Decision = "blocked"
	// Audited: an auditing policy admits it and records a violation.
	Audited Decision = "audited"
	// Exempt: a plan would have refused or recorded it, but its
	// requester is exempt (spec.requesters); it is admitted and recorded
	// as such.
	Exempt Decision = "exempt"
	// Admitted: no rule of any plan applies.
	Admitted Decision = "admitted"
)

// Decisions are the decisions, strongest first.
func Decisions() []Decision { return []Decision{Blocked, Audited, Exempt, Admitted} }

// Layout is the policies' layout: one policy per template and namespace,
// or the compact one (render.Input.Compact).
type Layout string

const (
	PerTemplate Layout = "per-template"
	Compact     Layout = "compact"
)

// Suite is plans, what is known of their cluster, and cases.
type Suite struct {
	// Name names the suite in results (a file's name by default).
	Name string
	// File is the file the suite was loaded from (Load); "" for a suite
	// written in Go.
	File string
	// Plans are the plans, as written (they are previewed per case).
	Plans []*plan.ProtectionPlan
	// Cluster is what is known of the cluster: the namespaces that exist
	// and the applications an applications scope names. Nil skips the
	// checks that need it; a plan of applications then cannot run.
	Cluster *plantest.Cluster
	// Targets are the targets each case runs on; nil for every
	// supported target.
	Targets []render.Target
	// Layouts are the layouts each case runs in; nil for PerTemplate.
	Layouts []Layout
	// Pending treats a plan that requires approval as still waiting for
	// it (it blocks nothing); by default it is approved.
	Pending bool
	// Cases are the requests and what must happen to them.
	Cases []Case
}

// Case is one request at one instant and what must happen to it.
type Case struct {
	// Name is a sentence that says what the case proves; unique in its
	// suite.
	Name string
	// At is the instant of the request.
	At time.Time
	// Request is the request, as render.DecodeRequest reads it.
	Request render.Request
	// Targets restricts the case to these targets (of the suite's).
	Targets []render.Target
	// Expect is what must happen.
	Expect Expect
}

// Expect is what must happen to a case's request. Decision is required;
// the other fields check only when set.
type Expect struct {
	Decision Decision `json:"decision"`
	// Plan is the ID (metadata.name) of a plan that decides so.
	Plan string `json:"plan,omitempty"`
	// Template is the template whose rule applies in that plan.
	Template string `json:"template,omitempty"`
	// Message is an RE2 regular expression the rule's message matches
	// (unanchored: write ^...$ to match it whole).
	Message string `json:"message,omitempty"`
	// Warned says whether the requester reads an admission warning
	// (render.Decision.Warned).
	Warned *bool `json:"warned,omitempty"`
}

// Outcome is what the policies did with a request on one target: the
// request's Decision and each plan's.
type Outcome struct {
	Decision Decision `json:"decision"`
	// Warned says whether the requester of an admitted request reads an
	// admission warning (render.Decision.Warned of any plan); false for a
	// refused one.
	Warned bool `json:"warned"`
	// Plans are each plan's decision, in the suite's order.
	Plans []PlanDecision `json:"plans"`
}

// PlanDecision is one plan's decision of a request.
type PlanDecision struct {
	Plan  string     `json:"plan"`
	Phase plan.Phase `json:"phase"`
	render.Decision
}

// Check is one case on one target and layout.
type Check struct {
	Case    string        `json:"case"`
	Target  render.Target `json:"target"`
	Layout  Layout        `json:"layout"`
	At      time.Time     `json:"at"`
	Request string        `json:"request"`
	Expect  Expect        `json:"expect"`
	Got     Outcome       `json:"got"`
	// Failure says what differs from the expectation; "" when the check
	// passed.
	Failure string `json:"failure,omitempty"`
}

// Passed reports whether the check passed.
func (c Check) Passed() bool { return c.Failure == "" }

// Result is a suite's checks, case by case, then target by target.
type Result struct {
	Suite  string  `json:"suite"`
	File   string  `json:"file,omitempty"`
	Checks []Check `json:"checks"`
}

// Failed are the checks that failed.
func (r Result) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.Passed() {
			out = append(out, c)
		}
	}
	return out
}

// Cases counts the suite's cases that ran.
func (r Result) Cases() int {
	seen := map[string]bool{}
	for _, c := range r.Checks {
		seen[c.Case] = true
	}
	return len(seen)
}

// Validate checks the suite before it runs: names, decisions, regular
// expressions, targets and layouts. Its error is a *plan.ValidationError
// (400) with the fields' paths (cases[2].expect.message).
func (s Suite) Validate() error { return plan.NewValidationError(s.fieldErrors()) }

func (s Suite) fieldErrors() field.ErrorList {
	var errs field.ErrorList
	if len(s.Plans) == 0 {
		errs = append(errs, field.Required(field.NewPath("plans"), "name at least one plan"))
	}
	errs = append(errs, checkTargets(field.NewPath("targets"), s.Targets, nil)...)
	for i, l := range s.Layouts {
		if l != PerTemplate && l != Compact {
			errs = append(errs, field.NotSupported(field.NewPath("layouts").Index(i), l, []Layout{PerTemplate, Compact}))
		}
	}
	if len(s.Cases) == 0 {
		errs = append(errs, field.Required(field.NewPath("cases"), "write at least one case"))
	}
	names := map[string]int{}
	for i, c := range s.Cases {
		p := field.NewPath("cases").Index(i)
		switch prev, dup := names[c.Name]; {
		case strings.TrimSpace(c.Name) == "":
			errs = append(errs, field.Required(p.Child("name"), "a sentence that says what the case proves"))
		case dup:
			errs = append(errs, field.Duplicate(p.Child("name"), fmt.Sprintf("%s (as cases[%d])", c.Name, prev)))
		default:
			names[c.Name] = i
		}
		if c.At.IsZero() {
			errs = append(errs, field.Required(p.Child("at"), "the instant of the request"))
		}
		errs = append(errs, checkTargets(p.Child("targets"), c.Targets, s.Targets)...)
		errs = append(errs, c.Expect.validate(p.Child("expect"))...)
	}
	return errs
}

func checkTargets(p *field.Path, ts, of []render.Target) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		switch {
		case !render.Supported(t):
			errs = append(errs, field.NotSupported(p.Index(i), t, supported()))
		case of != nil && !slices.Contains(of, t):
			errs = append(errs, field.Invalid(p.Index(i), t, "is not one of the suite's targets"))
		}
	}
	return errs
}

func (e Expect) validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case e.Decision == "":
		errs = append(errs, field.Required(p.Child("decision"), "blocked, audited, exempt or admitted"))
	case !slices.Contains(Decisions(), e.Decision):
		errs = append(errs, field.NotSupported(p.Child("decision"), e.Decision, Decisions()))
	}
	if _, err := regexp.Compile(e.Message); err != nil {
		errs = append(errs, field.Invalid(p.Child("message"), e.Message, "is not a regular expression (RE2): "+err.Error()))
	}
	if e.Decision == Admitted && (e.Template != "" || e.Message != "") {
		errs = append(errs, field.Invalid(p.Child("decision"), e.Decision, "an admitted request has no template or message: leave them out, or expect another decision"))
	}
	return errs
}

func supported() []render.Target {
	var ts []render.Target
	for _, t := range render.Targets() {
		if render.Supported(t) {
			ts = append(ts, t)
		}
	}
	return ts
}

// Run runs every case on every target and layout. Its error is a suite
// that cannot run (Validate's error, a plan its preview refuses, a plan
// the renderer refuses); a case that fails is a failed Check, not an
// error.
func (s Suite) Run() (Result, error) {
	res := Result{Suite: s.Name, File: s.File}
	if err := s.Validate(); err != nil {
		return res, err
	}
	off := reconcile.Offline{User: "policytest", Approver: "policytest-approver"}
	if s.Cluster != nil {
		off.Cluster, off.Applications, off.Names = *s.Cluster, *s.Cluster, *s.Cluster
	}
	targets := s.Targets
	if targets == nil {
		targets = supported()
	}
	layouts := s.Layouts
	if layouts == nil {
		layouts = []Layout{PerTemplate}
	}
	for i, c := range s.Cases {
		previews := make([]reconcile.Preview, len(s.Plans))
		for j, p := range s.Plans {
			pv, err := off.Preview(p, c.At, s.Pending)
			if err != nil {
				return res, &RunError{Case: c.Name, Field: field.NewPath("cases").Index(i).String(), Plan: p.Name, Err: err}
			}
			previews[j] = pv
		}
		re := regexp.MustCompile(c.Expect.Message) // Validate compiled it
		for _, t := range targets {
			if c.Targets != nil && !slices.Contains(c.Targets, t) {
				continue
			}
			for _, l := range layouts {
				got, err := outcome(previews, t, l, c.Request)
				if err != nil {
					return res, &RunError{Case: c.Name, Field: field.NewPath("cases").Index(i).String(), Target: t, Err: err}
				}
				res.Checks = append(res.Checks, Check{
					Case: c.Name, Target: t, Layout: l, At: c.At, Request: c.Request.Summary(),
					Expect: c.Expect, Got: got, Failure: c.Expect.compare(got, re),
				})
			}
		}
	}
	return res, nil
}

// outcome explains the request to each plan's policies and combines the
// decisions: the strongest wins, as any refusing policy refuses the
// request.
func outcome(previews []reconcile.Preview, t render.Target, l Layout, req render.Request) (Outcome, error) {
	out := Outcome{Decision: Admitted}
	for _, pv := range previews {
		d, err := render.Explain(pv.Input(t, l == Compact), req)
		if err != nil {
			return out, err
		}
		pd := PlanDecision{Plan: pv.Plan.Name, Phase: pv.Plan.Status.Phase, Decision: d}
		out.Plans = append(out.Plans, pd)
		if v := Decision(d.Verdict()); slices.Index(Decisions(), v) < slices.Index(Decisions(), out.Decision) {
			out.Decision = v
		}
		out.Warned = out.Warned || d.Warned(t)
	}
	// A refused request is answered with the refusal: Warned speaks of
	// admitted ones (whether the API server also passes the warnings of
	// other policies along with a refusal is not modelled).
	out.Warned = out.Warned && out.Decision != Blocked
	return out, nil
}

// compare says how got differs from e; "" when it does not.
func (e Expect) compare(got Outcome, message *regexp.Regexp) string {
	if got.Decision != e.Decision {
		return fmt.Sprintf("want %s, got %s%s", e.describe(), got.Decision, got.why())
	}
	if e.Warned != nil && *e.Warned != got.Warned {
		return fmt.Sprintf("want warned: %t, got warned: %t%s", *e.Warned, got.Warned, got.why())
	}
	if e.Plan == "" && e.Template == "" && e.Message == "" {
		return ""
	}
	for _, pd := range got.Plans {
		if Decision(pd.Verdict()) == e.Decision && (e.Plan == "" || pd.Plan == e.Plan) &&
			(e.Template == "" || pd.Template == e.Template) && (e.Message == "" || message.MatchString(pd.Message)) {
			return ""
		}
	}
	return fmt.Sprintf("want %s, got %s%s", e.describe(), got.Decision, got.why())
}

func (e Expect) describe() string {
	s := string(e.Decision)
	if e.Plan != "" {
		s += " by plan " + e.Plan
	}
	if e.Template != "" {
		s += " by template " + e.Template
	}
	if e.Message != "" {
		s += fmt.Sprintf(" with a message matching %q", e.Message)
	}
	return s
}

// why lists the plans' decisions that say something.
func (o Outcome) why() string {
	var parts []string
	for _, pd := range o.Plans {
		s := fmt.Sprintf("%s: %s (%s)", pd.Plan, pd.Verdict(), pd.Phase)
		if pd.Template != "" {
			s += fmt.Sprintf(", template %s, message %q", pd.Template, pd.Message)
		} else if pd.Reason != "" {
			s += ": " + pd.Reason
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// RunError is a suite that cannot run: a plan a case's preview refuses
// (invalid, or of applications without a cluster), or a plan the
// renderer refuses. Its code is the cause's.
type RunError struct {
	// Case is the case's name and Field its path (cases[3]).
	Case, Field string
	// Plan is the plan at fault, when one is; Target the target.
	Plan   string
	Target render.Target
	Err    error
}

func (e *RunError) Error() string {
	s := fmt.Sprintf("%s (%q)", e.Field, e.Case)
	if e.Plan != "" {
		s += ": plan " + e.Plan
	}
	if e.Target != "" {
		s += ": target " + string(e.Target)
	}
	return s + ": " + e.Err.Error()
}

func (e *RunError) Unwrap() error { return e.Err }

// HTTPCode is the cause's code.
func (e *RunError) HTTPCode() int { return plan.CodeOf(e.Err) }

var _ plan.Coder = (*RunError)(nil)
