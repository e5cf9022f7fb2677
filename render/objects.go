package render

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// specProto is a policy spec rendered once and shared by every namespace
// whose scope renders it the same way (in a namespaces scope without named
// exclusions, all of them): its unstructured form, copied into each
// object, and its canonical JSON, hashed with each object's metadata.
type specProto struct {
	spec map[string]any
	json []byte
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
	labels := map[string]string{LabelManagedBy: ManagedBy, LabelPlan: c.planID, LabelTemplate: template}
	meta, err := json.Marshal(canonicalMetadata(name, namespace, labels, annotations))
	if err != nil {
		return nil, "", err
	}
	hash := hashCanonical(apiVersion, kind, meta, proto.json)
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
		"spec":       runtime.DeepCopyJSONValue(proto.spec),
	}}, hash, nil
}
