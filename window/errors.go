package window

import (
	"net/http"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ParseError is the error Parse returns for an invalid Spec. It carries
// every problem at once, each naming its field path and quoting the bad
// value. Callers get the list with errors.As:
//
//	var perr *window.ParseError
//	if errors.As(err, &perr) {
//		for _, fe := range perr.Errs { ... }
//	}
//
// An invalid window is the caller's fault: HTTPCode is 400.
type ParseError struct {
	Errs field.ErrorList
}

// HTTPCode is 400 (Bad Request), whatever the problems are.
func (e *ParseError) HTTPCode() int { return http.StatusBadRequest }

// Error joins the field errors, one per line when there are several.
func (e *ParseError) Error() string {
	if len(e.Errs) == 1 {
		return "invalid window: " + e.Errs[0].Error()
	}
	var b strings.Builder
	b.WriteString("invalid window:")
	for _, fe := range e.Errs {
		b.WriteString("\n  ")
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the field errors, so errors.As finds a *field.Error.
func (e *ParseError) Unwrap() []error {
	errs := make([]error, len(e.Errs))
	for i, fe := range e.Errs {
		errs[i] = fe
	}
	return errs
}

// ParseInstant reads an instant as an API or command line is given one:
// an RFC 3339 time (2026-12-25T12:00:00+01:00), or a date (2026-12-25),
// which is its midnight in UTC. Anything else is an *InstantError at fld.
func ParseInstant(fld *field.Path, v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, &InstantError{Err: field.Invalid(fld, v,
		"is neither an RFC 3339 time (2026-12-25T12:00:00+01:00) nor a date (2026-12-25, midnight UTC)")}
}

// InstantError is a value ParseInstant cannot read, at its field: 400.
type InstantError struct {
	Err *field.Error
}

func (e *InstantError) Error() string { return e.Err.Error() }

// HTTPCode is 400 (Bad Request).
func (e *InstantError) HTTPCode() int { return http.StatusBadRequest }

// Unwrap returns the field error.
func (e *InstantError) Unwrap() error { return e.Err }
