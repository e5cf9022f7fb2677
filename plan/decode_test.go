package plan

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/window"
)

const planYAML = `apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata:
  name: holiday
spec:
  name: Holiday freeze
  scope:
    namespaces: [shop, payments]
  templates:
  - name: scaling
    parameters:
      maxReplicas: 5
      allowScaleDown: false
  window:
    type: time_range
    startAt: 2026-12-24T18:00:00+01:00
    endAt: 2026-12-27T06:00:00+01:00
  mode: audit
`

const planJSON = `{
  "apiVersion": "telark.io/v1alpha1",
  "kind": "ProtectionPlan",
  "metadata": {"name": "holiday"},
  "spec": {
    "name": "Holiday freeze",
    "scope": {"namespaces": ["shop", "payments"]},
    "templates": [{"name": "scaling", "parameters": {"maxReplicas": "5", "allowScaleDown": "false"}}],
    "window": {"type": "time_range", "startAt": "2026-12-24T18:00:00+01:00", "endAt": "2026-12-27T06:00:00+01:00"},
    "mode": "audit"
  }
}`

func decodedHoliday() *ProtectionPlan {
	p := holiday()
	p.APIVersion, p.Kind = "telark.io/v1alpha1", "ProtectionPlan"
	p.Spec.ApprovalMode = ""
	p.Spec.Templates = []TemplateRef{{Name: "scaling", Parameters: map[string]string{"maxReplicas": "5", "allowScaleDown": "false"}}}
	p.Spec.Window = window.Spec{Type: window.TimeRange,
		StartAt: mt("Thu Dec 24 2026 18:00 Europe/Berlin"), EndAt: mt("Sun Dec 27 2026 06:00 Europe/Berlin")}
	return p
}

