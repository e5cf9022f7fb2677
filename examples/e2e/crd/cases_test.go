package crd

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// The cases below are shared by the fast test of the CRD's CEL rules
// (crd_test.go) and the live test against the harness's API server
// (crd_e2e_test.go, build tag e2e).

// base is a valid plan: namespaces scope, a time_range window, no
// approval mode.
const base = `apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata:
  name: base
spec:
  name: Holiday freeze
  description: Nothing changes in the shop over the holidays.
  scope:
    namespaces: [shop]
  templates:
  - name: create
  window:
    type: time_range
    startAt: "2026-12-24T18:00:00+01:00"
    endAt: "2026-12-27T06:00:00+01:00"
    timeZone: Europe/Berlin
  mode: audit
`

// change edits a plan's spec.
type change func(spec map[string]any)

// planObject returns base named name with c applied to its spec.
func planObject(t *testing.T, name string, c change) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(base), &obj); err != nil {
		t.Fatal(err)
	}
	obj["metadata"].(map[string]any)["name"] = name
	if c != nil {
		c(obj["spec"].(map[string]any))
	}
	return obj
}

// planYAML is planObject as YAML.
func planYAML(t *testing.T, name string, c change) string {
	t.Helper()
	out, err := yaml.Marshal(planObject(t, name, c))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func window(spec map[string]any) map[string]any { return spec["window"].(map[string]any) }

func tags(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = "tag-" + string(rune('a'+i))
	}
	return out
}

func withApps(spec map[string]any) { spec["scope"] = map[string]any{"applications": []any{"checkout"}} }

// withSelectors gives the plan a namespaceSelectors scope (team=payments).
func withSelectors(spec map[string]any) {
	spec["scope"] = map[string]any{"namespaceSelectors": []any{map[string]any{"matchLabels": map[string]any{"team": "payments"}}}}
}

func withMode(mode string) change {
	return func(spec map[string]any) { spec["approvalMode"] = mode }
}

func both(cs ...change) change {
	return func(spec map[string]any) {
		for _, c := range cs {
			c(spec)
		}
	}
}

