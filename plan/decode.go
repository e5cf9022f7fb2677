package plan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// DefaultMaxBodyBytes is the largest body Decode reads: 1 MiB.
const DefaultMaxBodyBytes = 1 << 20

// Format is the syntax of a body.
type Format string

// Formats Decode reads.
const (
	// FormatAuto picks JSON when the first non-space byte is '{', YAML
	// otherwise.
	FormatAuto Format = ""
	FormatJSON Format = "json"
	FormatYAML Format = "yaml"
)

// DecodeOption changes how Decode reads a body.
type DecodeOption func(*decodeOptions)

type decodeOptions struct {
	maxBytes int64
	format   Format
}

// WithMaxBytes sets the size limit (default DefaultMaxBodyBytes). Values
// <= 0 keep the default.
func WithMaxBytes(n int64) DecodeOption {
	return func(o *decodeOptions) {
		if n > 0 {
			o.maxBytes = n
		}
	}
}

// WithFormat forces JSON or YAML (e.g. from a Content-Type header) instead
// of guessing from the first byte.
func WithFormat(f Format) DecodeOption {
	return func(o *decodeOptions) { o.format = f }
}

// Decode reads one JSON or YAML document from r into into (a pointer, e.g.
// *ProtectionPlan), strictly:
//
//   - a body over the limit is a *TooLargeError (413);
//   - malformed input, a field into does not have (with its path, e.g.
//     "spec.scope.namespace: unknown field"), a key given twice, a value
//     of the wrong type, an empty body, or more than one YAML document is a
//     *DecodeError (400), with the line (and column) where known;
//   - so is a time that could not be written back as it was read: a
//     metav1.Time is written in UTC and RFC 3339, which holds the years
//     0000 to 9999 only, and the zero time is written as null.
//
// Field names are case-sensitive, as in Kubernetes. In YAML, a number or
// boolean written where a string is expected is taken as its text (so
// `maxReplicas: 5` fills a map of strings). On error, into may be partly
// filled.
func Decode(r io.Reader, into any, opts ...DecodeOption) error {
	o := decodeOptions{maxBytes: DefaultMaxBodyBytes}
	for _, opt := range opts {
		opt(&o)
	}
	data, err := readLimited(r, o.maxBytes)
	if err != nil {
		return err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return &DecodeError{Format: o.format, Problems: []DecodeProblem{{Kind: ProblemEmpty, Detail: "the body is empty"}}}
	}
	if o.format == FormatJSON || o.format == FormatAuto && trimmed[0] == '{' {
		return decodeJSON(data, into)
	}
	return decodeYAML(data, into)
}

// readLimited reads r up to max bytes; more is a *TooLargeError. A reader
// that enforces its own limit (http.MaxBytesReader) is recognised too.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, &TooLargeError{Limit: mbe.Limit}
	case err != nil:
		return nil, fmt.Errorf("reading the body: %w", err)
	case int64(len(data)) > max:
		return nil, &TooLargeError{Limit: max}
	}
	return data, nil
}

func decodeJSON(data []byte, into any) error {
	strict, err := sigsjson.UnmarshalStrict(data, into)
	if err != nil {
		if times := timeErrors(data, into, err); times != nil {
			return &DecodeError{Format: FormatJSON, Problems: times}
		}
		return jsonError(data, err)
	}
	de := &DecodeError{Format: FormatJSON}
	for _, e := range strict {
		de.Problems = append(de.Problems, strictProblem(e))
	}
	de.Problems = append(de.Problems, timeProblems(into)...)
	if len(de.Problems) == 0 {
		return nil
	}
	return de
}

// strictProblem turns a strict error of sigs.k8s.io/json into an unknown
// or duplicate field problem. sigs.k8s.io/json has one error type for both;
// its text is the only thing that tells them apart, and this is the one
// place that reads it.
func strictProblem(err error) DecodeProblem {
	var fe sigsjson.FieldError
	if !errors.As(err, &fe) {
		return DecodeProblem{Kind: ProblemMalformed, Detail: err.Error()}
	}
	path := fe.FieldPath()
	if strings.IndexFunc(path, unicode.IsControl) >= 0 {
		path = strconv.Quote(path) // a name that would break the line
	}
	if strings.HasPrefix(err.Error(), "duplicate field") {
		return DecodeProblem{Field: path, Kind: ProblemDuplicateField}
	}
	return DecodeProblem{Field: path, Kind: ProblemUnknownField}
}

func jsonError(data []byte, err error) error {
	de := &DecodeError{Format: FormatJSON}
	if ok, off := sigsjson.SyntaxErrorOffset(err); ok {
		// The offset counts the offending byte; locate that byte.
		de.Line, de.Column = lineColumn(data, max(off-1, 0))
		de.Problems = []DecodeProblem{{Kind: ProblemMalformed, Detail: strings.TrimPrefix(err.Error(), "json: ")}}
		return de
	}
	de.Problems = []DecodeProblem{typeProblem(err)}
	return de
}

// typeProblem makes a type error a wrong-type problem at its field.
func typeProblem(err error) DecodeProblem {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return DecodeProblem{Field: te.Field, Kind: ProblemWrongType,
			Detail: fmt.Sprintf("cannot use a %s as a %s", te.Value, te.Type)}
	}
	return DecodeProblem{Kind: ProblemMalformed, Detail: strings.TrimPrefix(err.Error(), "json: ")}
}

