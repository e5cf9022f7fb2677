package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Labels and annotations on every rendered object.
const (
	// LabelPlan carries the plan ID (the plan's metadata.name). Health lists
	// live policies by it.
	LabelPlan = "telark.io/protection-plan"
	// LabelTemplate carries the catalog name of the template rendered.
	LabelTemplate = "telark.io/template"
	// LabelManagedBy is the standard managed-by label.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of LabelManagedBy.
	ManagedBy = "protectionplans.telark.io"
	// AnnotationRenderHash carries HashOf the object as rendered.
	AnnotationRenderHash = "telark.io/render-hash"
)

// AnnotationKyvernoAutogen is Kyverno's pod-controller autogen switch. The
// kyverno target sets it to "none" on every policy: without it, Kyverno
// would derive extra rules for Deployments, ReplicaSets,
// ReplicationControllers, ... from every rule that matches Pods only (the
// image rule for Pods), which neither the catalog nor Explain know.
const AnnotationKyvernoAutogen = "pod-policies.kyverno.io/autogen-controllers"

// hashedLabels are the labels that are part of the canonical form.
var hashedLabels = []string{LabelManagedBy, LabelPlan, LabelTemplate}

// hashedAnnotations are the annotations that are part of the canonical
// form: those that change what a policy does.
var hashedAnnotations = []string{AnnotationKyvernoAutogen}

// hashPrefix names the hash function in hash values.
const hashPrefix = "sha256:"

// HashOf returns the render hash of an object: "sha256:" and the hex
// SHA-256 of its canonical form. Render sets the telark.io/render-hash
// annotation to it; health recomputes it on a live object and compares.
//
// The canonical form is the compact JSON, keys sorted, of
//
//	{"apiVersion", "kind",
//	 "metadata": {"annotations": <only AnnotationKyvernoAutogen, when present>,
//	              "labels": <only the three labels above, when present>,
//	              "name", "namespace" (when not empty)},
//	 "spec"}
//
// Everything the server sets (uid, resourceVersion, managedFields, status,
// other labels and annotations, the hash annotation itself) is left out, so
// a live object read back hashes like its render as long as its spec is
// unchanged. Render writes every field Kyverno's CRD defaults, so the
// defaults the API server adds do not change the spec either.
func HashOf(obj *unstructured.Unstructured) (string, error) {
	if obj == nil {
		return "", errors.New("render: HashOf of a nil object")
	}
	spec, err := json.Marshal(obj.Object["spec"])
	if err != nil {
		return "", fmt.Errorf("render: hash of %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	meta, err := json.Marshal(canonicalMetadata(obj.GetName(), obj.GetNamespace(), obj.GetLabels(), obj.GetAnnotations()))
	if err != nil {
		return "", err
	}
	return hashCanonical(obj.GetAPIVersion(), obj.GetKind(), meta, spec), nil
}

// canonicalMetadata is the metadata part of the canonical form.
func canonicalMetadata(name, namespace string, labels, annotations map[string]string) map[string]any {
	m := map[string]any{"name": name}
	if namespace != "" {
		m["namespace"] = namespace
	}
	if l := subset(labels, hashedLabels); len(l) > 0 {
		m["labels"] = l
	}
	if a := subset(annotations, hashedAnnotations); len(a) > 0 {
		m["annotations"] = a
	}
	return m
}

func subset(m map[string]string, keys []string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// hashCanonical hashes the canonical form from its parts: meta and spec are
// compact JSON as json.Marshal writes it, so the result is the JSON
// json.Marshal would write for the whole canonical map. Render calls it with
// a spec marshaled once for many namespaces.
func hashCanonical(apiVersion, kind string, meta, spec []byte) string {
	var b bytes.Buffer
	b.Grow(len(meta) + len(spec) + 96)
	b.WriteString(`{"apiVersion":`)
	writeJSONString(&b, apiVersion)
	b.WriteString(`,"kind":`)
	writeJSONString(&b, kind)
	b.WriteString(`,"metadata":`)
	b.Write(meta)
	b.WriteString(`,"spec":`)
	b.Write(spec)
	b.WriteString(`}`)
	sum := sha256.Sum256(b.Bytes())
	return hashPrefix + hex.EncodeToString(sum[:])
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}
