package plan

import (
	"errors"
	"fmt"
	"net/http"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Coder is implemented by every error of this module that changes what the
// caller does. The code is HTTP-like (400, 403, 404, 409, 413, 429, 503) and
// is a property of the error's type, never found in its text. Errors of
// other packages (window, approval, report) implement it structurally.
type Coder interface {
	error
	HTTPCode() int
}

// CodeOf returns the HTTP-like code of err: the code of the first error in
// its chain that implements Coder, 200 for nil, and 500 for anything else
// (an unexpected error is the server's fault, not the caller's).
func CodeOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var c Coder
	if errors.As(err, &c) {
		return c.HTTPCode()
	}
	return http.StatusInternalServerError
}

// ValidationError carries every problem found at once, each with its field
// path. Its code follows the field error types, not the messages:
// field.ErrorTypeInternal (a dependency could not be read, e.g. the
// excluded-namespace list) makes it 503, any other type except
// field.ErrorTypeDuplicate makes it 400, and a list holding only
// duplicates (the display name is taken) is 409.
type ValidationError struct {
	Errs field.ErrorList
}

func (e *ValidationError) Error() string {
	return e.Errs.ToAggregate().Error()
}

// HTTPCode is 503, 400 or 409 as described on the type.
func (e *ValidationError) HTTPCode() int {
	code := http.StatusConflict
	for _, fe := range e.Errs {
		switch fe.Type {
		case field.ErrorTypeInternal:
			return http.StatusServiceUnavailable
		case field.ErrorTypeDuplicate:
		default:
			code = http.StatusBadRequest
		}
	}
	return code
}

// NewValidationError returns nil for an empty list, so that callers can
// write `return NewValidationError(errs)`. A string value an error quotes
// is cut after MaxQuotedValue characters (Shorten): a 100,000-character
// value is not echoed whole. The errors given are not changed.
func NewValidationError(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	out := make(field.ErrorList, len(errs))
	for i, fe := range errs {
		if v, ok := fe.BadValue.(string); ok && len(v) > MaxQuotedValue {
			c := *fe
			c.BadValue = Shorten(v, MaxQuotedValue)
			fe = &c
		}
		out[i] = fe
	}
	return &ValidationError{Errs: out}
}

// MaxQuotedValue is the longest value, in characters, an error quotes
// whole.
const MaxQuotedValue = 200

// Shorten returns s when it has at most n characters (runes), else its
// first n characters and a marker that says how long s is, e.g.
// "QQQ… (100000 characters)".
func Shorten(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return fmt.Sprintf("%s… (%d characters)", s[:cut], utf8.RuneCountInString(s))
}

// ActionError is a refused lifecycle action (cancel, reactivate, edit,
// approve, ...): which action, in which phase, why, and the code.
type ActionError struct {
	// Action is the refused action, e.g. "cancel".
	Action string
	// Phase is the plan's phase when it was refused.
	Phase Phase
	// Reason is a sentence a person can act on.
	Reason string
	// Code is 409 for a conflict with the plan's state, 400 for a bad
	// request, 403 when the caller may not do it.
	Code int
	// Field is the offending field, when there is one.
	Field *field.Path
}

func (e *ActionError) Error() string {
	if e.Field != nil {
		return fmt.Sprintf("cannot %s a %s plan: %s: %s", e.Action, e.Phase, e.Field, e.Reason)
	}
	return fmt.Sprintf("cannot %s a %s plan: %s", e.Action, e.Phase, e.Reason)
}

// HTTPCode is the code set by whoever refused the action.
func (e *ActionError) HTTPCode() int { return e.Code }
