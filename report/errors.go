package report

import (
	"fmt"
	"net/http"
	"time"

	"github.com/telark/protectionplans/plan"
)

// The errors of this package implement plan.Coder: their HTTP-like code is
// a property of their type.
var (
	_ plan.Coder = (*NotStartedError)(nil)
	_ plan.Coder = (*InputError)(nil)
	_ plan.Coder = (*BusyError)(nil)
)

// NotStartedError refuses a report of a plan that has not started its
// run: an on-demand report before the plan first became active, or a final
// report of a plan that never started. Its code is 409 (the plan's state
// conflicts with the request).
type NotStartedError struct {
	// Plan is the plan ID; Phase its phase.
	Plan  string
	Phase plan.Phase
	// Trigger is the report asked for.
	Trigger Trigger
	// Reason is a sentence a person can act on.
	Reason string
}

func (e *NotStartedError) Error() string {
	return fmt.Sprintf("no %s report of plan %s (%s): %s", e.Trigger, e.Plan, phaseOrNew(e.Phase), e.Reason)
}

// HTTPCode is 409.
func (e *NotStartedError) HTTPCode() int { return http.StatusConflict }

// InputError is a request the package cannot serve whatever the plan's
// state: no plan, an unknown trigger or format. Its code is 400.
type InputError struct {
	// Field names what is wrong, e.g. "format".
	Field string
	// Value is the value given, quoted in the message.
	Value string
	// Reason says what is expected.
	Reason string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("report: %s %q: %s", e.Field, e.Value, e.Reason)
}

// HTTPCode is 400.
func (e *InputError) HTTPCode() int { return http.StatusBadRequest }

// BusyError is the answer of a Limiter that already runs its maximum of
// renders: the caller answers 429 with a Retry-After header of
// RetryAfterSeconds.
type BusyError struct {
	// Limit is how many renders may run at a time.
	Limit int
	// RetryAfter is how long the caller should wait before retrying.
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("report: %d renders are already running; retry after %s", e.Limit, e.RetryAfter)
}

// HTTPCode is 429.
func (e *BusyError) HTTPCode() int { return http.StatusTooManyRequests }

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up and at
// least 1: the value of a Retry-After header.
func (e *BusyError) RetryAfterSeconds() int {
	s := int((e.RetryAfter + time.Second - 1) / time.Second)
	return max(s, 1)
}

func phaseOrNew(p plan.Phase) string {
	if p == "" {
		return "not created"
	}
	return string(p)
}