// lineColumn returns the 1-based line and column of the byte at index i.
func lineColumn(data []byte, i int64) (line, col int) {
	i = min(i, int64(len(data)))
	before := data[:i]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(i) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// decodeYAML refuses several documents and duplicate keys, looks for
// unknown fields by walking the document against into's type, and decodes
// with sigs.k8s.io/yaml (which reads scalars by the target's types).
// Unknown fields and a type error (or a time out of range) are reported
// together.
func decodeYAML(data []byte, into any) error {
	n, err := countDocuments(data)
	if err != nil {
		return yamlError(err)
	}
	if n > 1 {
		return &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Kind: ProblemSeveralDocuments,
			Detail: fmt.Sprintf("the body holds %d YAML documents; send exactly one", n)}}}
	}
	doc, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return yamlError(err)
	}
	var tree any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(doc, &tree); err != nil {
		return yamlError(err)
	}
	de := &DecodeError{Format: FormatYAML}
	for _, path := range unknownFields(tree, into) {
		de.Problems = append(de.Problems, DecodeProblem{Field: path, Kind: ProblemUnknownField})
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		if times := timeErrors(doc, into, err); times != nil {
			de.Problems = append(de.Problems, times...)
			return de
		}
		te := yamlError(err)
		de.Line, de.Problems = te.Line, append(de.Problems, te.Problems...)
	} else {
		de.Problems = append(de.Problems, timeProblems(into)...)
	}
	if len(de.Problems) > 0 {
		return de
	}
	return nil
}

// timeErrors is the malformed times of the JSON document data, with
// their paths (badTimes), when err is a time that did not parse; nil
// otherwise.
func timeErrors(data []byte, into any, err error) []DecodeProblem {
	var pe *time.ParseError
	if !errors.As(err, &pe) {
		return nil
	}
	var tree any
	if sigsjson.UnmarshalCaseSensitivePreserveInts(data, &tree) != nil {
		return nil
	}
	return badTimes(tree, into)
}

// countDocuments counts the YAML documents that hold more than comments.
func countDocuments(data []byte) (int, error) {
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	n := 0
	for {
		doc, err := rd.Read()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if hasContent(doc) {
			n++
		}
	}
}

func hasContent(doc []byte) bool {
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && line != "---" && line != "..." {
			return true
		}
	}
	return false
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

func yamlError(err error) *DecodeError {
	de := &DecodeError{Format: FormatYAML}
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "error unmarshaling JSON: while decoding JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.Join(strings.Fields(msg), " ")
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		// The line is the error's Line; the text says it once, not again.
		de.Line, _ = strconv.Atoi(msg[m[2]:m[3]])
		if strings.HasPrefix(msg[m[1]:], ": ") {
			msg = msg[:m[0]] + msg[m[1]+2:]
		}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		de.Problems = []DecodeProblem{typeProblem(te)}
		return de
	}
	de.Problems = []DecodeProblem{{Kind: ProblemMalformed, Detail: msg}}
	return de
}

// DecodeError is a body that could not be decoded: malformed, with unknown
// or duplicate fields, of the wrong types, or with several documents.
type DecodeError struct {
	// Format is json or yaml.
	Format Format
	// Line and Column locate the problem (1-based; 0 when unknown).
	Line, Column int
	// Problems are what is wrong, each with its field path when it has
	// one (String gives e.g. "spec.scope.namespace: unknown field").
	Problems []DecodeProblem
}

// ProblemKind classifies a decode problem, so that callers (an API's error
// body, a CLI) never have to parse the message.
type ProblemKind string

// Problem kinds.
const (
	ProblemUnknownField     ProblemKind = "UnknownField"
	ProblemDuplicateField   ProblemKind = "DuplicateField"
	ProblemWrongType        ProblemKind = "WrongType"
	ProblemMalformed        ProblemKind = "Malformed"
	ProblemSeveralDocuments ProblemKind = "SeveralDocuments"
	ProblemEmpty            ProblemKind = "Empty"
	// ProblemOutOfRange is a time that could not be written back as it
	// was read (see Decode).
	ProblemOutOfRange ProblemKind = "OutOfRange"
)

// DecodeProblem is one thing wrong with a body.
type DecodeProblem struct {
	// Field is the field path, e.g. spec.scope.namespace; empty when the
	// problem is not about one field.
	Field string
	// Kind says what is wrong.
	Kind ProblemKind
	// Detail says more; empty for unknown and duplicate fields.
	Detail string
}

// Message says what is wrong, without the field path.
func (p DecodeProblem) Message() string {
	switch p.Kind {
	case ProblemUnknownField:
		return "unknown field"
	case ProblemDuplicateField:
		return "duplicate field"
	}
	return p.Detail
}

// String is "<field>: <message>", or the message alone when there is no
// field.
func (p DecodeProblem) String() string {
	if p.Field == "" {
		return p.Message()
	}
	return p.Field + ": " + p.Message()
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("invalid ")
	if e.Format != "" {
		b.WriteString(strings.ToUpper(string(e.Format)) + " ")
	}
	b.WriteString("body")
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ", column %d", e.Column)
		}
	}
	b.WriteString(": ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// HTTPCode is 400.
func (e *DecodeError) HTTPCode() int { return http.StatusBadRequest }

// TooLargeError is a body over the size limit.
type TooLargeError struct {
	// Limit is the limit in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the body is larger than the limit of %d bytes", e.Limit)
}

// HTTPCode is 413.
func (e *TooLargeError) HTTPCode() int { return http.StatusRequestEntityTooLarge }
