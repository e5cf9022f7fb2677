package render

import (
	"encoding/base64"
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// Advance warnings (issue 20, seed 004): a write in scope reads an
// admission warning within the lead before the window's start
// (BeforeStart), while it is open (Active) and within the lead before its
// end (BeforeEnd). Warnings never refuse and record nothing.
//
// Each namespace in scope gets one more policy, the warning policy
// (WarnTemplate): one rule matching every kind, subresource and operation
// the plan's templates match, unconditionally, under the plan's
// exclusions, exempt and included requesters, whose only action is a
// warning:
//
//   - kyverno: a kyverno.io/v1 Policy in Audit with emitWarning, which
//     Kyverno 1.19.1 answers on an admitted request as
//     "policy <name>.<rule>: <message>" (webhooks/utils GetWarningMessages;
//     a refused request carries no warnings). An audited failure also
//     makes PolicyViolation events and report results: the violations
//     package drops those of warning rules (IsWarningRule).
//   - kyverno-cel: a NamespacedValidatingPolicy with validationActions
//     [Warn], answered as "Policy <name> failed: <message>".
//   - vap: a ValidatingAdmissionPolicy whose binding's validationActions
//     are [Warn]; the API server answers with the message.
//
// On a clocked render (Input.Clock on a target with a clock) the policy
// carries a rule (a validation) per phase and interval, each true only
// within its span of time by the engine's clock, and its message computes
// the time left in the policy (Kyverno's time_diff, CEL's timestamp
// arithmetic) from instants rendered as RFC 3339 constants. Elsewhere the
// API server has no clock: the policy carries the warning of the current
// phase with static text naming the instants, and the pass renders it
// again at the next phase change (NextWarningEdge), which changes its
// hash. The plan's name is user text: base64 for Kyverno, a CEL string
// literal for the CEL targets, as in every other message.

// WarnTemplate is the template label (and Policy.Template) of a plan's
// warning policy, one per namespace. No catalog template has this name.
const WarnTemplate = "warn"

// modeWarn is the warning policy's action: warn only (kyverno: Audit with
// emitWarning; the CEL targets: [Warn]). Never a plan's mode.
const modeWarn plan.Mode = "warn"

// WarningPhase is which advance warning a write reads.
type WarningPhase string

// The advance warnings, in the order they follow each other.
const (
	WarningBeforeStart WarningPhase = "BeforeStart"
	WarningActive      WarningPhase = "Active"
	WarningBeforeEnd   WarningPhase = "BeforeEnd"
)

// warningRulePrefix starts the name of every warning rule; no catalog
// rule name starts with it (a test holds it).
const warningRulePrefix = "advance-warning-"

// WarningRule is the name of a warning rule of a phase (kyverno; the
// scale rules of an applications scope add a suffix). The violations
// package recognises records of warning rules by it (IsWarningRule).
func WarningRule(p WarningPhase) string {
	return warningRulePrefix + map[WarningPhase]string{
		WarningBeforeStart: "before-start", WarningActive: "active", WarningBeforeEnd: "before-end"}[p]
}

// IsWarningRule reports whether a rule name is a warning rule's: its
// records are warnings, not violations.
func IsWarningRule(rule string) bool { return strings.HasPrefix(rule, warningRulePrefix) }

// Warning is the advance warning a write in scope reads at an instant.
type Warning struct {
	Phase WarningPhase
	// Start and End are the interval warned about; End is zero for an
	// interval without end.
	Start, End time.Time
	// Message is the text, as the target renders it at the instant:
	// with the time left on a clocked render, the instants only elsewhere.
	Message string
}

// warnSpan is one phase of one interval: [from, to).
type warnSpan struct {
	phase    WarningPhase
	from, to time.Time // to is zero: no end
	iv       window.Interval
}

// Lead is how long before a window's start (and end) the input's
// warnings begin and a clocked render's policies are put in place: the
// plan's spec.warnings.lead, else Input.Lead, else DefaultLead.
func Lead(in Input) time.Duration {
	if in.Plan == nil {
		return in.lead()
	}
	return in.Plan.Spec.LeadOr(in.lead())
}

// warnSpans are the phases of the intervals (in order). A phase shorter
// than nothing is left out: a window shorter than the lead has no Active
// span, its BeforeEnd starts at its start.
func warnSpans(ivs []window.Interval, lead time.Duration) []warnSpan {
	var out []warnSpan
	for _, iv := range ivs {
		if !iv.OpenStart {
			out = append(out, warnSpan{phase: WarningBeforeStart, from: iv.Start.Add(-lead), to: iv.Start, iv: iv})
		}
		if iv.End.IsZero() {
			out = append(out, warnSpan{phase: WarningActive, from: iv.Start, iv: iv})
			continue
		}
		endFrom := iv.End.Add(-lead)
		if !iv.OpenStart && endFrom.Before(iv.Start) {
			endFrom = iv.Start
		}
		if iv.OpenStart || endFrom.After(iv.Start) {
			out = append(out, warnSpan{phase: WarningActive, from: iv.Start, to: endFrom, iv: iv})
		}
		out = append(out, warnSpan{phase: WarningBeforeEnd, from: endFrom, to: iv.End, iv: iv})
	}
	return out
}

// contains reports whether t is in the span (open at the start of an
// interval that started before the look-back).
func (s warnSpan) contains(t time.Time) bool {
	if !(s.iv.OpenStart && s.phase != WarningBeforeStart) && t.Before(s.from) {
		return false
	}
	return s.to.IsZero() || t.Before(s.to)
}

// warnSetup is what the warnings of an input need: the window's zone and
// intervals (the occurrence containing Now and the next), and the lead.
// ok is false when the plan does not warn (spec.warnings.disabled, a
// window that does not parse, a plan that has ended).
func warnSetup(in Input) (loc *time.Location, spans []warnSpan, ok bool) {
	if !in.Warnings || in.Plan == nil || !in.Plan.Spec.WarningsOn() {
		return nil, nil, false
	}
	switch in.Plan.Status.Phase {
	case plan.PhaseActive, plan.PhaseScheduled:
	default:
		return nil, nil, false
	}
	w, err := window.Parse(in.Plan.Spec.Window)
	if err != nil {
		return nil, nil, false
	}
	lead := Lead(in)
	ivs := w.Occurrences(in.Now, in.Now.Add(max(w.LookAround(), lead)))
	if len(ivs) > 2 {
		ivs = ivs[:2]
	}
	if w.Type() == window.Permanent {
		for i := range ivs { // a permanent window warns as Active, without end
			ivs[i].End, ivs[i].OpenEnd = time.Time{}, true
		}
	}
	return w.Location(), warnSpans(ivs, lead), true
}

// WarningAt returns the advance warning a write in scope reads at in.Now
// from the plan's warning policy, as the input's target renders it; false
// when it reads none. It is the library's side of what the engines
// evaluate (test/kyverno and the CEL tests hold them equal).
func WarningAt(in Input) (Warning, bool) {
	loc, spans, ok := warnSetup(in)
	if !ok {
		return Warning{}, false
	}
	name := warnPlanName(in.Plan)
	for _, s := range spans {
		if !s.contains(in.Now) {
			continue
		}
		t := warnTextOf(name, s, loc)
		msg := t.static
		if in.clocked() {
			msg = t.prefix + left(t.at, in.Now) + t.suffix
		}
		return Warning{Phase: s.phase, Start: s.iv.Start, End: s.iv.End, Message: msg}, true
	}
	return Warning{}, false
}

// NextWarningEdge is the next instant after in.Now at which a render of
// the input changes because of its warnings: on a target without a clock
// (or without Input.Clock), where the static text of the current phase is
// swapped, each phase's bounds; on a clocked render, where the policies
// read the clock, only the start of the first BeforeStart (the warning
// policy is put in place then). The pass comes back at that instant.
func NextWarningEdge(in Input) (time.Time, bool) {
	_, spans, ok := warnSetup(in)
	if !ok {
		return time.Time{}, false
	}
	var next time.Time
	consider := func(t time.Time) {
		if t.After(in.Now) && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, s := range spans {
		if in.clocked() {
			if s.phase == WarningBeforeStart {
				consider(s.from)
			}
			continue
		}
		consider(s.from)
		if !s.to.IsZero() {
			consider(s.to)
		}
	}
	return next, !next.IsZero()
}

// warnArmed reports whether a plan that is not active has a warning in
// place: within the lead before its start.
func warnArmed(in Input) bool {
	if in.Plan == nil || in.Plan.Status.Phase != plan.PhaseScheduled {
		return false
	}
	w, ok := WarningAt(in)
	return ok && w.Phase == WarningBeforeStart
}

// left is the time left until at, as Kyverno's time_diff writes it for
// whole seconds (Go's Duration.String), truncated to the second.
func left(at, now time.Time) string {
	return at.Sub(now).Truncate(time.Second).String()
}

// warnText is a span's message: static (the instants only), or a prefix
// and suffix around the time left until at.
type warnText struct {
	static, prefix, suffix string
	at                     time.Time
}

// warnInstantLayout is how instants read in warnings, in the plan's zone.
const warnInstantLayout = "2006-01-02 15:04 MST"

// warnInstant writes an instant in the plan's zone, with the zone's name
// unless it is the abbreviation itself (UTC).
func warnInstant(t time.Time, loc *time.Location) string {
	s := t.In(loc).Format(warnInstantLayout)
	if name := loc.String(); name != "" && name != "Local" && !strings.HasSuffix(s, " "+name) {
		s += " " + name
	}
	return s
}

// warnPlanName is the plan's display name, or its ID when it has none.
func warnPlanName(p *plan.ProtectionPlan) string {
	if n := strings.TrimSpace(p.Spec.Name); n != "" {
		return p.Spec.Name
	}
	return p.Name
}

func warnTextOf(name string, s warnSpan, loc *time.Location) warnText {
	head := "freeze " + name
	end := func() string { return warnInstant(s.iv.End, loc) }
	switch s.phase {
	case WarningBeforeStart:
		start := warnInstant(s.iv.Start, loc)
		static, until := head+" starts at "+start, ""
		if !s.iv.End.IsZero() {
			until = ", until " + s.iv.End.In(loc).Format(warnInstantLayout)
			static += " (until " + s.iv.End.In(loc).Format(warnInstantLayout) + ")"
		}
		return warnText{static: static, prefix: head + " starts in ", suffix: " (" + start + until + ")", at: s.iv.Start}
	case WarningActive:
		if s.iv.End.IsZero() {
			t := head + " is in force, without end"
			return warnText{static: t, prefix: t}
		}
		return warnText{
			static: head + " is in force until " + end(),
			prefix: head + " is in force for ", suffix: " more (until " + end() + ")", at: s.iv.End,
		}
	default:
		return warnText{
			static: head + " ends at " + end(),
			prefix: head + " ends in ", suffix: " (" + end() + ")", at: s.iv.End,
		}
	}
}

// warnRules are the rules (validations) of a warning policy: one per
// span on a clocked render, each with the span's time test; elsewhere
// the current span's, without one. when is the span's time test (nil:
// none), left the engine's time left until at (empty: a static message).
type warnRule struct {
	name  string
	span  warnSpan
	text  warnText
	timed bool
}

func (c *compiled) warnRules() []warnRule {
	if c.warn == nil {
		return nil
	}
	var out []warnRule
	for i, s := range c.warn.spans {
		t := warnTextOf(c.planName, s, c.warn.loc)
		if !c.warn.clocked {
			if s.contains(c.warn.now) {
				return []warnRule{{name: WarningRule(s.phase), span: s, text: t}}
			}
			continue
		}
		out = append(out, warnRule{name: WarningRule(s.phase) + "-" + string(rune('0'+i)), span: s, text: t, timed: true})
	}
	return out
}

// warnCompiled is a compiled input's warnings.
type warnCompiled struct {
	loc     *time.Location
	spans   []warnSpan
	now     time.Time
	clocked bool
	// only: the plan is not active yet, only its warning policy is in
	// place (a target without a clock, within the lead).
	only bool
}

// compileWarnings reduces an input's warnings: nil when the plan warns
// of nothing now (or, on a clocked render, through its intervals).
func compileWarnings(in Input) *warnCompiled {
	loc, spans, ok := warnSetup(in)
	if !ok {
		return nil
	}
	wc := &warnCompiled{loc: loc, spans: spans, now: in.Now, clocked: in.clocked(),
		only: in.Plan.Status.Phase != plan.PhaseActive && !in.clocked()}
	if !wc.clocked {
		if _, ok := WarningAt(in); !ok {
			return nil
		}
	}
	if len(spans) == 0 {
		return nil
	}
	return wc
}

// warnUnit is the warning policy of a namespace: one rule matching what
// every template of the plan matches (kinds, subresources, operations),
// unconditionally.
func (c *compiled) warnUnit(ns nsScope) policyUnit {
	r := RuleSpec{Name: "warn", What: "writes", Condition: Always}
	seenKind := map[Kind]bool{}
	seenOp := map[Operation]bool{}
	seenSub := map[string]bool{}
	for _, bt := range c.templates {
		for _, rs := range bt.rules {
			for _, k := range rs.Kinds {
				if !seenKind[k] {
					seenKind[k] = true
					r.Kinds = append(r.Kinds, k)
				}
			}
			for _, op := range rs.Operations {
				if !seenOp[op] {
					seenOp[op] = true
					r.Operations = append(r.Operations, op)
				}
			}
			for _, s := range rs.Subresources {
				if !seenSub[s] {
					seenSub[s] = true
					r.Subresources = append(r.Subresources, s)
				}
			}
		}
	}
	sortOps(r.Operations)
	return policyUnit{template: WarnTemplate, templates: []string{WarnTemplate}, rules: []RuleSpec{r}, owners: []string{WarnTemplate}, warn: true}
}

// sortOps puts operations in their fixed order (CREATE, UPDATE, DELETE).
func sortOps(ops []Operation) {
	rank := map[Operation]int{OpCreate: 0, OpUpdate: 1, OpDelete: 2}
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && rank[ops[j]] < rank[ops[j-1]]; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// kyvernoWarnMessage is a warning rule's message for kyverno.io/v1: the
// literal parts (base64, decoded) around Kyverno's time left, in one
// shallow substitution (see kyvernoMessage), or the static text.
func kyvernoWarnMessage(t warnText, timed bool) string {
	if !timed || t.at.IsZero() {
		if timed {
			return kyvernoMessage(t.prefix)
		}
		return kyvernoMessage(t.static)
	}
	enc := base64.StdEncoding.EncodeToString
	return "{{- join('', [base64_decode('" + enc([]byte(t.prefix)) + "'), time_diff(time_now_utc(), '" + instant(t.at) +
		"'), base64_decode('" + enc([]byte(t.suffix)) + "')]) }}"
}

// celLeft is the CEL time left until at (Kyverno's time.now()), written as
// Go writes a duration of whole seconds ("19m30s", "1h0m0s", "45s").
func celLeft(at time.Time) string {
	d := "(timestamp('" + instant(at) + "') - time.now())"
	h, m, s := d+".getHours()", d+".getMinutes()", d+".getSeconds()"
	return "(" + h + " > 0 ? string(" + h + ") + 'h' + string(" + m + " % 60) + 'm' + string(" + s + " % 60) + 's' : " +
		m + " > 0 ? string(" + m + ") + 'm' + string(" + s + " % 60) + 's' : string(" + s + ") + 's')"
}

// warnSpanInterval is a span as the interval the clock tests read.
func (s warnSpan) interval() window.Interval {
	iv := window.Interval{Start: s.from, End: s.to}
	if s.iv.OpenStart && s.phase != WarningBeforeStart {
		iv.OpenStart = true
	}
	if s.to.IsZero() {
		iv.OpenEnd = true
	}
	return iv
}
