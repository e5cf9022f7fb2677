package gitops

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestArgoCDHealth runs config/argocd/health.lua as Argo CD does (obj is
// the live object; the script returns a table with status and message) on
// a plan in every phase.
func TestArgoCDHealth(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("..", "..", "config", "argocd", "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range phases {
		t.Run(name, func(t *testing.T) {
			u := toUnstructured(t, tc.plan(t))
			// Argo CD hands the script the object's JSON, decoded into Lua
			// tables: numbers are Lua numbers.
			data, err := json.Marshal(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			var obj any
			if err := json.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			status, message := runHealth(t, string(script), obj)
			if status != tc.argo {
				t.Errorf("health = %s (%s), want %s", status, message, tc.argo)
			}
			if strings.TrimSpace(message) == "" {
				t.Errorf("health %s has no message", status)
			}
		})
	}
}

// runHealth runs a health script with obj as the global obj, with the
// libraries Argo CD opens (base, table, string, math), and returns the
// returned table's status and message.
func runHealth(t *testing.T, script string, obj any) (string, string) {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", toLua(L, obj))
	if err := L.DoString(script); err != nil {
		t.Fatalf("health.lua: %v", err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("health.lua returned %s, want a table", L.Get(-1).Type())
	}
	return lua.LVAsString(hs.RawGetString("status")), lua.LVAsString(hs.RawGetString("message"))
}

// toLua converts decoded JSON to Lua values: objects and arrays become
// tables (arrays from index 1), numbers Lua numbers.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		tb := L.NewTable()
		for _, e := range v {
			tb.Append(toLua(L, e))
		}
		return tb
	case map[string]any:
		tb := L.NewTable()
		for k, e := range v {
			tb.RawSetString(k, toLua(L, e))
		}
		return tb
	}
	panic("unexpected JSON value")
}
