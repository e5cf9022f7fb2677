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

// Every error answer of the API is a problem.Document, an RFC 9457
// problem detail served as application/problem+json:
//
//	{"type": "about:blank", "title": "Bad Request", "status": 400, "detail": "...",
//	 "errors": [{"field": "spec.name", "type": "FieldValueInvalid", "detail": "..."}]}
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

// writeError answers err as a problem.
func (s *Server) writeError(w http.ResponseWriter, _ *http.Request, err error) {
	p := toProblem(err, s.Log)
	setErrorHeaders(w, err, p.Code)
	writeAs(w, p.Code, problem.ContentType, p)
}

// challenge is the WWW-Authenticate of every 401 (RFC 9110 asks for
// one): the caller authenticates to the proxy in front, which names the
// user in X-Remote-User.
const challenge = `Proxy realm="protectionplans", header="` + HeaderUser + `"`

// setErrorHeaders sets what an error's answer carries besides its body:
// Retry-After for a *report.BusyError, WWW-Authenticate for a 401.
func setErrorHeaders(w http.ResponseWriter, err error, code int) {
	var busy *report.BusyError
	if errors.As(err, &busy) {
		w.Header().Set("Retry-After", strconv.Itoa(busy.RetryAfterSeconds()))
	}
	if code == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", challenge)
	}
}

// writeJSON answers v as JSON with code.
func writeJSON(w http.ResponseWriter, code int, v any) { writeAs(w, code, "application/json", v) }

func writeAs(w http.ResponseWriter, code int, contentType string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		w.Header().Set("Content-Type", problem.ContentType)
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"cannot encode the answer"}` + "\n"))
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
