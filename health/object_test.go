package health

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/render"
)

func TestJSONEqual_IsTrueOnlyWhenTheJSONIsTheSame(t *testing.T) {
	tests := []struct {
		name string
		a, b any
	}{
		{"equal strings", "Enforce", "Enforce"},
		{"different strings", "Enforce", "Audit"},
		{"a string and a bool", "true", true},
		{"equal bools", false, false},
		{"an integer decoded by apimachinery and the same float decoded by encoding/json", int64(3), float64(3)},
		{"a float and the same integer", float64(-2), int64(-2)},
		{"a fraction and an integer", float64(2.5), int64(2)},
		{"zero and negative zero", int64(0), math.Copysign(0, -1)},
		{"an integer beyond float64's exact range", int64(1<<53 + 1), float64(1 << 53)},
		{"an int, which unstructured objects never hold", 3, 3},
		{"a nil map and an empty map", map[string]any(nil), map[string]any{}},
		{"a nil list and an empty list", []any(nil), []any{}},
		{"equal nested values", map[string]any{"a": []any{"x", map[string]any{"b": true}}}, map[string]any{"a": []any{"x", map[string]any{"b": true}}}},
		{"a key with null and a missing key", map[string]any{"a": nil}, map[string]any{"b": nil}},
		{"lists in another order", []any{"a", "b"}, []any{"b", "a"}},
		{"null and null", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ja, erra := json.Marshal(tt.a)
			jb, errb := json.Marshal(tt.b)
			same := erra == nil && errb == nil && string(ja) == string(jb)
			got := jsonEqual(tt.a, tt.b)
			if got && !same {
				t.Errorf("jsonEqual(%#v, %#v) = true, but they marshal to %s and %s", tt.a, tt.b, ja, jb)
			}
			_, unknown := tt.a.(int)
			if !got && same && !unknown {
				t.Errorf("jsonEqual(%#v, %#v) = false, but both marshal to %s", tt.a, tt.b, ja)
			}
		})
	}
}

func TestMergeDiff(t *testing.T) {
	from := map[string]any{"spec": map[string]any{"a": "x", "b": []any{"1"}, "gone": true}, "kept": "k"}
	to := map[string]any{"spec": map[string]any{"a": "y", "b": []any{"1"}, "new": map[string]any{"c": "d"}}, "kept": "k"}
	want := map[string]any{"spec": map[string]any{"a": "y", "new": map[string]any{"c": "d"}, "gone": nil}}
	if diff := cmp.Diff(want, mergeDiff(from, to)); diff != "" {
		t.Errorf("mergeDiff (-want +got):\n%s", diff)
	}
}

