package plan_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

func TestProblemsOf(t *testing.T) {
	ns := field.NewPath("spec", "scope", "namespaces")
	cases := map[string]struct {
		err  error
		want []string
	}{
		"no error has no problems": {
			err: nil, want: nil,
		},
		"every field error is a problem, with the code it has alone": {
			err: plan.NewValidationError(field.ErrorList{
				field.NotFound(ns.Index(1), "payments"),
				field.Duplicate(field.NewPath("spec", "name"), "Holiday"),
				field.InternalError(ns.Index(0), errors.New("the excluded-namespace list cannot be read")),
			}),
			want: []string{
				`FieldValueNotFound spec.scope.namespaces[1]: Not found: "payments" (400)`,
				`FieldValueDuplicate spec.name: Duplicate value: "Holiday" (409)`,
				`InternalError spec.scope.namespaces[0]: Internal error: the excluded-namespace list cannot be read (503)`,
			},
		},
		"a body that does not decode lists its problems with their paths": {
			err:  decodeError(t, "metadata:\n  name: x\nspec:\n  scope:\n    namespace: [shop]\n"),
			want: []string{"Decode spec.scope.namespace: unknown field (400)"},
		},
		"a body that is not YAML says at which line, once (issue 17)": {
			err:  decodeError(t, "metadata:\n  name: x\nspec: [\n"),
			want: []string{"Decode line 3: did not find expected node content (400)"},
		},
		"a refused action is its field and reason, with its code": {
			err: &plan.ActionError{Action: "create", Reason: "approvalMode is not set", Code: http.StatusBadRequest,
				Field: field.NewPath("spec", "approvalMode")},
			want: []string{"Action spec.approvalMode: approvalMode is not set (400)"},
		},
		"a wrapped error is read by its type": {
			err:  fmt.Errorf("creating: %w", &plan.ActionError{Action: "create", Reason: "the plan was already created", Code: http.StatusConflict}),
			want: []string{"Action the plan was already created (409)"},
		},
		"any other error is itself, with its code": {
			err:  errors.New("boom"),
			want: []string{"Error boom (500)"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, p := range plan.ProblemsOf(c.err) {
				got = append(got, p.Type+" "+p.String())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func decodeError(t *testing.T, body string) error {
	t.Helper()
	var p plan.ProtectionPlan
	err := plan.Decode(strings.NewReader(body), &p, plan.WithFormat(plan.FormatYAML))
	var de *plan.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("Decode: %v, want a *plan.DecodeError", err)
	}
	return err
}

func ExampleProblemsOf() {
	err := plan.NewValidationError(field.ErrorList{
		field.Required(field.NewPath("spec", "templates"), "pick at least one template"),
		field.Duplicate(field.NewPath("spec", "name"), "Holiday freeze"),
	})
	for _, p := range plan.ProblemsOf(err) {
		fmt.Println(p)
	}
	fmt.Println("the plan:", plan.CodeOf(err))
	// Output:
	// spec.templates: Required value: pick at least one template (400)
	// spec.name: Duplicate value: "Holiday freeze" (409)
	// the plan: 400
}
