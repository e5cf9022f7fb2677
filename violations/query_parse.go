package violations

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// Results returns every result, in PolicyReport's order.
func Results() []Result {
	return []Result{ResultPass, ResultFail, ResultWarn, ResultError, ResultSkip}
}

// ParseQuery reads a feed query of plan planID from a request's query:
// ?limit= (a whole number from 1; Feed lowers it to MaxLimit), ?cursor=
// and ?result= (repeatable). A bad limit or an unknown result is a
// *plan.ValidationError on "limit" or "result" (400); the cursor is
// checked by Feed.
func ParseQuery(q url.Values, planID string) (Query, error) {
	fq := Query{Plan: planID, Cursor: q.Get("cursor")}
	var errs field.ErrorList
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			errs = append(errs, field.Invalid(field.NewPath("limit"), l,
				fmt.Sprintf("is not a page size: give a whole number from 1 (at most %d are returned)", MaxLimit)))
		}
		fq.Limit = n
	}
	for _, res := range q["result"] {
		if !slices.Contains(Results(), Result(res)) {
			errs = append(errs, field.NotSupported(field.NewPath("result"), res, Results()))
			continue
		}
		fq.Results = append(fq.Results, Result(res))
	}
	return fq, plan.NewValidationError(errs)
}
