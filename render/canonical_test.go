package render

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestCanonicalMetadata_AsJSONMarshalWritesIt: the metadata part of the
// canonical form, written without reflection, is byte for byte what
// json.Marshal writes for the canonical map, whatever the strings hold.
func TestCanonicalMetadata_AsJSONMarshalWritesIt(t *testing.T) {
	if !slices.IsSorted(hashedLabels) || !slices.IsSorted(hashedAnnotations) {
		t.Fatal("hashedLabels and hashedAnnotations must be sorted, as json.Marshal sorts keys")
	}
	for name, c := range map[string]struct {
		name, namespace     string
		labels, annotations map[string]string
	}{
		"a rendered policy with its labels": {"freeze-scaling", "shop",
			map[string]string{LabelManagedBy: ManagedBy, LabelPlan: "p", LabelTemplate: "scaling"}, nil},
		"a cluster-scoped object with the autogen annotation and others": {"freeze-scaling.shop", "",
			map[string]string{LabelPlan: "p", "other": "x"}, map[string]string{AnnotationKyvernoAutogen: "none", AnnotationRenderHash: "h"}},
		"no labels and no annotations": {"n", "ns", nil, nil},
		"strings json.Marshal escapes": {"<a&b>\"\\\n\u2028é\x7f\xff", "ns\t",
			map[string]string{LabelTemplate: "<x>", LabelPlan: "\x00"}, map[string]string{AnnotationKyvernoAutogen: "a&b"}},
	} {
		want, err := json.Marshal(canonicalMetadataMap(c.name, c.namespace, c.labels, c.annotations))
		if err != nil {
			t.Fatal(err)
		}
		get := func(m map[string]string) func(string) (string, bool) {
			return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
		}
		if got := appendCanonicalMetadata(nil, c.name, c.namespace, get(c.labels), get(c.annotations)); string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// canonicalMetadataMap is the metadata part of the canonical form as a map,
// as HashOf documents it.
func canonicalMetadataMap(name, namespace string, labels, annotations map[string]string) map[string]any {
	m := map[string]any{"name": name}
	if namespace != "" {
		m["namespace"] = namespace
	}
	subset := func(from map[string]string, keys []string) map[string]any {
		out := map[string]any{}
		for _, k := range keys {
			if v, ok := from[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	if l := subset(labels, hashedLabels); len(l) > 0 {
		m["labels"] = l
	}
	if a := subset(annotations, hashedAnnotations); len(a) > 0 {
		m["annotations"] = a
	}
	return m
}
