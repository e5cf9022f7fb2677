package render

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

// TestObjects_ChangingOnePolicyLeavesTheOthers: the objects of a render
// share the lists of their specs (objectSpec); every change the Policy
// documentation allows to one policy's objects leaves every other policy
// of the render, and the next render, as they were.
func TestObjects_ChangingOnePolicyLeavesTheOthers(t *testing.T) {
	for name, change := range map[string]func(o *unstructured.Unstructured){
		"its labels, annotations, resource version and name are set": func(o *unstructured.Unstructured) {
			o.SetLabels(map[string]string{"x": "y"})
			o.SetAnnotations(map[string]string{"x": "y"})
			o.SetResourceVersion("4711")
			o.SetName("other")
		},
		"its failure action is set": func(o *unstructured.Unstructured) {
			_ = SetFailureAction(o, plan.ModeAudit)
		},
		"every map in it gets a key, loses one and has its values replaced": func(o *unstructured.Unstructured) {
			eachMap(o.Object, func(m map[string]any) {
				for k, v := range m {
					if _, isMap := v.(map[string]any); !isMap {
						m[k] = "changed"
					}
				}
				m["added"] = true
			})
			eachMap(o.Object, func(m map[string]any) {
				for k := range m {
					if k != "spec" && k != "metadata" {
						delete(m, k)
						return
					}
				}
			})
		},
		"every list in it is read with NestedSlice, changed and written back with SetNestedSlice": func(o *unstructured.Unstructured) {
			eachListPath(o.Object, nil, func(path []string) {
				items, _, _ := unstructured.NestedSlice(o.Object, path...)
				for i, it := range items {
					if m, ok := it.(map[string]any); ok {
						for k := range m {
							m[k] = "changed"
						}
					} else {
						items[i] = "changed"
					}
				}
				_ = unstructured.SetNestedSlice(o.Object, append(items, "added"), path...)
			})
		},
		"a deep copy of it has every list changed in place": func(o *unstructured.Unstructured) {
			c := o.DeepCopy()
			eachListPath(c.Object, nil, func(path []string) {
				items, _, _ := unstructured.NestedFieldNoCopy(c.Object, path...)
				for i := range items.([]any) {
					items.([]any)[i] = "changed"
				}
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			for _, target := range Targets() {
				p := namespacePlan(plan.ModeEnforce, []string{"a", "b", "c"}, allTemplates()...)
				in := Input{Plan: p, Now: now, Target: target}
				res := mustRender(t, in)
				before := objectsJSON(t, res.Policies)
				changed := map[int]bool{}
				for i, pol := range res.Policies {
					if pol.Namespace == "b" {
						changed[i] = true
						for _, o := range pol.Objects {
							change(o)
						}
					}
				}
				after := objectsJSON(t, res.Policies)
				for i := range res.Policies {
					if !changed[i] && before[i] != after[i] {
						t.Errorf("%s: changing the policies of namespace b changed %s/%s", target, res.Policies[i].Namespace, res.Policies[i].Name)
					}
				}
				again := objectsJSON(t, mustRender(t, in).Policies)
				for i := range again {
					if again[i] != before[i] {
						t.Errorf("%s: changing a render changed the next render's %s/%s", target, res.Policies[i].Namespace, res.Policies[i].Name)
					}
				}
			}
		})
	}
}

// TestObjects_ShareTheirLists: the lists of a spec are shared between the
// namespaces of a plan (what keeps a large render's memory close to its
// output) and the maps are not.
func TestObjects_ShareTheirLists(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"a", "b"}, tpl("scaling"))
	res := mustRender(t, Input{Plan: p, Now: now})
	a, b := res.Policies[0].Objects[0].Object["spec"].(map[string]any), res.Policies[1].Objects[0].Object["spec"].(map[string]any)
	ra, rb := a["rules"].([]any), b["rules"].([]any)
	if &ra[0] != &rb[0] {
		t.Error("two namespaces' rules are separate copies")
	}
	a["x"] = true
	if _, ok := b["x"]; ok {
		t.Error("two namespaces share a spec map")
	}
}

// eachMap calls f on every map reachable from m through maps.
func eachMap(m map[string]any, f func(map[string]any)) {
	f(m)
	for _, v := range m {
		if sub, ok := v.(map[string]any); ok {
			eachMap(sub, f)
		}
	}
}

// eachListPath calls f with the path of every list reachable from m
// through maps.
func eachListPath(m map[string]any, path []string, f func([]string)) {
	for k, v := range m {
		p := append(append([]string(nil), path...), k)
		switch v := v.(type) {
		case map[string]any:
			eachListPath(v, p, f)
		case []any:
			f(p)
		}
	}
}

func objectsJSON(t *testing.T, pols []Policy) []string {
	t.Helper()
	out := make([]string, len(pols))
	for i, pol := range pols {
		data, err := json.Marshal(pol.Objects)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(data)
	}
	return out
}