func TestDecode_ReadsJSONAndYAML(t *testing.T) {
	for name, body := range map[string]string{
		"a YAML plan decodes, numbers and booleans read as the strings they stand for": planYAML,
		"a JSON plan decodes": planJSON,
		"a YAML plan with a leading --- and a trailing comment decodes": "---\n" + planYAML + "---\n# nothing more\n",
	} {
		t.Run(name, func(t *testing.T) {
			var got ProtectionPlan
			if err := Decode(strings.NewReader(body), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decodedHoliday(), &got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecode_Refuses(t *testing.T) {
	cases := map[string]struct {
		body string
		opts []DecodeOption
		want error
	}{
		"an unknown YAML field is named by its path": {
			body: strings.Replace(planYAML, "namespaces:", "namespace:", 1),
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Field: "spec.scope.namespace", Kind: ProblemUnknownField}}},
		},
		"an unknown JSON field is named by its path": {
			body: strings.Replace(planJSON, `"namespaces"`, `"namespace"`, 1),
			want: &DecodeError{Format: FormatJSON, Problems: []DecodeProblem{{Field: "spec.scope.namespace", Kind: ProblemUnknownField}}},
		},
		"unknown fields inside lists are named with their index": {
			body: strings.Replace(planYAML, "  - name: scaling\n", "  - name: scaling\n    naem: x\n", 1),
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Field: "spec.templates[0].naem", Kind: ProblemUnknownField}}},
		},
		"an unknown YAML field with a line break in its name is quoted (issue 17)": {
			body: strings.Replace(planYAML, "  mode: audit", "  mode: audit\n  \"a\\nb: c\": 1", 1),
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Field: `spec["a\nb: c"]`, Kind: ProblemUnknownField}}},
		},
		"an unknown JSON field with a line break in its name is quoted": {
			body: strings.Replace(planJSON, `"mode": "audit"`, `"mode": "audit", "a\nb: c": 1`, 1),
			want: &DecodeError{Format: FormatJSON, Problems: []DecodeProblem{{Field: `"spec.a\nb: c"`, Kind: ProblemUnknownField}}},
		},
		"field names are case-sensitive": {
			body: strings.Replace(planYAML, "  mode: audit", "  Mode: audit", 1),
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Field: "spec.Mode", Kind: ProblemUnknownField}}},
		},
		"a YAML key given twice is refused with its line": {
			body: strings.Replace(planYAML, "  name: Holiday freeze\n", "  name: Holiday freeze\n  name: Other\n", 1),
			want: &DecodeError{Format: FormatYAML, Line: 7, Problems: []DecodeProblem{{Kind: ProblemMalformed, Detail: `unmarshal errors: key "name" already set in map`}}},
		},
		"a JSON key given twice is refused": {
			body: strings.Replace(planJSON, `"mode": "audit"`, `"mode": "audit", "mode": "enforce"`, 1),
			want: &DecodeError{Format: FormatJSON, Problems: []DecodeProblem{{Field: "spec.mode", Kind: ProblemDuplicateField}}},
		},
		"two YAML documents are refused": {
			body: planYAML + "---\n" + planYAML,
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Kind: ProblemSeveralDocuments, Detail: "the body holds 2 YAML documents; send exactly one"}}},
		},
		"malformed JSON is located by line and column": {
			body: "{\n  \"spec\": {\n    \"name\": \"x\",,\n  }\n}",
			want: &DecodeError{Format: FormatJSON, Line: 3, Column: 17, Problems: []DecodeProblem{{Kind: ProblemMalformed, Detail: "invalid character ',' looking for beginning of object key string"}}},
		},
		"malformed YAML is located by line": {
			body: "spec:\n  name: x\n    mode: audit\n",
			want: &DecodeError{Format: FormatYAML, Line: 3, Problems: []DecodeProblem{{Kind: ProblemMalformed, Detail: "mapping values are not allowed in this context"}}},
		},
		"a value of the wrong type names its field": {
			body: strings.Replace(planJSON, `"mode": "audit"`, `"mode": 5`, 1),
			want: &DecodeError{Format: FormatJSON, Problems: []DecodeProblem{{Field: "spec.mode", Kind: ProblemWrongType, Detail: "cannot use a number as a plan.Mode"}}},
		},
		"a YAML value of the wrong type names its field": {
			body: "spec:\n  templates: image-change\n",
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Field: "spec.templates", Kind: ProblemWrongType, Detail: "cannot use a string as a []plan.TemplateRef"}}},
		},
		"unknown fields and a type error are reported together": {
			body: "spec:\n  nmae: x\n  templates: image-change\n",
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{
				{Field: "spec.nmae", Kind: ProblemUnknownField}, {Field: "spec.templates", Kind: ProblemWrongType, Detail: "cannot use a string as a []plan.TemplateRef"}}},
		},
		"a malformed YAML time names its field, without Go's layout (issue 17)": {
			body: strings.Replace(strings.Replace(planYAML, "startAt: 2026-12-24T18:00:00+01:00", "startAt: 2026-12-24", 1),
				"endAt: 2026-12-27T06:00:00+01:00", "endAt: tomorrow", 1),
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{
				{Field: "spec.window.endAt", Kind: ProblemWrongType, Detail: `"tomorrow" is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00`},
				{Field: "spec.window.startAt", Kind: ProblemWrongType, Detail: `"2026-12-24" is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00`}}},
		},
		"a malformed JSON time names its field, and a long one is cut": {
			body: strings.Replace(planJSON, `"2026-12-27T06:00:00+01:00"`, `"`+strings.Repeat("9", 1000)+`"`, 1),
			want: &DecodeError{Format: FormatJSON, Problems: []DecodeProblem{
				{Field: "spec.window.endAt", Kind: ProblemWrongType, Detail: `"` + strings.Repeat("9", 79) + `… (1002 characters) is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00`}}},
		},
		"a time in the year 10000 in UTC is refused: it could not be written back": {
			body: strings.Replace(planYAML, "startAt: 2026-12-24T18:00:00+01:00", "startAt: 9999-12-31T23:00:00-05:00", 1),
			want: &DecodeError{Format: FormatYAML, Problems: []DecodeProblem{{Field: "spec.window.startAt", Kind: ProblemOutOfRange,
				Detail: "the time is in the year 10000 in UTC (10000-01-01T04:00:00Z); times are written in UTC, in the years 0000 to 9999"}}},
		},
		"the zero time is refused where it would be written as no time": {
			body: strings.Replace(planJSON, `"endAt": "2026-12-27T06:00:00+01:00"`, `"endAt": "0001-01-01T00:00:00Z"`, 1),
			want: &DecodeError{Format: FormatJSON, Problems: []DecodeProblem{{Field: "spec.window.endAt", Kind: ProblemOutOfRange,
				Detail: "0001-01-01T00:00:00Z is the zero time, which is written as null (no time); leave the field out instead"}}},
		},
		"an empty body is refused": {
			body: " \n\t",
			want: &DecodeError{Problems: []DecodeProblem{{Kind: ProblemEmpty, Detail: "the body is empty"}}},
		},
		"a body over the limit is too large": {
			body: planYAML, opts: []DecodeOption{WithMaxBytes(100)},
			want: &TooLargeError{Limit: 100},
		},
		"a body over 1 MiB is too large by default": {
			body: "spec:\n  description: " + strings.Repeat("x", DefaultMaxBodyBytes) + "\n",
			want: &TooLargeError{Limit: DefaultMaxBodyBytes},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p ProtectionPlan
			err := Decode(strings.NewReader(tc.body), &p, tc.opts...)
			if diff := cmp.Diff(tc.want, err); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if want := CodeOf(tc.want); CodeOf(err) != want {
				t.Errorf("code = %d, want %d", CodeOf(err), want)
			}
		})
	}
}

func TestDecode_Codes(t *testing.T) {
	if got := CodeOf(&DecodeError{}); got != http.StatusBadRequest {
		t.Errorf("DecodeError code = %d", got)
	}
	if got := CodeOf(&TooLargeError{}); got != http.StatusRequestEntityTooLarge {
		t.Errorf("TooLargeError code = %d", got)
	}
}

func TestDecode_RecognisesHTTPMaxBytesReader(t *testing.T) {
	body := http.MaxBytesReader(httptest.NewRecorder(), readCloser{strings.NewReader(planYAML)}, 10)
	var p ProtectionPlan
	err := Decode(body, &p)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 10 {
		t.Fatalf("err = %v, want a *TooLargeError with the reader's limit", err)
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

func TestDecodeError_Message(t *testing.T) {
	err := &DecodeError{Format: FormatYAML, Line: 7, Problems: []DecodeProblem{
		{Field: "spec.nmae", Kind: ProblemUnknownField},
		{Field: "spec.mode", Kind: ProblemWrongType, Detail: "cannot use a number as a plan.Mode"},
		{Kind: ProblemMalformed, Detail: "b"},
	}}
	want := "invalid YAML body at line 7: spec.nmae: unknown field; spec.mode: cannot use a number as a plan.Mode; b"
	if got := err.Error(); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
