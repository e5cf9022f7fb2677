package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/problem"
	"github.com/telark/protectionplans/report"
)

// Every error answer is a problem.Document:
//
//	{"code": 400, "message": "...", "errors": [{"field": "spec.name", "type": "FieldValueInvalid", "detail": "..."}]}
//
// problem.Of decides it from the error's type (plan.CodeOf), never from
// its text; the server writes it and logs what it says to log.

// httpError is an error of the server itself with its code (it
// implements plan.Coder, so problem.Of reads it like a library error).
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }
func (e *httpError) HTTPCode() int { return e.code }
func errorf(code int, format string, args ...any) error {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

var _ plan.Coder = (*httpError)(nil)

// conflictError is the answer to a write that lost a race: the object
// changed between the read and the write (Kubernetes answered Conflict).
func conflictError(what, name string) error {
	return errorf(http.StatusConflict,
		"%s %q was changed by someone else since it was read; nothing was written: re-read it and try again", what, name)
}

// toProblem is problem.Of, logging what it says to log.
func toProblem(err error, log *slog.Logger) problem.Document {
	doc := problem.Of(err)
	if doc.Log {
		log.Error("error answered", "code", doc.Code, "err", err)
	}
	return doc
}

// writeError answers err as a problem. A 429 carries Retry-After.
func (s *Server) writeError(w http.ResponseWriter, _ *http.Request, err error) {
	p := toProblem(err, s.Log)
	setRetryAfter(w, err)
	writeJSON(w, p.Code, p)
}

// setRetryAfter sets Retry-After on the answer of a *report.BusyError.
func setRetryAfter(w http.ResponseWriter, err error) {
	var busy *report.BusyError
	if errors.As(err, &busy) {
		w.Header().Set("Retry-After", strconv.Itoa(busy.RetryAfterSeconds()))
	}
}

// writeJSON answers v as JSON with code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, `{"code":500,"message":"cannot encode the answer"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
