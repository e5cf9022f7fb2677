package health

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestWants_AgreesWithJSONEqual: comparing a live value with a rendered
// one through its prepared lists gives what jsonEqual gives, for the first
// comparison (compared as is), the second (prepared then) and later ones,
// whatever the live value is.
func TestWants_AgreesWithJSONEqual(t *testing.T) {
	shared := []any{map[string]any{"name": "r", "match": []any{"a", int64(1), true, nil}}, "x", map[string]any{}, []any{}}
	rendered := map[string]any{
		"rules":   shared,
		"empty":   []any{},
		"nilList": []any(nil),
		"nilMap":  map[string]any(nil),
		"obj":     map[string]any{"n": float64(2.5), "z": int64(0), "l": []any{[]any{"deep"}}},
	}
	tests := []struct {
		name string
		live func() any
	}{
		{"a copy of the rendered value", func() any { return copyJSON(rendered) }},
		{"a shared list whose map has another value", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"].([]any)[0].(map[string]any)["name"] = "other"
			return c
		}},
		{"a shared list one item shorter", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"] = c["rules"].([]any)[:1]
			return c
		}},
		{"a nested list holding a bool instead of a string", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"].([]any)[0].(map[string]any)["match"].([]any)[0] = true
			return c
		}},
		{"a map where the rendered list is", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"] = map[string]any{}
			return c
		}},
		{"a nil list where the rendered one is empty", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["empty"] = []any(nil)
			return c
		}},
		{"a nil map in a shared list where the rendered one is empty", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"].([]any)[2] = map[string]any(nil)
			return c
		}},
		{"a nil list in a shared list where the rendered one is empty", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"].([]any)[3] = []any(nil)
			return c
		}},
		{"an empty map where the rendered one is nil", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["nilMap"] = map[string]any{}
			return c
		}},
		{"an integer where the rendered number is the same float", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["obj"].(map[string]any)["n"] = int64(2)
			return c
		}},
		{"negative zero where the rendered integer is zero", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["obj"].(map[string]any)["z"] = math.Copysign(0, -1)
			return c
		}},
		{"a map item where the rendered list holds a string", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["rules"].([]any)[1] = map[string]any{}
			return c
		}},
		{"an extra key", func() any {
			c := copyJSON(rendered).(map[string]any)
			c["extra"] = "x"
			return c
		}},
		{"a string where the rendered map is", func() any { return "x" }},
		{"nil", func() any { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ws wants
			for i := range 3 {
				live := tt.live()
				if got, want := ws.equal(rendered, live), jsonEqual(rendered, live); got != want {
					t.Errorf("comparison %d: wants.equal = %v, jsonEqual = %v", i+1, got, want)
				}
			}
		})
	}
}

// TestWants_RandomValuesAgreeWithJSONEqual compares random JSON trees,
// and copies of them with one value changed, through prepared lists and
// with jsonEqual.
func TestWants_RandomValuesAgreeWithJSONEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2026))
	for i := range 2000 {
		rendered := randomJSON(r, 4)
		var ws wants
		for j := range 4 {
			live := copyJSON(rendered)
			if j > 0 {
				live = mutateJSON(r, live)
			}
			if got, want := ws.equal(rendered, live), jsonEqual(rendered, live); got != want {
				t.Fatalf("tree %d, copy %d: wants.equal = %v, jsonEqual = %v\nrendered %#v\nlive     %#v", i, j, got, want, rendered, live)
			}
		}
	}
}

func randomJSON(r *rand.Rand, depth int) any {
	k := r.IntN(9)
	if depth == 0 {
		k = 4 + r.IntN(5)
	}
	switch k {
	case 0, 1:
		m := map[string]any{}
		for i := range r.IntN(5) {
			m[fmt.Sprint("k", i)] = randomJSON(r, depth-1)
		}
		return m
	case 2, 3:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomJSON(r, depth-1)
		}
		return l
	case 4:
		return fmt.Sprint("s", r.IntN(3))
	case 5:
		return int64(r.IntN(3))
	case 6:
		return float64(r.IntN(3))
	case 7:
		return r.IntN(2) == 0
	}
	return nil
}

// mutateJSON changes one value somewhere in v (or v itself).
func mutateJSON(r *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 && r.IntN(3) > 0 {
			for k, e := range x {
				x[k] = mutateJSON(r, e)
				return x
			}
		}
	case []any:
		if len(x) > 0 && r.IntN(3) > 0 {
			i := r.IntN(len(x))
			x[i] = mutateJSON(r, x[i])
			return x
		}
	}
	return randomJSON(r, 1)
}

// copyJSON deep-copies a JSON value, as decoding it again would.
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = copyJSON(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = copyJSON(e)
		}
		return l
	}
	return v
}
