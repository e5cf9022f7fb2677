package plan

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Issue 17: a 100,000-character value was quoted whole in the error.
func TestNewValidationError_CutsLongValues(t *testing.T) {
	long := strings.Repeat("Q", 100000)
	orig := field.Invalid(field.NewPath("spec", "x"), long, "bad")
	err := NewValidationError(field.ErrorList{orig, field.Invalid(field.NewPath("spec", "y"), "short", "bad")})
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	want := `spec.x: Invalid value: "` + strings.Repeat("Q", MaxQuotedValue) + `… (100000 characters)": bad`
	if got := ve.Errs[0].Error(); got != want {
		t.Errorf("got %.300s", got)
	}
	if len(err.Error()) > 500 || !strings.Contains(err.Error(), `spec.y: Invalid value: "short": bad`) {
		t.Errorf("error %.600s", err)
	}
	if orig.BadValue != long {
		t.Error("the error given was changed")
	}
}

func TestShorten(t *testing.T) {
	cases := map[string]struct {
		s    string
		n    int
		want string
	}{
		"a short text is kept":              {"abc", 3, "abc"},
		"a long text is cut with a marker":  {"abcd", 3, "abc… (4 characters)"},
		"characters are counted, not bytes": {"ééé", 3, "ééé"},
		"a cut never splits a character":    {"éééé", 2, "éé… (4 characters)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Shorten(tc.s, tc.n); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
