package health

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSONEqual_IsTrueOnlyWhenTheJSONIsTheSame(t *testing.T) {
	tests := []struct {
		name string
		a, b any
	}{
		{"equal strings", "Enforce", "Enforce"},
		{"different strings", "Enforce", "Audit"},
		{"a string and a bool", "true", true},
		{"equal bools", false, false},
		{"an integer decoded by apimachinery and the same float decoded by encoding/json", int64(3), float64(3)},
		{"a float and the same integer", float64(-2), int64(-2)},
		{"a fraction and an integer", float64(2.5), int64(2)},
		{"zero and negative zero", int64(0), math.Copysign(0, -1)},
		{"an integer beyond float64's exact range", int64(1<<53 + 1), float64(1 << 53)},
		{"an int, which unstructured objects never hold", 3, 3},
		{"a nil map and an empty map", map[string]any(nil), map[string]any{}},
		{"a nil list and an empty list", []any(nil), []any{}},
		{"equal nested values", map[string]any{"a": []any{"x", map[string]any{"b": true}}}, map[string]any{"a": []any{"x", map[string]any{"b": true}}}},
		{"a key with null and a missing key", map[string]any{"a": nil}, map[string]any{"b": nil}},
		{"lists in another order", []any{"a", "b"}, []any{"b", "a"}},
		{"null and null", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ja, erra := json.Marshal(tt.a)
			jb, errb := json.Marshal(tt.b)
			same := erra == nil && errb == nil && string(ja) == string(jb)
			got := jsonEqual(tt.a, tt.b)
			if got && !same {
				t.Errorf("jsonEqual(%#v, %#v) = true, but they marshal to %s and %s", tt.a, tt.b, ja, jb)
			}
			_, unknown := tt.a.(int)
			if !got && same && !unknown {
				t.Errorf("jsonEqual(%#v, %#v) = false, but both marshal to %s", tt.a, tt.b, ja)
			}
		})
	}
}

func TestMergeDiff(t *testing.T) {
	from := map[string]any{"spec": map[string]any{"a": "x", "b": []any{"1"}, "gone": true}, "kept": "k"}
	to := map[string]any{"spec": map[string]any{"a": "y", "b": []any{"1"}, "new": map[string]any{"c": "d"}}, "kept": "k"}
	want := map[string]any{"spec": map[string]any{"a": "y", "new": map[string]any{"c": "d"}, "gone": nil}}
	if diff := cmp.Diff(want, mergeDiff(from, to)); diff != "" {
		t.Errorf("mergeDiff (-want +got):\n%s", diff)
	}
}
