package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
)

// Document is the body of an error answer, an RFC 9457 problem detail
// (served as ContentType):
//
//	{"type": "about:blank", "title": "Bad Request", "status": 400, "detail": "...",
//	 "errors": [{"field": "spec.name", "type": "FieldValueInvalid", "detail": "..."}]}
//
// Code is the HTTP status (the member "status"), Message the member
// "detail"; the title is the status's phrase, as RFC 9457 asks of the
// type about:blank. Errors, an extension member, name every field at
// fault.
type Document struct {
	Code    int
	Message string
	Errors  []Field
	// Log says that the error is the embedder's concern (a fault of its
	// own, or of the cluster): log it. Its text is in Message only when
	// it tells the caller what to fix.
	Log bool
}

// ContentType is the media type of a Document (RFC 9457).
const ContentType = "application/problem+json"

// TypeBlank is the problem type of every Document: the status code says
// it all, and Errors says which fields.
const TypeBlank = "about:blank"

// wire is a Document as RFC 9457 writes it.
type wire struct {
	Type   string  `json:"type"`
	Title  string  `json:"title"`
	Status int     `json:"status"`
	Detail string  `json:"detail,omitempty"`
	Errors []Field `json:"errors,omitempty"`
}

// MarshalJSON writes the RFC 9457 members.
func (d Document) MarshalJSON() ([]byte, error) {
	return json.Marshal(wire{Type: TypeBlank, Title: http.StatusText(d.Code), Status: d.Code, Detail: d.Message, Errors: d.Errors})
}

// UnmarshalJSON reads what MarshalJSON writes (a client's view: Log is
// not sent).
func (d *Document) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = Document{Code: w.Status, Message: w.Detail, Errors: w.Errors}
	return nil
}

// Field is one field at fault. Type is a Kubernetes field error type
// (FieldValueInvalid, FieldValueRequired, FieldValueDuplicate, ...) or,
// for bodies that cannot be decoded, a plan.ProblemKind (UnknownField,
// DuplicateField, Malformed, ...).
type Field struct {
	Field  string `json:"field,omitempty"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
}

// InternalMessage is the message of an error without a code.
const InternalMessage = "internal error; the server log has the details"

// Of decides the document of err (nil is a 200 without message). An error
// of the Kubernetes API is mapped by its reason (Kubernetes); any other
// takes plan.CodeOf's code, and its message and fields, except that an
// error coded 500 or more, other than 503 (a lookup that failed, whose
// text says what to fix), is the embedder's fault: its text is withheld
// and Log is set.
func Of(err error) Document {
	if err == nil {
		return Document{Code: http.StatusOK}
	}
	if d, ok := Kubernetes(err); ok {
		return d
	}
	code := plan.CodeOf(err)
	if code >= 500 && code != http.StatusServiceUnavailable {
		return Document{Code: code, Message: InternalMessage, Log: true}
	}
	return Document{Code: code, Message: err.Error(), Errors: Fields(err)}
}

// Fields lists the fields at fault of an error, by its type: every
// problem of a *plan.ValidationError and of a *plan.DecodeError, the
// field of a *plan.ActionError (FieldValueForbidden when it is a 403), and
// a *report.InputError's. Other errors name none: an embedder's own field
// errors are a *plan.ValidationError.
func Fields(err error) []Field {
	var (
		ve *plan.ValidationError
		de *plan.DecodeError
		ae *plan.ActionError
		ie *report.InputError
	)
	switch {
	case errors.As(err, &ve):
		out := make([]Field, 0, len(ve.Errs))
		for _, e := range ve.Errs {
			out = append(out, Field{Field: e.Field, Type: string(e.Type), Detail: e.ErrorBody()})
		}
		return out
	case errors.As(err, &de):
		out := make([]Field, 0, len(de.Problems))
		for _, p := range de.Problems {
			out = append(out, decodeField(p))
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
		return []Field{{Field: ae.Field.String(), Type: typ, Detail: ae.Reason}}
	case errors.As(err, &ie):
		return []Field{{Field: ie.Field, Type: "FieldValueInvalid", Detail: fmt.Sprintf("%q: %s", ie.Value, ie.Reason)}}
	}
	return nil
}

// decodeField is one of plan.DecodeError's problems, by its kind.
func decodeField(p plan.DecodeProblem) Field {
	switch p.Kind {
	case plan.ProblemUnknownField:
		return Field{Field: p.Field, Type: string(p.Kind), Detail: "unknown field; this API refuses fields it does not know"}
	case plan.ProblemDuplicateField:
		return Field{Field: p.Field, Type: string(p.Kind), Detail: "the field is given twice"}
	}
	return Field{Field: p.Field, Type: string(p.Kind), Detail: p.Message()}
}

// Kubernetes maps an error of the Kubernetes API (an APIStatus) by its
// reason, and reports false for any other error: a conflict or an
// existing name is 409, not found 404, an API server that does not
// answer (unavailable, timeouts, throttling) 503, an object the API
// server refused as invalid (the CRD's schema) 400 with its causes, and
// anything else 502. Log is set from 500 up. An embedder that knows the
// object's name converts conflicts and not-found before they get here.
func Kubernetes(err error) (Document, bool) {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return Document{}, false
	}
	msg := se.Status().Message
	var d Document
	switch {
	case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
		d = Document{Code: http.StatusConflict, Message: msg}
	case apierrors.IsNotFound(err):
		d = Document{Code: http.StatusNotFound, Message: msg}
	case apierrors.IsServiceUnavailable(err), apierrors.IsTimeout(err), apierrors.IsServerTimeout(err),
		apierrors.IsTooManyRequests(err):
		d = Document{Code: http.StatusServiceUnavailable, Message: "the cluster is not answering: " + msg}
	case apierrors.IsInvalid(err):
		d = Document{Code: http.StatusBadRequest, Message: msg}
		if det := se.Status().Details; det != nil {
			for _, c := range det.Causes {
				d.Errors = append(d.Errors, Field{Field: c.Field, Type: string(c.Type), Detail: c.Message})
			}
		}
	default:
		d = Document{Code: http.StatusBadGateway, Message: "the cluster refused the request: " + msg}
	}
	d.Log = d.Code >= 500
	return d, true
}