// samplePlans are the paths of every sample plan (examples/plans) and of
// the test suites' plans that the Go validation accepts (the CLI's valid
// inputs: an ended window is refused by Validate against the clock, not by
// a rule of the schema).
func samplePlans(t *testing.T) []string {
	t.Helper()
	samples, err := filepath.Glob(filepath.Join("..", "..", "plans", "*.yaml"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("no sample plans: %v", err)
	}
	suites, err := filepath.Glob(filepath.Join("..", "..", "tests", "plans", "*.yaml"))
	if err != nil || len(suites) == 0 {
		t.Fatalf("no test-suite plans: %v", err)
	}
	samples = append(samples, suites...)
	for _, name := range []string{"permanent.yaml", "q4-release-2026.yaml"} {
		samples = append(samples, filepath.Join("..", "..", "cli", "testdata", name))
	}
	for _, p := range samples {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
	return samples
}

// admittedCases are plans the Go validation accepts (as far as the schema
// can tell): the CRD must admit them.
var admittedCases = map[string]change{
	"a plan with namespaces scope and a time_range window": nil,
	"a plan with applications scope":                       withApps,
	"a plan whose scope also lists an empty namespaces list": func(spec map[string]any) {
		spec["scope"] = map[string]any{"applications": []any{"checkout"}, "namespaces": []any{}}
	},
	"a plan with namespaceSelectors scope": withSelectors,
	"a plan whose scope is the whole cluster (one empty selector)": func(spec map[string]any) {
		spec["scope"] = map[string]any{"namespaceSelectors": []any{map[string]any{}}}
	},
	"a permanent window without startAt": func(spec map[string]any) {
		spec["window"] = map[string]any{"type": "permanent"}
	},
	"a recurring window with a validity period": func(spec map[string]any) {
		spec["window"] = map[string]any{"type": "recurring", "startAt": "2026-01-01T00:00:00Z", "endAt": "2027-01-01T00:00:00Z",
			"schedules": []any{map[string]any{"cron": "0 22 * * *", "duration": "8h"}}}
	},
	"a recurring window with only an end": func(spec map[string]any) {
		spec["window"] = map[string]any{"type": "recurring", "endAt": "2027-01-01T00:00:00Z",
			"schedules": []any{map[string]any{"cron": "0 22 * * *", "duration": "8h"}}}
	},
	"a name and description with single braces": func(spec map[string]any) {
		spec["name"], spec["description"] = "Freeze {shop}", "A { and a } are fine."
	},
	"a plan with 20 tags and one environment": func(spec map[string]any) {
		spec["tags"], spec["environment"] = tags(20), "Production"
	},
	"a plan that requires approval": withMode("required"),
	"an allow window with every kind of exception": func(spec map[string]any) {
		spec["window"] = map[string]any{"type": "recurring", "freeze": "outside",
			"schedules": []any{map[string]any{"cron": "0 10 * * 2,4", "duration": "2h"}},
			"except": []any{
				map[string]any{"date": "2026-12-24"},
				map[string]any{"startAt": "2026-12-30T10:00:00Z", "endAt": "2026-12-30T11:00:00Z"},
				map[string]any{"schedule": map[string]any{"cron": "0 11 * * 4", "duration": "30m"}},
				map[string]any{"calendar": map[string]any{"configMapKeyRef": map[string]any{"name": "holidays", "key": "de.ics"}}},
			}}
	},
}

// refusedCase is a plan breaking one rule, and what the error must name:
// the field and the rule's message.
type refusedCase struct {
	change change
	want   []string
	// schema is true for a limit of the OpenAPI schema (maxItems, type),
	// which the API server checks but the CEL validator does not.
	schema bool
}

var refusedCases = map[string]refusedCase{
	"a time_range window frozen outside": {
		change: func(spec map[string]any) { window(spec)["freeze"] = "outside" },
		want:   []string{"spec.window.freeze", "only a recurring window can be an allow window"}},
	"an exception with both a date and a schedule": {
		change: func(spec map[string]any) {
			window(spec)["except"] = []any{map[string]any{"date": "2026-12-24"},
				map[string]any{"date": "2026-12-25", "schedule": map[string]any{"cron": "0 11 * * 4", "duration": "30m"}}}
		},
		want: []string{"spec.window.except[1]", "an exception must set exactly one of date, startAt and endAt, schedule, calendar"}},
	"an exception with startAt only": {
		change: func(spec map[string]any) {
			window(spec)["except"] = []any{map[string]any{"startAt": "2026-12-24T00:00:00Z"}}
		},
		want: []string{"spec.window.except[0]", "an interval exception needs both startAt and endAt"}},
	"an exception that ends before it starts": {
		change: func(spec map[string]any) {
			window(spec)["except"] = []any{map[string]any{"startAt": "2026-12-24T00:00:00Z", "endAt": "2026-12-23T00:00:00Z"}}
		},
		want: []string{"spec.window.except[0].endAt", "an exception's endAt must be after its startAt"}},
	"a scope with both applications and namespaces": {
		change: func(spec map[string]any) {
			spec["scope"] = map[string]any{"applications": []any{"checkout"}, "namespaces": []any{"shop"}}
		},
		want: []string{"spec.scope", "spec.scope must set exactly one of applications, namespaces or namespaceSelectors"}},
	"a scope with neither applications nor namespaces": {
		change: func(spec map[string]any) { spec["scope"] = map[string]any{} },
		want:   []string{"spec.scope", "spec.scope must set exactly one of applications, namespaces or namespaceSelectors"}},
	"a scope whose lists are both empty": {
		change: func(spec map[string]any) {
			spec["scope"] = map[string]any{"applications": []any{}, "namespaces": []any{}}
		},
		want: []string{"spec.scope", "spec.scope must set exactly one of applications, namespaces or namespaceSelectors"}},
	"a scope with both namespaces and namespaceSelectors": {
		change: func(spec map[string]any) {
			spec["scope"] = map[string]any{"namespaces": []any{"shop"}, "namespaceSelectors": []any{map[string]any{}}}
		},
		want: []string{"spec.scope", "spec.scope must set exactly one of applications, namespaces or namespaceSelectors"}},
	"a window that ends before it starts": {
		change: func(spec map[string]any) { window(spec)["endAt"] = "2026-12-23T06:00:00+01:00" },
		want:   []string{"spec.window.endAt", "spec.window.endAt must be after spec.window.startAt"}},
	"a window that ends when it starts": {
		change: func(spec map[string]any) { window(spec)["endAt"] = window(spec)["startAt"] },
		want:   []string{"spec.window.endAt", "spec.window.endAt must be after spec.window.startAt"}},
	"a recurring window whose validity period ends before it starts": {
		change: func(spec map[string]any) {
			spec["window"] = map[string]any{"type": "recurring", "startAt": "2027-01-01T00:00:00Z", "endAt": "2026-01-01T00:00:00Z",
				"schedules": []any{map[string]any{"cron": "0 22 * * *", "duration": "8h"}}}
		},
		want: []string{"spec.window.endAt", "spec.window.endAt must be after spec.window.startAt"}},
	"a name holding {{": {
		change: func(spec map[string]any) { spec["name"] = "Freeze {{ request.object.metadata.name" },
		want:   []string{"spec.name", "spec.name must not contain {{ or }}"}},
	"a name holding }}": {
		change: func(spec map[string]any) { spec["name"] = "Freeze }}" },
		want:   []string{"spec.name", "spec.name must not contain {{ or }}"}},
	"a description holding {{ and }}": {
		change: func(spec map[string]any) { spec["description"] = "Why: {{ request.userInfo.username }}" },
		want:   []string{"spec.description", "spec.description must not contain {{ or }}"}},
	"21 tags": {
		change: func(spec map[string]any) { spec["tags"] = tags(21) },
		want:   []string{"spec.tags", "must have at most 20 items"}, schema: true},
	"two environments": {
		change: func(spec map[string]any) { spec["environment"] = []any{"Production", "Staging"} },
		want:   []string{"spec.environment", "must be of type string"}, schema: true},
}

// updateCase is a plan created as old and updated to new; want is what
// the refusal names, nil when the update is admitted.
type updateCase struct {
	old, new change
	want     []string
}

var updateCases = map[string]updateCase{
	"a namespaces scope changed to applications is refused": {
		new:  withApps,
		want: []string{"spec.scope", "the scope type (applications, namespaces or namespaceSelectors) cannot change after creation"}},
	"an applications scope changed to namespaces is refused": {
		old:  withApps,
		want: []string{"spec.scope", "the scope type (applications, namespaces or namespaceSelectors) cannot change after creation"}},
	"a namespaces scope changed to namespaceSelectors is refused": {
		new:  withSelectors,
		want: []string{"spec.scope", "the scope type (applications, namespaces or namespaceSelectors) cannot change after creation"}},
	"a namespaceSelectors scope changed to applications is refused": {
		old:  withSelectors,
		new:  withApps,
		want: []string{"spec.scope", "the scope type (applications, namespaces or namespaceSelectors) cannot change after creation"}},
	"other selectors in a namespaceSelectors scope are admitted": {
		old: withSelectors,
		new: func(spec map[string]any) {
			spec["scope"] = map[string]any{"namespaceSelectors": []any{map[string]any{"matchLabels": map[string]any{"env": "prod"}}}}
		}},
	"an approval mode changed from automatic to required is refused": {
		old: withMode("automatic"), new: withMode("required"),
		want: []string{"spec.approvalMode", "spec.approvalMode cannot change once set"}},
	"an approval mode changed from required to automatic is refused": {
		old: withMode("required"), new: withMode("automatic"),
		want: []string{"spec.approvalMode", "spec.approvalMode cannot change once set"}},
	"other namespaces in a namespaces scope are admitted": {
		new: func(spec map[string]any) { spec["scope"] = map[string]any{"namespaces": []any{"shop", "payments"}} }},
	"other applications in an applications scope are admitted": {
		old: withApps,
		new: func(spec map[string]any) {
			spec["scope"] = map[string]any{"applications": []any{"checkout", "payments-api"}}
		}},
	"an approval mode set on a plan that had none is admitted": {
		new: withMode("required")},
	"an unchanged approval mode with a new description is admitted": {
		old: withMode("automatic"),
		new: both(withMode("automatic"), func(spec map[string]any) { spec["description"] = "edited" })},
}

// shortHash turns a sentence into a short DNS-label suffix.
func shortHash(s string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	out := make([]byte, 0, 7)
	for h > 0 {
		out = append(out, digits[h%36])
		h /= 36
	}
	return string(out)
}
