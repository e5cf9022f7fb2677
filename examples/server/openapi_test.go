package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestOpenAPIMatchesRoutes holds the hand-written document and the route
// table together: every API route is documented under its path and
// method with exactly its codes, and nothing is documented that no route
// serves. The document is read as served.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	e := newEnv(t)
	w := e.do(request{method: "GET", path: "/openapi.json", user: "victor"})
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
		Comp    struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	documented := map[string]bool{}
	for path, methods := range doc.Paths {
		for m := range methods {
			documented[strings.ToUpper(m)+" "+path] = true
		}
	}
	for _, rt := range e.server.routes {
		if !rt.API {
			continue
		}
		k := rt.Method + " " + openAPIPath(rt.Pattern)
		raw, ok := doc.Paths[openAPIPath(rt.Pattern)][strings.ToLower(rt.Method)]
		if !ok {
			t.Errorf("%s is not documented", k)
			continue
		}
		delete(documented, k)
		var op struct {
			Responses  map[string]json.RawMessage  `json:"responses"`
			Parameters []struct{ Name, In string } `json:"parameters"`
		}
		json.Unmarshal(raw, &op)
		var codes []int
		for c := range op.Responses {
			n, _ := strconv.Atoi(c)
			codes = append(codes, n)
		}
		slices.Sort(codes)
		want := slices.Sorted(slices.Values(rt.Codes))
		if !slices.Equal(codes, want) {
			t.Errorf("%s: documented codes %v, the route answers %v", k, codes, want)
		}
		// Every path parameter of the pattern is documented.
		for _, part := range strings.Split(rt.Pattern, "/") {
			name := strings.Trim(part, "{}")
			if strings.HasPrefix(part, "{") && !slices.ContainsFunc(op.Parameters, func(p struct{ Name, In string }) bool { return p.Name == name && p.In == "path" }) {
				t.Errorf("%s: path parameter %s is not documented", k, part)
			}
		}
	}
	for k := range documented {
		t.Errorf("%s is documented but no route serves it", k)
	}
	// Every $ref points at a schema.
	for _, m := range strings.Split(w.Body.String(), `"$ref": "#/components/schemas/`)[1:] {
		name := m[:strings.IndexByte(m, '"')]
		if _, ok := doc.Comp.Schemas[name]; !ok {
			t.Errorf("$ref to a missing schema %q", name)
		}
	}
}

var update = flag.Bool("update", false, "rewrite testdata/openapi.json")

// TestOpenAPIGolden keeps testdata/openapi.json, the document as served,
// current (go test -run TestOpenAPIGolden -update rewrites it): a change
// of the API shows in review as a change of that file, and hack/test.sh
// lints it with Redocly's CLI.
func TestOpenAPIGolden(t *testing.T) {
	e := newEnv(t)
	w := e.do(request{method: "GET", path: "/openapi.json", user: "victor"})
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	golden := filepath.Join("testdata", "openapi.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, w.Body.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestOpenAPIGolden -update writes it)", err)
	}
	if !bytes.Equal(w.Body.Bytes(), want) {
		t.Errorf("/openapi.json is not %s: run go test -run TestOpenAPIGolden -update and review the change", golden)
	}
}
