package plan

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Problem is one thing wrong with a plan, with its field path and code: a
// line of a linter's answer (protectctl validate lists them).
type Problem struct {
	// Field is the path, e.g. spec.scope.namespaces[1]; empty when the
	// problem has none (a body that is not YAML).
	Field string `json:"field,omitempty"`
	// Type is the field error type (FieldValueInvalid, ...), or Decode,
	// Action or Error for the other errors (see ProblemsOf).
	Type string `json:"type"`
	// Code is the HTTP-like code of this problem alone.
	Code int `json:"code"`
	// Detail says what is wrong.
	Detail string `json:"detail"`
	// Line is the line of the body, when the decoder knows it.
	Line int `json:"line,omitempty"`
}

// String is "line 3: spec.x.y: detail (400)", without the parts that are
// not known.
func (p Problem) String() string {
	s := p.Detail
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.Line > 0 {
		s = fmt.Sprintf("line %d: %s", p.Line, s)
	}
	return fmt.Sprintf("%s (%d)", s, p.Code)
}

// ProblemsOf lists the problems of an error of this package, by its type:
// every field error of a *ValidationError (each with the code it would
// have alone), every problem of a *DecodeError (type Decode), the field
// and reason of an *ActionError (type Action), or the error itself (type
// Error, code CodeOf). Nil for nil.
func ProblemsOf(err error) []Problem {
	var ve *ValidationError
	var de *DecodeError
	var ae *ActionError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		out := make([]Problem, len(ve.Errs))
		for i, fe := range ve.Errs {
			out[i] = Problem{Field: fe.Field, Type: string(fe.Type), Detail: fe.ErrorBody(),
				Code: CodeOf(&ValidationError{Errs: field.ErrorList{fe}})}
		}
		return out
	case errors.As(err, &de):
		out := make([]Problem, len(de.Problems))
		for i, p := range de.Problems {
			out[i] = Problem{Type: "Decode", Code: de.HTTPCode(), Field: p.Field, Detail: p.Message(), Line: de.Line}
		}
		return out
	case errors.As(err, &ae):
		p := Problem{Type: "Action", Code: ae.Code, Detail: ae.Reason}
		if ae.Field != nil {
			p.Field = ae.Field.String()
		}
		return []Problem{p}
	}
	return []Problem{{Type: "Error", Code: CodeOf(err), Detail: err.Error()}}
}
