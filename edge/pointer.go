package edge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Value is what an RFC 6901 pointer found in an object: absent, or a JSON
// value.
type Value struct {
	Present bool            `json:"present"`
	JSON    json.RawMessage `json:"json,omitempty"`
}

// Equal reports whether v and w are the same value (JSON compared after
// compaction, so 1 and 1 agree whatever the spacing).
func (v Value) Equal(w Value) bool {
	if v.Present != w.Present {
		return false
	}
	if !v.Present {
		return true
	}
	var a, b bytes.Buffer
	if json.Compact(&a, v.JSON) != nil || json.Compact(&b, w.JSON) != nil {
		return bytes.Equal(v.JSON, w.JSON)
	}
	return bytes.Equal(a.Bytes(), b.Bytes())
}

// String is the value for people: its JSON, or "absent".
func (v Value) String() string {
	if !v.Present {
		return "absent"
	}
	return string(v.JSON)
}

func valueOf(x any) Value {
	b, err := json.Marshal(x)
	if err != nil {
		return Value{}
	}
	return Value{Present: true, JSON: b}
}

// tokens splits an RFC 6901 pointer into its reference tokens, unescaping
// ~1 to / and ~0 to ~.
func tokens(pointer string) ([]string, error) {
	if pointer == "" {
		return nil, nil
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", pointer)
	}
	parts := strings.Split(pointer[1:], "/")
	for i, p := range parts {
		for j := 0; j < len(p); j++ {
			if p[j] == '~' && (j+1 == len(p) || (p[j+1] != '0' && p[j+1] != '1')) {
				return nil, fmt.Errorf("JSON pointer %q has a ~ not followed by 0 or 1", pointer)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// lookup returns the value at pointer in obj (as unstructured.Unstructured
// holds it: maps, slices, and JSON scalars).
func lookup(obj map[string]any, pointer string) (Value, error) {
	toks, err := tokens(pointer)
	if err != nil {
		return Value{}, err
	}
	var cur any = obj
	for _, t := range toks {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[t]
			if !ok {
				return Value{}, nil
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) || (len(t) > 1 && t[0] == '0') {
				return Value{}, nil
			}
			cur = c[i]
		default:
			return Value{}, nil
		}
	}
	return valueOf(cur), nil
}

// nest builds the apply configuration fragment that sets pointer to v
// (or, when v is absent, the empty object that leaves it out).
func nest(pointer string, v Value) (map[string]any, error) {
	toks, err := tokens(pointer)
	if err != nil {
		return nil, err
	}
	root := map[string]any{}
	if !v.Present {
		return root, nil
	}
	var val any
	if err := json.Unmarshal(v.JSON, &val); err != nil {
		return nil, fmt.Errorf("value at %s: %w", pointer, err)
	}
	cur := root
	for i, t := range toks {
		if i == len(toks)-1 {
			cur[t] = val
			break
		}
		next := map[string]any{}
		cur[t] = next
		cur = next
	}
	return root, nil
}
