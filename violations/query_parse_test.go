package violations_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

func TestParseQuery(t *testing.T) {
	cases := map[string]struct {
		query string
		want  violations.Query
		// wantErrs are "<field> <type>" of every field at fault.
		wantErrs []string
	}{
		"no parameter: the plan's first page of the default size": {want: violations.Query{Plan: "bf"}},
		"a limit, a cursor and two results": {
			query: "limit=2&cursor=abc&result=fail&result=warn",
			want:  violations.Query{Plan: "bf", Limit: 2, Cursor: "abc", Results: []violations.Result{violations.ResultFail, violations.ResultWarn}},
		},
		"a limit over the maximum is taken, for Feed to lower": {query: "limit=5000", want: violations.Query{Plan: "bf", Limit: 5000}},
		"a limit that is not a number":                         {query: "limit=lots", wantErrs: []string{"limit FieldValueInvalid"}},
		"a limit under 1":                                      {query: "limit=0", wantErrs: []string{"limit FieldValueInvalid"}},
		"an unknown result, and a bad limit, at once": {
			query: "limit=-1&result=fail&result=blocked", wantErrs: []string{"limit FieldValueInvalid", "result FieldValueNotSupported"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			got, err := violations.ParseQuery(q, "bf")
			if tc.wantErrs == nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("(-want +got)\n%s", diff)
				}
				return
			}
			var ve *plan.ValidationError
			if !errors.As(err, &ve) || plan.CodeOf(err) != 400 {
				t.Fatalf("err = %v", err)
			}
			var fields []string
			for _, e := range ve.Errs {
				fields = append(fields, e.Field+" "+string(e.Type))
			}
			if diff := cmp.Diff(tc.wantErrs, fields); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	t.Run("the limit's message says what to give", func(t *testing.T) {
		_, err := violations.ParseQuery(url.Values{"limit": {"lots"}}, "bf")
		want := field.Invalid(field.NewPath("limit"), "lots", "is not a page size: give a whole number from 1 (at most 200 are returned)").Error()
		if err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	})
}
