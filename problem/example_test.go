package problem_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/problem"
)

// The answer to an invalid plan, and to a fault of the embedder's own.
func ExampleOf() {
	err := plan.NewValidationError(field.ErrorList{field.Required(field.NewPath("spec", "templates"), "a plan needs a template")})
	b, _ := json.Marshal(problem.Of(err))
	fmt.Println(string(b))

	doc := problem.Of(errors.New("disk full"))
	fmt.Println(doc.Code, doc.Message, doc.Log)
	// Output:
	// {"type":"about:blank","title":"Bad Request","status":400,"detail":"spec.templates: Required value: a plan needs a template","errors":[{"field":"spec.templates","type":"FieldValueRequired","detail":"Required value: a plan needs a template"}]}
	// 500 internal error; the server log has the details true
}
