package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// goldenObjects reads every object of every golden file of a target.
func goldenObjects(t *testing.T, target Target) map[string]*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", string(target), "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files for %s: %v", target, err)
	}
	out := map[string]*unstructured.Unstructured{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("---\n"))[1:] {
			var m map[string]any
			if err := yaml.Unmarshal(doc, &m); err != nil {
				t.Fatalf("%s#%d: %v", f, i, err)
			}
			out[filepath.Base(f)+"#"+string(rune('0'+i))] = &unstructured.Unstructured{Object: m}
		}
	}
	return out
}

// TestCEL_EveryGoldenExpressionTypeChecks compiles and type-checks every
// expression of every golden policy of both CEL targets (see
// cel_check_test.go for what is checked).
func TestCEL_EveryGoldenExpressionTypeChecks(t *testing.T) {
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		n := 0
		for name, obj := range goldenObjects(t, target) {
			if obj.GetKind() == bindingKind {
				continue
			}
			n += len(policyExpressions(obj))
			for _, p := range checkPolicyCEL(target, obj) {
				t.Errorf("%s %s: %s", target, name, p)
			}
		}
		t.Logf("%s: %d expressions checked", target, n)
	}
}

// TestCEL_TypeCheckCatchesMistakes is the mutation test of the type
// check: each mistake, made in one expression of a golden policy, must be
// reported.
func TestCEL_TypeCheckCatchesMistakes(t *testing.T) {
	mutations := []struct {
		name, golden, from, to string
	}{
		{"a misspelled object field", "scaling_applications_enforce", "?spec.?replicas", "?spec.?replica"},
		{"a misspelled request field", "scaling_applications_enforce", "request.?subResource", "request.?subresource"},
		{"a misspelled nested request field", "scaling_applications_enforce", "request.kind.kind", "request.kind.knd"},
		{"a misspelled user field", "delete_namespaces_enforce", "request.userInfo.?groups", "request.userInfo.?group"},
		{"an undeclared variable", "scaling_applications_enforce", "variables.oldLabels[", "variables.oldLables["},
		{"a field of another kind", "configmap-edits_namespaces_enforce", "object.?binaryData", "object.?stringData"},
		{"a misspelled metadata field", "rollout-restart_namespaces_enforce", "?metadata.?annotations", "?metadata.?annotation"},
		{"an unknown function", "image-change_namespaces_enforce", ".orValue([])", ".orValu([])"},
		{"a syntax error", "storage_namespaces_enforce", "!=", "!=="},
		{"a condition that is not a boolean", "delete_namespaces_enforce", "expression: \"false\"", "expression: '\"false\"'"},
		{"a message that is not a string", "scaling_applications_enforce", `+ " " +`, `+ 1 +`},
		// The compact layout reads objects through dyn() and guards each
		// validation by its rule's resources: the check follows both.
		{"a misspelled field in a compact policy", "compact_every_template_namespaces_enforce",
			"?spec.?template.?metadata.?annotations", "?spec.?templat.?metadata.?annotations"},
		{"a compact validation reading a field its guard's kind lacks", "compact_every_template_namespaces_enforce",
			`"UPDATE" && request.resource.resource == "persistentvolumeclaims"`, `"UPDATE" && request.resource.resource == "configmaps"`},
	}
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		for _, m := range mutations {
			t.Run(string(target)+"/"+m.name, func(t *testing.T) {
				b, err := os.ReadFile(filepath.Join("testdata", string(target), m.golden+".golden"))
				if err != nil {
					t.Fatal(err)
				}
				var obj map[string]any
				doc := bytes.Split(b, []byte("---\n"))[1]
				if err := yaml.Unmarshal(doc, &obj); err != nil {
					t.Fatal(err)
				}
				if p := checkPolicyCEL(target, &unstructured.Unstructured{Object: obj}); len(p) > 0 {
					t.Fatalf("the golden itself does not check: %v", p)
				}
				mutated := mutateExpressions(t, obj, m.from, m.to)
				problems := checkPolicyCEL(target, &unstructured.Unstructured{Object: mutated})
				if len(problems) == 0 {
					t.Errorf("replacing %q with %q went unnoticed", m.from, m.to)
				}
				t.Logf("caught: %s", strings.Join(problems, "; "))
			})
		}
	}
	t.Run("kyverno-cel/resource.Get with a namespace in a namespaced policy", func(t *testing.T) {
		obj := goldenObjects(t, TargetKyvernoCEL)["scaling_applications_enforce.golden#0"]
		mutated := mutateExpressions(t, obj.Object, "request.resource.resource, request.?name", "request.namespace, request.resource.resource, request.?name")
		if len(checkPolicyCEL(TargetKyvernoCEL, &unstructured.Unstructured{Object: mutated})) == 0 {
			t.Error("a four-argument resource.Get went unnoticed")
		}
	})
	t.Run("vap/Kyverno's resource library in a native policy", func(t *testing.T) {
		obj := goldenObjects(t, TargetKyvernoCEL)["scaling_applications_enforce.golden#0"]
		if len(checkPolicyCEL(TargetVAP, obj)) == 0 {
			t.Error("resource.Get went unnoticed in a vap policy")
		}
	})
}

// mutateExpressions replaces from with to in the first expression of obj
// (a copy) that contains it; the YAML form for whole fields.
func mutateExpressions(t *testing.T, obj map[string]any, from, to string) map[string]any {
	t.Helper()
	if strings.Contains(from, "expression: ") {
		y, _ := yaml.Marshal(obj)
		y = bytes.Replace(y, []byte(from), []byte(to), 1)
		var out map[string]any
		if err := yaml.Unmarshal(y, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := (&unstructured.Unstructured{Object: obj}).DeepCopy().Object
	for _, list := range []string{"variables", "validations", "matchConditions"} {
		items, _, _ := unstructured.NestedSlice(out, "spec", list)
		for i, it := range items {
			m := it.(map[string]any)
			for _, key := range []string{"expression", "messageExpression"} {
				if s, ok := m[key].(string); ok && strings.Contains(s, from) {
					m[key] = strings.Replace(s, from, to, 1)
					items[i] = m
					_ = unstructured.SetNestedSlice(out, items, "spec", list)
					return out
				}
			}
		}
	}
	t.Fatalf("no expression contains %q", from)
	return nil
}
