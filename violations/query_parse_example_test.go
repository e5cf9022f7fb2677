package violations_test

import (
	"fmt"
	"net/url"

	"github.com/telark/protectionplans/violations"
)

// A feed query read from a request: ?limit=2&result=fail.
func ExampleParseQuery() {
	q, err := violations.ParseQuery(url.Values{"limit": {"2"}, "result": {"fail"}}, "black-friday")
	fmt.Println(q.Plan, q.Limit, q.Results, err)
	_, err = violations.ParseQuery(url.Values{"result": {"blocked"}}, "black-friday")
	fmt.Println(err)
	// Output:
	// black-friday 2 [fail] <nil>
	// result: Unsupported value: "blocked": supported values: "pass", "fail", "warn", "error", "skip"
}
