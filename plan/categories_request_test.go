package plan_test

import (
	"net/http"
	"testing"

	"github.com/telark/protectionplans/plan"
)

func TestParseCategoryKind(t *testing.T) {
	cases := map[string]struct {
		in       string
		want     plan.CategoryKind
		wantCode int
	}{
		"environment":                            {in: "environment", want: plan.KindEnvironment},
		"tag":                                    {in: "tag", want: plan.KindTag},
		"any other kind names no category (404)": {in: "colour", wantCode: http.StatusNotFound},
		"kinds are spelled in lower case only (404)": {in: "Tag", wantCode: http.StatusNotFound},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := plan.ParseCategoryKind(tc.in)
			if got != tc.want || (tc.wantCode == 0) != (err == nil) || (err != nil && plan.CodeOf(err) != tc.wantCode) {
				t.Errorf("got %q, %v", got, err)
			}
		})
	}
}

func TestCategories_Edit(t *testing.T) {
	cats, err := plan.NewCategories([]plan.Category{{Kind: plan.KindTag, Name: "Payments"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		kind     plan.CategoryKind
		name     string
		cat      plan.Category
		want     plan.Category
		wantCode int
		wantText string
	}{
		"a rename, the kind taken from the request": {
			kind: plan.KindTag, name: "payments", cat: plan.Category{Name: "Payments team", Description: "Payments.", BuiltIn: true},
			want: plan.Category{Kind: plan.KindTag, Name: "Payments team", Description: "Payments."},
		},
		"the kind restated": {
			kind: plan.KindTag, name: "Payments", cat: plan.Category{Kind: plan.KindTag, Name: "Pay"},
			want: plan.Category{Kind: plan.KindTag, Name: "Pay"},
		},
		"a category cannot change kind (400 on category.kind)": {
			kind: plan.KindTag, name: "Payments", cat: plan.Category{Kind: plan.KindEnvironment, Name: "Pay"}, wantCode: http.StatusBadRequest,
			wantText: "category.kind: Forbidden: a category cannot change kind (it is a tag); delete it and add a environment",
		},
		"a built-in cannot change (400)": {
			kind: plan.KindEnvironment, name: "Production", cat: plan.Category{Name: "Prod"}, wantCode: http.StatusBadRequest,
		},
		"an unknown category (404)": {kind: plan.KindTag, name: "Nope", cat: plan.Category{Name: "x"}, wantCode: http.StatusNotFound},
		"a rename onto another category (409)": {
			kind: plan.KindTag, name: "Payments", cat: plan.Category{Name: "security"}, wantCode: http.StatusConflict,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			next, got, err := cats.Edit(tc.kind, tc.name, tc.cat)
			if plan.CodeOf(err) != max(tc.wantCode, http.StatusOK) {
				t.Fatalf("err = %v, want code %d", err, tc.wantCode)
			}
			if tc.wantText != "" && err.Error() != tc.wantText {
				t.Errorf("error %q, want %q", err, tc.wantText)
			}
			if err != nil {
				return
			}
			if got != tc.want || !next.Has(plan.KindTag, tc.want.Name) {
				t.Errorf("stored %+v, want %+v; tags %v", got, tc.want, next.Names(plan.KindTag))
			}
		})
	}
}
