package render

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/telark/protectionplans/window"
)

// The warning policy of each target (see warnings.go).

// kyvernoWarnSpec renders a kyverno.io/v1 warning policy: Audit with
// emitWarning, one rule (and /scale rules of an applications scope) per
// warning rule, each denying every write it matches with the warning as
// its message; on a clocked render each rule's last precondition is its
// span's time test. allowExistingViolations is off, so that an UPDATE of
// an object that "already violates" (every object does) is warned too.
func kyvernoWarnSpec(c *compiled, u policyUnit, ns nsScope, exclude *kyMatch) (*specProto, error) {
	spec := kySpec{Admission: true, Background: false, EmitWarning: true, ValidationFailureAction: kyvernoAction(modeWarn)}
	for _, wr := range c.warnRules() {
		r := u.rules[0]
		r.Name = wr.name
		rules, err := kyvernoRules(r, ns, kyvernoWarnMessage(wr.text, wr.timed), exclude)
		if err != nil {
			return nil, err
		}
		for j := range rules {
			if err := c.kyvernoRequesters(&rules[j], false); err != nil {
				return nil, err
			}
			c.edge.kyvernoPrecondition(&rules[j])
			c.grants.kyvernoPrecondition(&rules[j], false, c.exempt)
			if wr.timed {
				if rules[j].Preconditions == nil {
					rules[j].Preconditions = &kyConditions{}
				}
				rules[j].Preconditions = &kyConditions{All: append(append([]kyCondition(nil), rules[j].Preconditions.All...),
					isTrue(kyvernoClock([]window.Interval{wr.span.interval()})))}
			}
		}
		spec.Rules = append(spec.Rules, rules...)
	}
	if ns.nsSelector != nil {
		kyvernoSelectNamespaces(spec.Rules, ns.nsSelector)
	}
	return newSpecProto(spec)
}

// celWarnValidations are the validations of a CEL warning policy, from
// the one validation of its rule (in scope: false): one per warning
// rule, false (warned) in scope and, on a clocked render, within its
// span by Kyverno's time.now(), with the time left computed by its
// message expression. A vap render is never clocked: its one validation
// carries the current phase's static text.
func (c *compiled) celWarnValidations(v admissionregistrationv1.Validation, opt celOptions) []admissionregistrationv1.Validation {
	var out []admissionregistrationv1.Validation
	for _, wr := range c.warnRules() {
		w := admissionregistrationv1.Validation{Expression: v.Expression, Message: opt.text(wr.text.static), Reason: v.Reason}
		if wr.timed {
			w.Expression = "!(" + celClock([]window.Interval{wr.span.interval()}) + ")"
			if v.Expression != "false" { // in scope only under a condition (an applications scope)
				w.Expression = v.Expression + " || " + w.Expression
			}
			w.Message = opt.text(wr.text.prefix)
			w.MessageExpression = celString(opt.text(wr.text.prefix))
			if !wr.text.at.IsZero() {
				w.MessageExpression += " + " + celLeft(wr.text.at) + " + " + celString(opt.text(wr.text.suffix))
			}
		}
		out = append(out, w)
	}
	return out
}
