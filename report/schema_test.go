package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// The JSON format is checked against schema/report.v1.schema.json by a
// small validator of the JSON Schema keywords that file uses. The
// validator refuses any other keyword, so the schema cannot say something
// this test does not check.

var schemaKeywords = []string{
	"$schema", "$id", "$defs", "$ref", "title", "description",
	"type", "properties", "required", "additionalProperties", "items", "maxItems",
	"enum", "const", "format", "minimum",
}

type schemaChecker struct {
	root map[string]any
	errs []string
}

func loadSchema(t *testing.T) *schemaChecker {
	t.Helper()
	b, err := os.ReadFile("schema/report.v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	return &schemaChecker{root: root}
}

func (c *schemaChecker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, path+": "+fmt.Sprintf(format, args...))
}

// validate checks v (decoded with UseNumber) against schema s at path.
func (c *schemaChecker) validate(s map[string]any, v any, path string) {
	for k := range s {
		if !slices.Contains(schemaKeywords, k) {
			c.fail(path, "the schema uses %q, which this checker does not know", k)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		c.validate(c.resolve(ref, path), v, path)
	}
	if types, ok := s["type"]; ok && !c.hasType(types, v) {
		c.fail(path, "%s is not of type %v", short(v), types)
		return
	}
	if want, ok := s["const"]; ok && !sameJSON(want, v) {
		c.fail(path, "%s is not %v", short(v), want)
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return sameJSON(e, v) }) {
		c.fail(path, "%s is not one of %v", short(v), enum)
	}
	if f, ok := s["format"].(string); ok {
		c.checkFormat(f, v, path)
	}
	if m, ok := s["minimum"].(float64); ok {
		if n, isNum := v.(json.Number); isNum {
			if x, _ := n.Float64(); x < m {
				c.fail(path, "%s is below the minimum %v", n, m)
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		c.validateObject(s, x, path)
	case []any:
		if m, ok := s["maxItems"].(float64); ok && float64(len(x)) > m {
			c.fail(path, "%d items, at most %v allowed", len(x), m)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				c.validate(items, e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

func (c *schemaChecker) validateObject(s map[string]any, x map[string]any, path string) {
	props, _ := s["properties"].(map[string]any)
	for _, r := range asStrings(s["required"]) {
		if _, ok := x[r]; !ok {
			c.fail(path, "required property %q is missing", r)
		}
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ps, ok := props[k].(map[string]any)
		if !ok {
			if s["additionalProperties"] == false {
				c.fail(path, "property %q is not in the schema", k)
			}
			continue
		}
		c.validate(ps, x[k], path+"."+k)
	}
}

func (c *schemaChecker) resolve(ref, path string) map[string]any {
	name, ok := strings.CutPrefix(ref, "#/$defs/")
	defs, _ := c.root["$defs"].(map[string]any)
	s, found := defs[name].(map[string]any)
	if !ok || !found {
		c.fail(path, "unresolvable $ref %q", ref)
		return map[string]any{}
	}
	return s
}

func (c *schemaChecker) hasType(types, v any) bool {
	var list []string
	switch t := types.(type) {
	case string:
		list = []string{t}
	case []any:
		list = asStrings(t)
	}
	for _, t := range list {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case json.Number:
			f, _ := x.Float64()
			if t == "number" || (t == "integer" && f == math.Trunc(f) && !strings.ContainsAny(x.String(), ".eE")) {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		}
	}
	return false
}

func (c *schemaChecker) checkFormat(f string, v any, path string) {
	s, ok := v.(string)
	if !ok || f != "date-time" {
		if f != "date-time" {
			c.fail(path, "unknown format %q", f)
		}
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		c.fail(path, "%q is not an RFC 3339 date-time", s)
	}
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// checkSchema validates a rendered JSON report against the schema file.
func checkSchema(t *testing.T, doc []byte) {
	t.Helper()
	c := loadSchema(t)
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("the JSON report does not decode: %v", err)
	}
	c.validate(c.root, v, "$")
	for _, e := range c.errs {
		t.Error(e)
	}
}

func TestJSON_MatchesSchema(t *testing.T) {
	tests := []struct {
		name string
		in   func(t *testing.T) Input
	}{
		{"the nightly run's final report", func(t *testing.T) Input { return nightlyInput(t) }},
		{"an on-demand report of a namespaces plan still active, without health or violations", func(t *testing.T) Input {
			return Input{Plan: activeNamespacesPlan(), Trigger: TriggerManual, Now: at("Thu Jul 23 2026 12:00:00")}
		}},
		{"a report full of hostile text", func(t *testing.T) Input { return hostileInput(t) }},
		{"a report of a namespaceSelectors plan, with the namespaces it covered", func(t *testing.T) Input { return selectorsInput() }},
		{"a canceled run's report with its edge actions", func(t *testing.T) Input { return edgeRunInput(t) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSchema(t, mustRender(t, mustBuild(t, tt.in(t)), JSON))
		})
	}
}

// The checker itself must catch what the schema forbids.
func TestJSON_SchemaCheckerCatchesDrift(t *testing.T) {
	doc := mustRender(t, mustBuild(t, nightlyInput(t)), JSON)
	var v map[string]any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(map[string]any)
		want   string
	}{
		{"an unknown top-level field", func(m map[string]any) { m["extra"] = 1 }, `property "extra" is not in the schema`},
		{"a missing field", func(m map[string]any) { delete(m, "summary") }, `required property "summary" is missing`},
		{"another schema version", func(m map[string]any) { m["schemaVersion"] = 2 }, "is not 1"},
		{"an unknown trigger", func(m map[string]any) { m["trigger"] = "weekly" }, "is not one of"},
		{"a time that is not RFC 3339", func(m map[string]any) { m["runEnd"] = "yesterday" }, "not an RFC 3339 date-time"},
		{"a negative count", func(m map[string]any) { m["summary"].(map[string]any)["blocked"] = -1 }, "below the minimum"},
		{"an edge restore outcome the schema does not know", func(m map[string]any) {
			m["edgeActions"] = map[string]any{"windows": []any{map[string]any{"start": "2026-07-23T08:00:00Z", "capturedAt": "2026-07-23T08:00:00Z", "phase": "Done",
				"actions": []any{map[string]any{"name": "suspend-cronjobs", "title": "Suspend CronJobs", "parameters": []any{}, "participants": []any{map[string]any{
					"target": map[string]any{"apiVersion": "batch/v1", "kind": "CronJob", "name": "report", "uid": "u1"}, "pointer": "/spec/suspend",
					"captured": "absent", "applied": "true", "start": map[string]any{"outcome": "applied"}, "restore": map[string]any{"outcome": "undone"}}}}}}}}
		}, "is not one of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			b, _ := json.Marshal(v)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			tt.change(m)
			b, _ = json.Marshal(m)
			dec = json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			var x any
			_ = dec.Decode(&x)
			c := loadSchema(t)
			c.validate(c.root, x, "$")
			if !slices.ContainsFunc(c.errs, func(e string) bool { return strings.Contains(e, tt.want) }) {
				t.Errorf("errors %q, want one containing %q", c.errs, tt.want)
			}
		})
	}
}

// selectorsInput is an on-demand report of a plan selecting namespaces by
// label, which covered two namespaces.
func selectorsInput() Input {
	p := activeNamespacesPlan()
	p.Spec.Scope = plan.Scope{NamespaceSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{"team": "payments"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}},
	}}
	p.Status.Coverage = []plan.Coverage{{Namespace: "shop"}, {Namespace: "ledger"}}
	return Input{Plan: p, Trigger: TriggerManual, Now: at("Thu Jul 23 2026 12:00:00")}
}

func TestScope_NamespaceSelectors(t *testing.T) {
	r, err := Build(selectorsInput())
	if err != nil {
		t.Fatal(err)
	}
	want := Scope{Type: plan.ScopeNamespaceSelectors, Selectors: []string{"team=payments", "env in (prod)"},
		Applications: []ScopeApplication{}, Namespaces: []string{"ledger", "shop"}}
	if diff := cmp.Diff(want, r.Scope); diff != "" {
		t.Errorf("the scope lists the selectors and the namespaces the run covered (-want +got):\n%s", diff)
	}
	md := string(mustRender(t, r, Markdown))
	if !strings.Contains(md, "Namespaces selected by team=payments or env in (prod):") {
		t.Errorf("the Markdown report does not name the selectors:\n%s", md)
	}
}
