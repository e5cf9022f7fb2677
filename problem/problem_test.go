package problem_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/problem"
	"github.com/telark/protectionplans/report"
)

// coded is an error with a code and no fields.
type coded struct {
	code int
	msg  string
}

func (e coded) Error() string { return e.msg }
func (e coded) HTTPCode() int { return e.code }

var (
	plansResource = schema.GroupResource{Group: "telark.io", Resource: "protectionplans"}
	invalidName   = field.Invalid(field.NewPath("spec", "name"), "{{ x }}", "must not contain template syntax")
)

func TestOf(t *testing.T) {
	cases := map[string]struct {
		err  error
		want problem.Document
	}{
		"no error": {want: problem.Document{Code: http.StatusOK}},
		"every validation problem, with its path and type": {
			err: plan.NewValidationError(field.ErrorList{invalidName, field.Required(field.NewPath("spec", "templates"), "a plan needs a template")}),
			want: problem.Document{Code: http.StatusBadRequest,
				Message: `[spec.name: Invalid value: "{{ x }}": must not contain template syntax, spec.templates: Required value: a plan needs a template]`,
				Errors: []problem.Field{
					{Field: "spec.name", Type: "FieldValueInvalid", Detail: `Invalid value: "{{ x }}": must not contain template syntax`},
					{Field: "spec.templates", Type: "FieldValueRequired", Detail: "Required value: a plan needs a template"}}},
		},
		"a name taken is 409, with its field": {
			err: plan.NewValidationError(field.ErrorList{field.Duplicate(field.NewPath("spec", "name"), "Black Friday")}),
			want: problem.Document{Code: http.StatusConflict, Message: `spec.name: Duplicate value: "Black Friday"`,
				Errors: []problem.Field{{Field: "spec.name", Type: "FieldValueDuplicate", Detail: `Duplicate value: "Black Friday"`}}},
		},
		"a lookup that failed is 503, shown, not logged": {
			err: plan.NewValidationError(field.ErrorList{field.InternalError(field.NewPath("spec", "scope"), errors.New("the excluded-namespace list cannot be read"))}),
			want: problem.Document{Code: http.StatusServiceUnavailable, Message: "spec.scope: Internal error: the excluded-namespace list cannot be read",
				Errors: []problem.Field{{Field: "spec.scope", Type: "InternalError", Detail: "Internal error: the excluded-namespace list cannot be read"}}},
		},
		"a wrapped error keeps its type": {
			err: fmt.Errorf("create: %w", plan.NewValidationError(field.ErrorList{invalidName})),
			want: problem.Document{Code: http.StatusBadRequest, Message: `create: spec.name: Invalid value: "{{ x }}": must not contain template syntax`,
				Errors: []problem.Field{{Field: "spec.name", Type: "FieldValueInvalid", Detail: `Invalid value: "{{ x }}": must not contain template syntax`}}},
		},
		"a body that cannot be decoded, problem by problem": {
			err: &plan.DecodeError{Format: plan.FormatJSON, Problems: []plan.DecodeProblem{{Field: "spec.colour", Kind: plan.ProblemUnknownField},
				{Field: "spec.name", Kind: plan.ProblemDuplicateField}, {Field: "spec.mode", Kind: plan.ProblemWrongType, Detail: "a string is expected"}}},
			want: problem.Document{Code: http.StatusBadRequest,
				Message: "invalid JSON body: spec.colour: unknown field; spec.name: duplicate field; spec.mode: a string is expected",
				Errors: []problem.Field{{Field: "spec.colour", Type: "UnknownField", Detail: "unknown field; this API refuses fields it does not know"},
					{Field: "spec.name", Type: "DuplicateField", Detail: "the field is given twice"},
					{Field: "spec.mode", Type: "WrongType", Detail: "a string is expected"}}},
		},
		"a refused action on a field": {
			err: &plan.ActionError{Action: "reactivate", Phase: plan.PhaseTerminated, Reason: "the window has ended", Code: http.StatusBadRequest,
				Field: field.NewPath("spec", "window")},
			want: problem.Document{Code: http.StatusBadRequest, Message: "cannot reactivate a terminated plan: spec.window: the window has ended",
				Errors: []problem.Field{{Field: "spec.window", Type: "FieldValueInvalid", Detail: "the window has ended"}}},
		},
		"a forbidden action on a field": {
			err: &plan.ActionError{Action: "approve", Phase: plan.PhasePendingApproval, Reason: "you proposed it", Code: http.StatusForbidden,
				Field: field.NewPath("requestID")},
			want: problem.Document{Code: http.StatusForbidden, Message: "cannot approve a pending_approval plan: requestID: you proposed it",
				Errors: []problem.Field{{Field: "requestID", Type: "FieldValueForbidden", Detail: "you proposed it"}}},
		},
		"a refused action without a field names none": {
			err:  &plan.ActionError{Action: "cancel", Phase: plan.PhaseCanceled, Reason: "already canceled", Code: http.StatusConflict},
			want: problem.Document{Code: http.StatusConflict, Message: "cannot cancel a canceled plan: already canceled"},
		},
		"a report request with a bad parameter": {
			err: &report.InputError{Field: "format", Value: "pdf", Reason: "use html, markdown, json or csv"},
			want: problem.Document{Code: http.StatusBadRequest, Message: `report: format "pdf": use html, markdown, json or csv`,
				Errors: []problem.Field{{Field: "format", Type: "FieldValueInvalid", Detail: `"pdf": use html, markdown, json or csv`}}},
		},
		"too many renders at once": {
			err:  &report.BusyError{Limit: 2, RetryAfter: 5 * time.Second},
			want: problem.Document{Code: http.StatusTooManyRequests, Message: "report: 2 renders are already running; retry after 5s"},
		},
		"an error of the embedder's own that says what to fix (503) is shown": {
			err:  coded{code: http.StatusServiceUnavailable, msg: "cannot list the plans: forbidden"},
			want: problem.Document{Code: http.StatusServiceUnavailable, Message: "cannot list the plans: forbidden"},
		},
		"an error without a code is hidden and logged": {
			err:  errors.New("open /var/lib/reports/bf/ledger.json: permission denied"),
			want: problem.Document{Code: http.StatusInternalServerError, Message: problem.InternalMessage, Log: true},
		},
		"a 500 of the embedder's is hidden and logged": {
			err:  coded{code: http.StatusInternalServerError, msg: "ledger corrupt"},
			want: problem.Document{Code: http.StatusInternalServerError, Message: problem.InternalMessage, Log: true},
		},
		"a conflict of the API server": {
			err:  apierrors.NewConflict(plansResource, "bf", errors.New("the object has been modified")),
			want: problem.Document{Code: http.StatusConflict, Message: `Operation cannot be fulfilled on protectionplans.telark.io "bf": the object has been modified`},
		},
		"an object the API server does not have": {
			err:  apierrors.NewNotFound(plansResource, "bf"),
			want: problem.Document{Code: http.StatusNotFound, Message: `protectionplans.telark.io "bf" not found`},
		},
		"an API server that does not answer is 503, logged": {
			err:  apierrors.NewServiceUnavailable("etcd is down"),
			want: problem.Document{Code: http.StatusServiceUnavailable, Message: "the cluster is not answering: etcd is down", Log: true},
		},
		"an object the CRD's schema refuses, with its causes": {
			err: apierrors.NewInvalid(schema.GroupKind{Group: "telark.io", Kind: "ProtectionPlan"}, "bf",
				field.ErrorList{field.Invalid(field.NewPath("spec", "mode"), "lock", "supported values: audit, enforce")}),
			want: problem.Document{Code: http.StatusBadRequest,
				Message: `ProtectionPlan.telark.io "bf" is invalid: spec.mode: Invalid value: "lock": supported values: audit, enforce`,
				Errors:  []problem.Field{{Field: "spec.mode", Type: "FieldValueInvalid", Detail: `Invalid value: "lock": supported values: audit, enforce`}}},
		},
		"anything else the cluster refuses is 502, logged": {
			err: apierrors.NewForbidden(plansResource, "bf", errors.New("RBAC")),
			want: problem.Document{Code: http.StatusBadGateway, Log: true,
				Message: `the cluster refused the request: protectionplans.telark.io "bf" is forbidden: RBAC`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, problem.Of(tc.err)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// The wire form is RFC 9457's: a client that knows only the RFC reads the
// status and the detail; the fields at fault are an extension member.
func TestDocument_JSON(t *testing.T) {
	cases := map[string]struct {
		doc  problem.Document
		want string
	}{
		"a problem with fields names the status's phrase as its title": {
			doc:  problem.Document{Code: 400, Message: "spec.name: bad", Errors: []problem.Field{{Field: "spec.name", Type: "FieldValueInvalid", Detail: "bad"}}},
			want: `{"type":"about:blank","title":"Bad Request","status":400,"detail":"spec.name: bad","errors":[{"field":"spec.name","type":"FieldValueInvalid","detail":"bad"}]}`,
		},
		"a problem without fields has no errors member, and Log is never sent": {
			doc:  problem.Document{Code: 412, Message: "stale", Log: true},
			want: `{"type":"about:blank","title":"Precondition Failed","status":412,"detail":"stale"}`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(c.doc)
			if err != nil || string(b) != c.want {
				t.Fatalf("got %s (%v)\nwant %s", b, err, c.want)
			}
			var back problem.Document
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			c.doc.Log = false
			if diff := cmp.Diff(c.doc, back); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
