package render

import (
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// The clock at the enforcer (issue 20). Seed 004: "Admission evaluates the
// clock directly and does not rely on status to activate a restriction."
// Where the target's engine can read the clock at admission, a render with
// Input.Clock carries the window's instants in every rule, so that the
// policy refuses (or records) only from the start instant to the end
// instant by itself, even while no operator runs a pass.
//
// What each engine can read (checked in Kyverno 1.19.1's source, and
// evaluated by test/kyverno's engine tests):
//
//   - kyverno (kyverno.io/v1, JMESPath): time_now_utc() returns the wall
//     clock formatted as RFC 3339, truncated to the second
//     (pkg/engine/jmespath/time.go, jpTimeNowUtc); time_before(a, b) is
//     a < b, time_after(a, b) is a > b, and time_between(t, s, e) is
//     s < t < e, exclusive at both ends: at the start instant itself it
//     is false. The rules therefore test
//     !time_before(time_now_utc(), start) && time_before(time_now_utc(), end),
//     start <= now < end, the window package's half-open interval.
//   - kyverno-cel (policies.kyverno.io/v1 NamespacedValidatingPolicy):
//     Kyverno's vpol compiler (pkg/cel/policies/vpol/compiler) adds the
//     kyverno.time library of github.com/kyverno/sdk
//     (extensions/cel/libs/time): time.now() returns the wall clock as a
//     CEL timestamp (nanoseconds), also time.truncate and time.toCron.
//     The policies carry a match condition
//     time.now() >= timestamp(start) && time.now() < timestamp(end).
//   - vap: the API server's CEL environment has no clock (no now(), and
//     the request carries no time); its edges stay the operator's, late by
//     at most one tick plus a leader change. The same holds for a
//     break-glass grant's end (grants.go): on vap its users are excluded
//     until the pass at its end renders the policies without them, so with
//     the operator down a grant outlives its end; on the clock targets the
//     policies test each grant's instants too.
//
// The instants are constants rendered from exact instants (RFC 3339, UTC,
// whole seconds), never user text. A policy carries the occurrence
// containing Now and the next one (recurring windows), so that it refuses
// through the next edge too; each pass renders them again, and since they
// change only when an occurrence ends the render hash changes only then.

// DefaultLead is how long before a window's start a clock target's
// policies are put in place when Input.Lead is zero.
const DefaultLead = time.Hour

// HasClock reports whether a target's engine reads the clock at admission,
// so that its policies can start and end on time by themselves.
func HasClock(t Target) bool {
	return t == TargetKyverno || t == TargetKyvernoCEL || t == ""
}

// lead is the input's lead, defaulted.
func (in Input) lead() time.Duration {
	if in.Lead > 0 {
		return in.Lead
	}
	return DefaultLead
}

// clocked reports whether the render carries the window's instants.
func (in Input) clocked() bool { return in.Clock && HasClock(in.Target) }

// Armed reports whether the input renders to policies: the plan is active,
// or (with Input.Clock on a target with a clock) it is scheduled and its
// next start is within the lead (R-R7 as amended by issue 20: policies may
// be in place up to the lead before the start, refusing nothing before
// the start instant).
func Armed(in Input) bool {
	if in.Plan == nil {
		return false
	}
	switch in.Plan.Status.Phase {
	case plan.PhaseActive:
		return true
	case plan.PhaseScheduled:
		if !in.clocked() {
			return warnArmed(in) // the warning policy alone (warnings.go)
		}
		w, err := window.Parse(in.Plan.Spec.Window, in.WindowOptions...)
		if err != nil {
			return false
		}
		next, ok := w.NextEdge(in.Now)
		return ok && !w.Active(in.Now) && !next.After(in.Now.Add(Lead(in)))
	}
	return false
}

// clockIntervals returns the intervals a clocked render's policies refuse
// in: the occurrence containing now, if any, and the next one.
func clockIntervals(spec window.Spec, now time.Time, opts []window.Option) []window.Interval {
	w, err := window.Parse(spec, opts...)
	if err != nil { // compile reports it, naming the field
		return nil
	}
	out := w.Occurrences(now, now.Add(w.LookAround()))
	if out == nil {
		out = []window.Interval{} // clocked all the same: the policies refuse nothing
	}
	if len(out) > 2 {
		out = out[:2]
	}
	return out
}

// clockUntil is the "until" of a clocked render's enforce messages: the
// end of the first interval its policies carry, so that the policies put
// in place ahead of the start say what they will say once it has passed,
// and the start's pass finds them as it renders them (no write at the
// edge). A recurring window's second interval is told the first's end
// until a pass renders it again after the first ends.
func clockUntil(spec window.Spec, ivs []window.Interval) (string, bool) {
	w, err := window.Parse(spec) // the zone and type only: the intervals are resolved
	if err != nil || len(ivs) == 0 || ivs[0].OpenEnd || ivs[0].End.IsZero() || w.Type() == window.Permanent {
		return "", false
	}
	return "until " + ivs[0].End.In(w.Location()).Format(endLayout), true
}

// inIntervals reports whether t is in one of the intervals (half open).
func inIntervals(ivs []window.Interval, t time.Time) bool {
	for _, iv := range ivs {
		if (iv.OpenStart || !t.Before(iv.Start)) && (iv.OpenEnd && iv.End.IsZero() || t.Before(iv.End)) {
			return true
		}
	}
	return false
}

// instant writes an instant as the policies carry it: RFC 3339, UTC,
// whole seconds (Kyverno's time_now_utc has no fractions).
func instant(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// kyvernoClock is the JMESPath test of the intervals: true while the
// clock is in one of them.
func kyvernoClock(ivs []window.Interval) string {
	const now = "time_now_utc()"
	var terms []string
	for _, iv := range ivs {
		var parts []string
		if !iv.OpenStart {
			parts = append(parts, "!time_before("+now+", '"+instant(iv.Start)+"')")
		}
		if !iv.End.IsZero() {
			parts = append(parts, "time_before("+now+", '"+instant(iv.End)+"')")
		}
		if len(parts) == 0 {
			return "`true`"
		}
		terms = append(terms, "("+strings.Join(parts, " && ")+")")
	}
	if len(terms) == 0 {
		return "`false`"
	}
	return strings.Join(terms, " || ")
}

// celClock is the CEL test of the intervals (Kyverno's time.now()).
func celClock(ivs []window.Interval) string {
	const now = "time.now()"
	var terms []string
	for _, iv := range ivs {
		var parts []string
		if !iv.OpenStart {
			parts = append(parts, now+" >= timestamp('"+instant(iv.Start)+"')")
		}
		if !iv.End.IsZero() {
			parts = append(parts, now+" < timestamp('"+instant(iv.End)+"')")
		}
		if len(parts) == 0 {
			return "true"
		}
		terms = append(terms, "("+strings.Join(parts, " && ")+")")
	}
	if len(terms) == 0 {
		return "false"
	}
	return strings.Join(terms, " || ")
}

// clockMatchCondition is the match condition of a clocked kyverno-cel
// policy.
const clockMatchCondition = "within-window"

// addKyvernoClock adds the clock test to every rule's preconditions.
func addKyvernoClock(spec *kySpec, ivs []window.Interval) {
	cond := isTrue(kyvernoClock(ivs))
	for i := range spec.Rules {
		r := &spec.Rules[i]
		if r.Preconditions == nil {
			r.Preconditions = &kyConditions{}
		}
		r.Preconditions = &kyConditions{All: append(append([]kyCondition(nil), r.Preconditions.All...), cond)}
	}
}

// addCELClock adds the clock test as the policy's last match condition.
func addCELClock(conds []admissionregistrationv1.MatchCondition, ivs []window.Interval) []admissionregistrationv1.MatchCondition {
	return append(append([]admissionregistrationv1.MatchCondition(nil), conds...),
		admissionregistrationv1.MatchCondition{Name: clockMatchCondition, Expression: celClock(ivs)})
}
