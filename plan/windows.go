package plan

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

// windowErrors turns a window.Parse error into field errors.
func windowErrors(err error, fld *field.Path) field.ErrorList {
	var perr *window.ParseError
	if errors.As(err, &perr) && len(perr.Errs) > 0 {
		return perr.Errs
	}
	return field.ErrorList{field.Invalid(fld, "", err.Error())}
}

// windowTarget is the phase a window asks for at an instant.
type windowTarget struct {
	phase Phase
	// next is the window's next edge after the instant, if any.
	next *time.Time
}

// targetOf returns the phase the window asks for at now: active inside it,
// terminated once it has ended for good, scheduled otherwise (before the
// start, or between two occurrences of a recurring window).
func targetOf(w *window.Window, now time.Time) windowTarget {
	var t windowTarget
	switch {
	case w.Active(now):
		t.phase = PhaseActive
	case w.Ended(now):
		return windowTarget{phase: PhaseTerminated}
	default:
		t.phase = PhaseScheduled
	}
	if next, ok := w.NextEdge(now); ok {
		t.next = &next
	}
	return t
}
