package violations

import (
	"fmt"
	"net/http"
)

// UnrecognizedError is an event or a PolicyReport result this package
// cannot read: a reason other than PolicyViolation, a message in neither of
// Kyverno's two shapes, no policy name. It is data the cluster produced,
// not the caller's request: HTTPCode is 502 (a bad answer from upstream).
// The readers (FromEvents, FromPolicyReports) return one per such object,
// joined, next to everything they could read.
type UnrecognizedError struct {
	// Source is where the object was read.
	Source Source
	// Namespace and Name name the event or the report.
	Namespace, Name string
	// Reason says what did not fit, quoting the input.
	Reason string
}

func (e *UnrecognizedError) Error() string {
	return fmt.Sprintf("unrecognized %s %s/%s: %s", e.Source, e.Namespace, e.Name, e.Reason)
}

// HTTPCode is 502 (Bad Gateway).
func (e *UnrecognizedError) HTTPCode() int { return http.StatusBadGateway }

// CursorError is a feed cursor that this package did not write (or that was
// changed on the way). HTTPCode is 400.
type CursorError struct {
	// Cursor is the cursor as given.
	Cursor string
	// Reason says what is wrong with it.
	Reason string
}

func (e *CursorError) Error() string {
	return fmt.Sprintf("invalid cursor %q: %s", e.Cursor, e.Reason)
}

// HTTPCode is 400 (Bad Request).
func (e *CursorError) HTTPCode() int { return http.StatusBadRequest }

// VersionError is a serialised ledger of a version this package does not
// know: a newer library wrote it, or it is not a ledger. HTTPCode is 400.
type VersionError struct {
	// Version is the version found (0 when the field is missing).
	Version int
	// Supported is the version this package reads and writes.
	Supported int
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("ledger version %d is not supported (this library reads version %d)", e.Version, e.Supported)
}

// HTTPCode is 400 (Bad Request).
func (e *VersionError) HTTPCode() int { return http.StatusBadRequest }

// DecodeError is a serialised ledger that is not valid: malformed JSON, or
// fields that contradict each other. HTTPCode is 400.
type DecodeError struct {
	// Reason says what is wrong.
	Reason string
	// Err is the underlying error, when there is one.
	Err error
}

func (e *DecodeError) Error() string {
	if e.Err != nil {
		return "invalid ledger: " + e.Reason + ": " + e.Err.Error()
	}
	return "invalid ledger: " + e.Reason
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

// HTTPCode is 400 (Bad Request).
func (e *DecodeError) HTTPCode() int { return http.StatusBadRequest }
