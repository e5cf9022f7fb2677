package render

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// endLayout is how the end of the window reads in enforce messages, in the
// window's zone.
const endLayout = "2006-01-02 15:04 MST"

// auditMessage is what an audited change records:
// "would be blocked by protection plan <name>: <what>".
func auditMessage(planName, what string) string {
	return "would be blocked by protection plan " + planName + ": " + what
}

// enforceMessage is what a refused change reads:
// "<what> is frozen by protection plan <name> until <end>".
func enforceMessage(planName, what, until string) string {
	return what + " is frozen by protection plan " + planName + " " + until
}

// recordPrefix starts the message of a write an exemption admitted, which
// then names the requester, and says what the plan would have done:
// "exempt requester <name> admitted by protection plan <plan>: <what>".
// kyverno writes the name in base64, after "base64:" (Kyverno evaluates
// messages as templates, and a user name is text like any other).
const recordPrefix = "exempt requester "

// recordBase64 marks a requester's name written in base64.
const recordBase64 = "base64:"

// recordSuffix is the part of a record's message after the requester's
// name.
func (c *compiled) recordSuffix(what string) string {
	return " admitted by protection plan " + c.planName + ": " + what
}

// message returns the message of a rule in the plan's mode.
func (c *compiled) message(what string) string {
	if c.mode == plan.ModeAudit {
		return auditMessage(c.planName, what)
	}
	return enforceMessage(c.planName, what, c.until)
}

// untilText says until when the plan freezes, from the window interval
// containing now:
//
//   - "until canceled" for a permanent window;
//   - "until 2026-12-27 06:00 CET" when the interval's end is known;
//   - "until its current window ends, more than 14 days from now" when the
//     interval lasts past the look-ahead (the text does not move with now,
//     so the render stays the same from tick to tick);
//   - "until its window ends" when now is not in the window (the caller
//     should not render such a plan active; the text stays honest).
func untilText(spec window.Spec, now time.Time, fld *field.Path, opts []window.Option) (string, field.ErrorList) {
	w, err := window.Parse(spec, append([]window.Option{window.WithFieldPath(fld)}, opts...)...)
	if err != nil {
		var perr *window.ParseError
		if errors.As(err, &perr) {
			return "", perr.Errs
		}
		return "", field.ErrorList{field.Invalid(fld, spec.Type, err.Error())}
	}
	if w.Type() == window.Permanent {
		return "until canceled", nil
	}
	iv, ok := w.Containing(now)
	switch {
	case !ok:
		return "until its window ends", nil
	case iv.OpenEnd && iv.End.IsZero():
		return "until canceled", nil
	case iv.OpenEnd:
		return fmt.Sprintf("until its current window ends, more than %s from now", describeSpan(w.LookAround())), nil
	}
	return "until " + iv.End.In(w.Location()).Format(endLayout), nil
}

// describeSpan writes a look-ahead as days when it is a whole number of
// days, as a duration otherwise.
func describeSpan(d time.Duration) string {
	const day = 24 * time.Hour
	if d%day == 0 {
		n := int(d / day)
		if n == 1 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", n)
	}
	return d.String()
}