// TestMatchRendered_AgreesWithHashOf changes one thing in a served copy of
// every rendered object of every target and checks that the fast path
// never claims more than render.HashOf would: at least matchHashed only
// when the copy hashes to the render-hash annotation, and the level each
// change should reach.
func TestMatchRendered_AgreesWithHashOf(t *testing.T) {
	tests := []struct {
		name   string
		change func(md map[string]any)
		want   match
	}{
		{"a copy read back from the server matches exactly", func(map[string]any) {}, matchExact},
		{"a label another controller added leaves what HashOf covers the same", func(md map[string]any) {
			md["labels"].(map[string]any)["example.com/owner"] = "platform"
		}, matchHashed},
		{"an annotation another controller added leaves what HashOf covers the same", func(md map[string]any) {
			annotations(md)["example.com/note"] = "checked"
		}, matchHashed},
		{"a changed render-hash annotation is left to the annotation check", func(md map[string]any) {
			annotations(md)[render.AnnotationRenderHash] = "sha256:0"
		}, matchHashed},
		{"a changed managed-by label changes the hash", func(md map[string]any) {
			md["labels"].(map[string]any)[render.LabelManagedBy] = "someone-else"
		}, matchNone},
		{"a removed template label changes the hash", func(md map[string]any) {
			delete(md["labels"].(map[string]any), render.LabelTemplate)
		}, matchNone},
		{"an added or changed autogen annotation changes the hash", func(md map[string]any) {
			annotations(md)[render.AnnotationKyvernoAutogen] = "Deployment"
		}, matchNone},
		{"a label that is not a string makes HashOf drop every label", func(md map[string]any) {
			md["labels"].(map[string]any)["example.com/count"] = int64(3)
		}, matchNone},
		{"an annotation that is not a string makes HashOf drop every annotation", func(md map[string]any) {
			annotations(md)["example.com/count"] = true
		}, matchNone},
		{"labels that are not a map", func(md map[string]any) { md["labels"] = "x" }, matchNone},
		{"another name", func(md map[string]any) { md["name"] = "other" }, matchNone},
	}
	for _, target := range render.Targets() {
		res, err := render.Render(render.Input{Plan: samplePlan(nil), Now: now, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range tests {
			t.Run(string(target)+"/"+tt.name, func(t *testing.T) {
				for i, want := range res.Objects() {
					live := served(want, i)
					tt.change(live.Object["metadata"].(map[string]any))
					got := matchRendered(live, want)
					h, err := render.HashOf(live)
					agrees := err == nil && h == annotationOf(want, render.AnnotationRenderHash)
					if got >= matchHashed && !agrees {
						t.Errorf("%s: match %d, but HashOf gives %s (err %v), not the annotation", describe(live), got, h, err)
					}
					if got != tt.want {
						t.Errorf("%s: match %d, want %d", describe(live), got, tt.want)
					}
				}
			})
		}
	}
}

// annotations returns the annotation map of metadata md, making it.
func annotations(md map[string]any) map[string]any {
	a, _ := md["annotations"].(map[string]any)
	if a == nil {
		a = map[string]any{}
		md["annotations"] = a
	}
	return a
}

// TestHashedMetadataIsWhatHashOfCovers keeps hashedLabels and
// hashedAnnotations in step with render.HashOf: changing one of them
// changes the hash of every rendered object, changing any other label or
// annotation an object carries does not.
func TestHashedMetadataIsWhatHashOfCovers(t *testing.T) {
	for _, target := range render.Targets() {
		res, err := render.Render(render.Input{Plan: samplePlan(nil), Now: now, Target: target})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Objects() {
			before, err := render.HashOf(o)
			if err != nil {
				t.Fatal(err)
			}
			for _, field := range []struct {
				name   string
				hashed []string
			}{{"labels", hashedLabels}, {"annotations", hashedAnnotations}} {
				m, _ := o.Object["metadata"].(map[string]any)[field.name].(map[string]any)
				keys := append([]string{"example.com/other"}, field.hashed...)
				for k := range m {
					keys = append(keys, k)
				}
				for _, k := range keys {
					c := o.DeepCopy()
					md := c.Object["metadata"].(map[string]any)
					if md[field.name] == nil {
						md[field.name] = map[string]any{}
					}
					md[field.name].(map[string]any)[k] = "changed-value"
					after, err := render.HashOf(c)
					if err != nil {
						t.Fatal(err)
					}
					if changed, hashed := after != before, slices.Contains(field.hashed, k); changed != hashed {
						t.Errorf("%s: setting %s %q changes the hash: %v; in the hashed list: %v", describe(o), field.name, k, changed, hashed)
					}
				}
			}
		}
	}
}

// TestMatchRendered_TopLevelFields: besides the rendered fields, a live
// object may hold metadata and a status, nothing else.
func TestMatchRendered_TopLevelFields(t *testing.T) {
	tests := []struct {
		name   string
		change func(live, want map[string]any)
		want   match
	}{
		{"a live object with a status matches", func(map[string]any, map[string]any) {}, matchExact},
		{"a live object without a status matches", func(live, _ map[string]any) { delete(live, "status") }, matchExact},
		{"a live object with a field the render lacks does not match", func(live, _ map[string]any) {
			live["data"] = map[string]any{}
		}, matchNone},
		{"a live object with a field instead of its status does not match", func(live, _ map[string]any) {
			delete(live, "status")
			live["data"] = "x"
		}, matchNone},
		{"a live object without a rendered field does not match", func(live, _ map[string]any) { delete(live, "spec") }, matchNone},
		{"a rendered status is compared like any field", func(live, want map[string]any) {
			want["status"] = map[string]any{"x": "y"}
		}, matchNone},
		{"a rendered status the live object holds the same matches", func(live, want map[string]any) {
			want["status"] = copyJSON(live["status"])
		}, matchExact},
		{"a live object without metadata matches none", func(live, _ map[string]any) { delete(live, "metadata") }, matchNone},
	}
	res, err := render.Render(render.Input{Plan: samplePlan(nil), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := res.Objects()[0].DeepCopy()
			live := served(want, 0)
			tt.change(live.Object, want.Object)
			if got := matchRendered(live, want); got != tt.want {
				t.Errorf("match %d, want %d", got, tt.want)
			}
		})
	}
}
