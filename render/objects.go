package render

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// specProto is a policy spec rendered once and shared by every namespace
// whose scope renders it the same way (in a namespaces scope without named
// exclusions, all of them): its unstructured form, which each object
// shares (objectSpec), and its canonical JSON, hashed with each object's
// metadata.
type specProto struct {
	spec map[string]any
	json []byte
	// single: the spec is for one object only (a VAP binding names its
	// namespace), which takes it as is.
	single bool
}

// objectSpec returns the spec of one more object made from the proto.
// Every map reachable from the spec through maps alone is the object's
// own; the lists (JSON arrays) and everything in them are shared with the
// other objects of the proto. A deep copy per object held most of a large
// render's memory, and the lists (rules, validations) are nearly all of a
// spec. The unstructured helpers that write (SetNestedField and the rest,
// RemoveNestedField) walk maps only, and the ones that read a list
// (NestedSlice) copy it, so changing an object through them never changes
// another; see Policy.Objects.
func (p *specProto) objectSpec() map[string]any {
	if p.single {
		return p.spec
	}
	return copyMaps(p.spec)
}

// copyMaps copies m and every map reachable from it through maps, and
// shares everything else.
func copyMaps(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = copyMaps(sub)
		}
		out[k] = v
	}
	return out
}

// newSpecProto turns a typed spec into its unstructured and canonical
// forms (JSON with sorted keys, as json.Marshal writes a map).
func newSpecProto(spec any) (*specProto, error) {
	typed, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(typed, &m); err != nil {
		return nil, err
	}
	canonical, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &specProto{spec: m, json: canonical}, nil
}

// renderedObject makes one object from a shared spec: the plan, template
// and managed-by labels, the given (hashed) annotations, and the render
// hash of the result, which it returns too. namespace is empty for a
// cluster-scoped object.
func renderedObject(c *compiled, apiVersion, kind, template, name, namespace string, annotations map[string]string, proto *specProto) (*unstructured.Unstructured, string, error) {
	label := func(k string) (string, bool) {
		switch k {
		case LabelManagedBy:
			return ManagedBy, true
		case LabelPlan:
			return c.planID, true
		case LabelTemplate:
			return template, true
		}
		return "", false
	}
	annotation := func(k string) (string, bool) { v, ok := annotations[k]; return v, ok }
	hash := hashCanonical(apiVersion, kind, name, namespace, label, annotation, proto.json)
	md := map[string]any{
		"name":   name,
		"labels": map[string]any{LabelManagedBy: ManagedBy, LabelPlan: c.planID, LabelTemplate: template},
	}
	if namespace != "" {
		md["namespace"] = namespace
	}
	ann := map[string]any{AnnotationRenderHash: hash}
	for k, v := range annotations {
		ann[k] = v
	}
	md["annotations"] = ann
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   md,
		"spec":       proto.objectSpec(),
	}}, hash, nil
}
