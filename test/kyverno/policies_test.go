package kyverno_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	kyvernov1 "github.com/kyverno/kyverno/api/kyverno/v1"
	"github.com/kyverno/kyverno/pkg/validation/policy"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/render"
)

const (
	goldenDir    = "../../render/testdata"
	backgroundSA = "system:serviceaccount:kyverno:kyverno-background-controller"
	reportsSA    = "system:serviceaccount:kyverno:kyverno-reports-controller"
)

// targetGoldenDir is where render keeps a target's golden files.
func targetGoldenDir(target render.Target) string {
	if target == render.TargetKyverno {
		return goldenDir
	}
	return filepath.Join(goldenDir, string(target))
}

// goldenDocuments returns every YAML document of every golden file, keyed
// by "<file>#<index>", of a target: render/testdata/*.golden for kyverno,
// render/testdata/<target>/*.golden for the others.
func goldenDocuments(t *testing.T, target render.Target) map[string][]byte {
	t.Helper()
	dir := targetGoldenDir(target)
	files, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files in %s: %v", dir, err)
	}
	docs := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("---\n"))[1:] {
			docs[fmt.Sprintf("%s#%d", filepath.Base(f), i)] = doc
		}
	}
	return docs
}

func TestGoldenPolicies(t *testing.T) {
	for name, doc := range goldenDocuments(t, render.TargetKyverno) {
		t.Run(name, func(t *testing.T) {
			var pol kyvernov1.Policy
			if err := yaml.UnmarshalStrict(doc, &pol); err != nil {
				t.Fatalf("strict decode into kyvernov1.Policy: %v", err)
			}
			checkNothingLost(t, doc, &pol)
			warnings, err := policy.Validate(&pol, nil, nil, true, backgroundSA, reportsSA)
			if err != nil {
				t.Fatalf("Kyverno's policy validation refuses it: %v", err)
			}
			for _, w := range warnings {
				t.Logf("warning: %s", w)
			}
		})
	}
}

// checkNothingLost encodes the typed policy again and compares its spec
// with the document's: a field Kyverno's types read differently (a string
// where Kyverno wants a bool, a list flattened) would show here.
func checkNothingLost(t *testing.T, doc []byte, pol *kyvernov1.Policy) {
	t.Helper()
	var want map[string]any
	if err := yaml.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pol)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// Kyverno's types write empty structs for unset fields ("resources":
	// {}); they mean nothing, so they are pruned before comparing.
	if diff := cmp.Diff(prune(want["spec"]), prune(got["spec"])); diff != "" {
		t.Errorf("the spec does not survive Kyverno's types (-rendered +through Kyverno):\n%s", diff)
	}
	for _, k := range []string{"labels", "annotations", "name", "namespace"} {
		if !reflect.DeepEqual(want["metadata"].(map[string]any)[k], got["metadata"].(map[string]any)[k]) {
			t.Errorf("metadata.%s does not survive Kyverno's types", k)
		}
	}
}

// prune drops empty maps, recursively.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			e = prune(e)
			if m, ok := e.(map[string]any); ok && len(m) == 0 {
				continue
			}
			out[k] = e
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = prune(e)
		}
		return out
	}
	return v
}
