package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// testdata/live/<template>.json are kyverno.io/v1 Policies as a real
// kube-apiserver v1.36.3 with Kyverno v1.19.1 returned them after a
// server-side apply of testdata/<template>_namespaces_enforce.golden
// (test/kyverno's TestLive, with PROTECTIONPLANS_UPDATE_LIVE=1). They carry
// everything the server adds: uid, resourceVersion, managedFields, status.

func TestLiveSamples_ReadBackEqualsTheRender(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "live", "*.json"))
	if len(files) == 0 {
		t.Skip("no live samples")
	}
	for _, f := range files {
		tmpl := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(tmpl, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var live unstructured.Unstructured
			if err := json.Unmarshal(b, &live.Object); err != nil {
				t.Fatal(err)
			}
			if _, ok := live.Object["status"]; !ok {
				t.Error("the sample has no status: not read back from a server")
			}
			h, err := HashOf(&live)
			if err != nil || h != live.GetAnnotations()[AnnotationRenderHash] {
				t.Errorf("HashOf(live) = %s, annotation %s (%v)", h, live.GetAnnotations()[AnnotationRenderHash], err)
			}
			golden, err := os.ReadFile(filepath.Join("testdata", tmpl+"_namespaces_enforce.golden"))
			if err != nil {
				t.Fatal(err)
			}
			var rendered map[string]any
			if err := yaml.Unmarshal(bytes.TrimPrefix(golden, []byte("---\n")), &rendered); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rendered["spec"], live.Object["spec"]); diff != "" {
				t.Errorf("live spec differs from the golden render (-render +live):\n%s", diff)
			}
		})
	}
}

// testdata/live/<target>/<template>.json are the objects of the
// kyverno-cel and vap targets (a v1 List: a NamespacedValidatingPolicy, or
// a ValidatingAdmissionPolicy and its binding) as the same API server
// returned them after a server-side apply of
// testdata/<target>/<template>_namespaces_enforce.golden.
func TestLiveSamples_CELTargetsReadBackEqualsTheRender(t *testing.T) {
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		files, _ := filepath.Glob(filepath.Join("testdata", "live", string(target), "*.json"))
		if len(files) == 0 {
			t.Errorf("%s: no live samples", target)
		}
		for _, f := range files {
			tmpl := strings.TrimSuffix(filepath.Base(f), ".json")
			t.Run(string(target)+"/"+tmpl, func(t *testing.T) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var list unstructured.UnstructuredList
				if err := list.UnmarshalJSON(b); err != nil {
					t.Fatal(err)
				}
				golden := goldenObjects(t, target)
				for i := range list.Items {
					live := &list.Items[i]
					h, err := HashOf(live)
					if err != nil || h != live.GetAnnotations()[AnnotationRenderHash] {
						t.Errorf("%s: HashOf(live) = %s, annotation %s (%v)", live.GetName(), h, live.GetAnnotations()[AnnotationRenderHash], err)
					}
					rendered := golden[fmt.Sprintf("%s_namespaces_enforce.golden#%d", tmpl, i)]
					if rendered == nil || rendered.GetName() != live.GetName() {
						t.Fatalf("%s is not object %d of the golden", live.GetName(), i)
					}
					if diff := cmp.Diff(rendered.Object["spec"], live.Object["spec"]); diff != "" {
						t.Errorf("%s: live spec differs from the golden render (-render +live):\n%s", live.GetName(), diff)
					}
				}
			})
		}
	}
}
