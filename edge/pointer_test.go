package edge

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPointer(t *testing.T) {
	var doc map[string]any
	_ = json.Unmarshal([]byte(`{"a/b":{"m~n":1},"list":[{"x":true}],"spec":{"suspend":false,"null":null}}`), &doc)
	tests := []struct {
		name, pointer, want string
		err                 bool
	}{
		{name: "~1 is a slash in a key", pointer: "/a~1b/m~0n", want: "1"},
		{name: "an array index reads its element", pointer: "/list/0/x", want: "true"},
		{name: "an index past the end is absent", pointer: "/list/1/x", want: "absent"},
		{name: "an index with a leading zero is absent", pointer: "/list/00/x", want: "absent"},
		{name: "false is present", pointer: "/spec/suspend", want: "false"},
		{name: "null is present", pointer: "/spec/null", want: "null"},
		{name: "a missing key is absent", pointer: "/spec/missing", want: "absent"},
		{name: "a key under a scalar is absent", pointer: "/spec/suspend/x", want: "absent"},
		{name: "a pointer without a leading slash is an error", pointer: "spec", err: true},
		{name: "a ~ not followed by 0 or 1 is an error", pointer: "/a~2", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := lookup(doc, tt.pointer)
			if tt.err {
				assert.Error(t, err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, v.String())
		})
	}
	t.Run("values compare as JSON whatever the spacing", func(t *testing.T) {
		assert.True(t, Value{Present: true, JSON: []byte(` 3`)}.Equal(Value{Present: true, JSON: []byte(`3`)}))
		assert.False(t, Value{Present: true, JSON: []byte(`3`)}.Equal(Value{}))
		assert.True(t, Value{}.Equal(Value{}))
	})
}
