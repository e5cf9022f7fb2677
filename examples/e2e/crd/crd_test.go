package crd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// celValidator compiles the CEL rules of config/crd's CRD with the API
// server's own validator (k8s.io/apiextensions-apiserver): the fast test of
// the rules, without an API server. It checks the x-kubernetes-validations
// only, not the rest of the OpenAPI schema (the live test does).
func celValidator(t *testing.T) (*cel.Validator, *schema.Structural) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "config", "crd", "telark.io_protectionplans.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &crd); err != nil {
		t.Fatal(err)
	}
	if len(crd.Spec.Versions) != 1 {
		t.Fatalf("%d versions, want 1", len(crd.Spec.Versions))
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := schema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	v := cel.NewValidator(s, true, celconfig.PerCallLimit)
	if v == nil {
		t.Fatal("the CRD has no CEL rules")
	}
	return v, s
}

// validate runs the rules on obj (an update from old when old is not nil).
func validate(v *cel.Validator, s *schema.Structural, obj, old map[string]any) field.ErrorList {
	var oldObj any
	if old != nil {
		oldObj = old
	}
	errs, _ := v.Validate(context.Background(), nil, s, obj, oldObj, celconfig.RuntimeCELCostBudget)
	return errs
}

func readYAML(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if obj != nil {
			out = append(out, obj)
		}
	}
	return out
}

func TestCRDRules_AdmitWhatTheGoValidationAccepts(t *testing.T) {
	v, s := celValidator(t)
	for _, path := range samplePlans(t) {
		for _, obj := range readYAML(t, path) {
			if errs := validate(v, s, obj, nil); len(errs) > 0 {
				t.Errorf("%s: refused: %v", path, errs.ToAggregate())
			}
		}
	}
	for what, c := range admittedCases {
		t.Run(what, func(t *testing.T) {
			if errs := validate(v, s, planObject(t, "ok", c), nil); len(errs) > 0 {
				t.Errorf("refused: %v", errs.ToAggregate())
			}
		})
	}
}

func TestCRDRules_RefuseEachBadPlanNamingTheField(t *testing.T) {
	v, s := celValidator(t)
	for what, tc := range refusedCases {
		if tc.schema {
			continue // a limit of the OpenAPI schema: the live test checks it
		}
		t.Run(what, func(t *testing.T) {
			errs := validate(v, s, planObject(t, "bad", tc.change), nil)
			if len(errs) == 0 {
				t.Fatalf("admitted, want it refused naming %q", tc.want)
			}
			got := errs.ToAggregate().Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the error does not name %q: %s", w, got)
				}
			}
		})
	}
}

func TestCRDRules_Updates(t *testing.T) {
	v, s := celValidator(t)
	for what, tc := range updateCases {
		t.Run(what, func(t *testing.T) {
			errs := validate(v, s, planObject(t, "upd", tc.new), planObject(t, "upd", tc.old))
			got := errs.ToAggregate()
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("refused: %v", got)
			case tc.want != nil && got == nil:
				t.Errorf("admitted, want it refused naming %q", tc.want)
			case tc.want != nil:
				for _, w := range tc.want {
					if !strings.Contains(got.Error(), w) {
						t.Errorf("the error does not name %q: %s", w, got)
					}
				}
			}
		})
	}
}
