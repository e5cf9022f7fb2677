package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/policytest"
)

// TestTestFileSchema holds the JSON Schema of test files
// (policytest/schema) to what policytest reads: every sample test file
// and every test file protectctl runs is valid, and the files policytest
// refuses for their fields are invalid. The schema is checked by
// santhosh-tekuri/jsonschema, a complete draft 2020-12 validator, so that
// editors validating with the schema agree with protectctl.
func TestTestFileSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schema, err := c.Compile("../../policytest/schema/test.v1alpha1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	validate := func(t *testing.T, file string) error {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		return schema.Validate(doc)
	}
	valid, _ := filepath.Glob("../tests/*_test.yaml")
	valid = append(valid, "testdata/tests/wrong_test.yaml")
	if len(valid) < 6 {
		t.Fatalf("found %d test files", len(valid))
	}
	for _, f := range valid {
		t.Run(f, func(t *testing.T) {
			if err := validate(t, f); err != nil {
				t.Errorf("the schema refuses a file policytest runs:\n%v", err)
			}
			if _, err := policytest.Load(rootFS{}, rootName(abs(t, f))); err != nil {
				t.Errorf("policytest refuses it: %v", err)
			}
		})
	}
	for _, f := range []string{"testdata/tests/invalid_test.yaml", "testdata/tests/unknown-field_test.yaml"} {
		t.Run(f, func(t *testing.T) {
			err := validate(t, f)
			if err == nil {
				t.Fatal("the schema accepts a file policytest refuses")
			}
			if _, lerr := policytest.Load(rootFS{}, rootName(abs(t, f))); lerr == nil {
				t.Error("policytest accepts it")
			}
			t.Logf("%v", strings.ReplaceAll(err.Error(), "\n", " | "))
		})
	}
}

func abs(t *testing.T, f string) string {
	a, err := filepath.Abs(f)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
