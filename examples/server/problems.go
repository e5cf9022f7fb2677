package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
)

// problem is the body of every error answer:
//
//	{"code": 400, "message": "...", "errors": [{"field": "spec.name", "type": "FieldValueInvalid", "detail": "..."}]}
//
// code is the HTTP status; errors, when present, name every field at fault.
type problem struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Errors  []fieldProblem `json:"errors,omitempty"`
}

// fieldProblem is one field at fault. Type is a Kubernetes field error
// type (FieldValueInvalid, FieldValueRequired, FieldValueDuplicate, ...)
// or, for bodies that cannot be decoded, UnknownField, DuplicateField or
// Malformed.
type fieldProblem struct {
	Field  string `json:"field,omitempty"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

// httpError is an error of the server itself with its code (it
// implements plan.Coder, so plan.CodeOf reads it like a library error).
type httpError struct {
	code int
	msg  string
	errs []fieldProblem
}

func (e *httpError) Error() string { return e.msg }
func (e *httpError) HTTPCode() int { return e.code }
func errorf(code int, format string, args ...any) error {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

// fieldError is a 400 on one field of a request (a query parameter or a
// body field that the library does not check).
func fieldError(fld, typ, format string, args ...any) error {
	detail := fmt.Sprintf(format, args...)
	return &httpError{code: http.StatusBadRequest, msg: fld + ": " + detail,
		errs: []fieldProblem{{Field: fld, Type: typ, Detail: detail}}}
}

var _ plan.Coder = (*httpError)(nil)

// conflictError is the answer to a write that lost a race: the object
// changed between the read and the write (Kubernetes answered Conflict),
// or the client's If-Match / resourceVersion is not the stored one.
func conflictError(what, name string) error {
	return errorf(http.StatusConflict,
		"%s %q was changed by someone else since it was read; nothing was written: re-read it and try again", what, name)
}

// toProblem turns any error into the problem to answer. The code comes
// from the error's type (plan.CodeOf), never from its text; errors of the
// Kubernetes API are mapped by their reason. Errors without a code are the
// server's fault: their text is logged, not shown.
func toProblem(err error, log *slog.Logger) problem {
	if p, ok := kubeProblem(err); ok {
		if p.Code >= 500 {
			log.Error("cluster error", "err", err)
		}
		return p
	}
	code := plan.CodeOf(err)
	if code >= 500 && code != http.StatusServiceUnavailable {
		log.Error("internal error", "err", err)
		return problem{Code: code, Message: "internal error; the server log has the details"}
	}
	return problem{Code: code, Message: err.Error(), Errors: fieldProblems(err)}
}

// kubeProblem maps an error of the Kubernetes API that reached a handler
// unconverted. Conflicts and not-found are normally converted where the
// object's name is known (conflictError, notFound).
func kubeProblem(err error) (problem, bool) {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return problem{}, false
	}
	switch {
	case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
		return problem{Code: http.StatusConflict, Message: se.Status().Message}, true
	case apierrors.IsNotFound(err):
		return problem{Code: http.StatusNotFound, Message: se.Status().Message}, true
	case apierrors.IsServiceUnavailable(err), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err),
		apierrors.IsTooManyRequests(err):
		return problem{Code: http.StatusServiceUnavailable, Message: "the cluster is not answering: " + se.Status().Message}, true
	case apierrors.IsInvalid(err):
		// The API server refused what the library accepted (the CRD's
		// own schema): a 400 with the server's causes.
		p := problem{Code: http.StatusBadRequest, Message: se.Status().Message}
		if d := se.Status().Details; d != nil {
			for _, c := range d.Causes {
				p.Errors = append(p.Errors, fieldProblem{Field: c.Field, Type: string(c.Type), Detail: c.Message})
			}
		}
		return p, true
	}
	return problem{Code: http.StatusBadGateway, Message: "the cluster refused the request: " + se.Status().Message}, true
}

// fieldProblems lists the fields at fault of the library's errors.
func fieldProblems(err error) []fieldProblem {
	var (
		ve *plan.ValidationError
		de *plan.DecodeError
		ae *plan.ActionError
		he *httpError
		ie *report.InputError
	)
	switch {
	case errors.As(err, &ve):
		out := make([]fieldProblem, 0, len(ve.Errs))
		for _, fe := range ve.Errs {
			out = append(out, fieldProblem{Field: fe.Field, Type: string(fe.Type), Detail: fe.ErrorBody()})
		}
		return out
	case errors.As(err, &de):
		out := make([]fieldProblem, 0, len(de.Problems))
		for _, p := range de.Problems {
			out = append(out, decodeProblem(p))
		}
		return out
	case errors.As(err, &ae):
		if ae.Field == nil {
			return nil
		}
		typ := "FieldValueInvalid"
		if ae.Code == http.StatusForbidden {
			typ = "FieldValueForbidden"
		}
		return []fieldProblem{{Field: ae.Field.String(), Type: typ, Detail: ae.Reason}}
	case errors.As(err, &ie):
		return []fieldProblem{{Field: ie.Field, Type: "FieldValueInvalid", Detail: fmt.Sprintf("%q: %s", ie.Value, ie.Reason)}}
	case errors.As(err, &he):
		return he.errs
	}
	return nil
}

// decodeProblem maps one of plan.DecodeError's problems to a field problem
// by its kind.
func decodeProblem(p plan.DecodeProblem) fieldProblem {
	switch p.Kind {
	case plan.ProblemUnknownField:
		return fieldProblem{Field: p.Field, Type: "UnknownField", Detail: "unknown field; this API refuses fields it does not know"}
	case plan.ProblemDuplicateField:
		return fieldProblem{Field: p.Field, Type: "DuplicateField", Detail: "the field is given twice"}
	}
	return fieldProblem{Field: p.Field, Type: string(p.Kind), Detail: p.Message()}
}

// writeError answers err as a problem. A 429 carries Retry-After.
func (s *Server) writeError(w http.ResponseWriter, _ *http.Request, err error) {
	p := toProblem(err, s.Log)
	var busy *report.BusyError
	if errors.As(err, &busy) {
		w.Header().Set("Retry-After", strconv.Itoa(busy.RetryAfterSeconds()))
	}
	writeJSON(w, p.Code, p)
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
