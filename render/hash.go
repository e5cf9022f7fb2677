package render

import (
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
	lookup := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	return hashCanonical(obj.GetAPIVersion(), obj.GetKind(), obj.GetName(), obj.GetNamespace(),
		lookup(obj.GetLabels()), lookup(obj.GetAnnotations()), spec), nil
}

// hashCanonical hashes the canonical form from its parts: the metadata's
// name, namespace and hashed labels and annotations (looked up by key),
// and spec, compact JSON as json.Marshal writes it. It writes the JSON
// json.Marshal would write for the whole canonical map (keys sorted:
// annotations, labels, name, namespace in the metadata; a test holds the
// two equal) without reflection and streams it into the hash: Render
// hashes every object, with a spec marshaled once for many namespaces.
func hashCanonical(apiVersion, kind, name, namespace string, label, annotation func(string) (string, bool), spec []byte) string {
	var buf [512]byte
	b := append(buf[:0], `{"apiVersion":`...)
	b = appendJSONString(b, apiVersion)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, kind)
	b = append(b, `,"metadata":`...)
	b = appendCanonicalMetadata(b, name, namespace, label, annotation)
	b = append(b, `,"spec":`...)
	h := sha256.New()
	h.Write(b)
	h.Write(spec)
	h.Write([]byte{'}'})
	var sum [sha256.Size]byte
	return hashPrefix + hex.EncodeToString(h.Sum(sum[:0]))
}

// appendCanonicalMetadata appends the metadata part of the canonical form.
func appendCanonicalMetadata(b []byte, name, namespace string, label, annotation func(string) (string, bool)) []byte {
	b = append(b, '{')
	b = appendSubset(b, `"annotations":{`, annotation, hashedAnnotations)
	b = appendSubset(b, `"labels":{`, label, hashedLabels)
	b = append(b, `"name":`...)
	b = appendJSONString(b, name)
	if namespace != "" {
		b = append(b, `,"namespace":`...)
		b = appendJSONString(b, namespace)
	}
	return append(b, '}')
}

// appendSubset appends the object of the keys (sorted) that get finds,
// and a comma, under open; nothing when it finds none.
func appendSubset(b []byte, open string, get func(string) (string, bool), keys []string) []byte {
	n := 0
	for _, k := range keys {
		v, ok := get(k)
		if !ok {
			continue
		}
		if n == 0 {
			b = append(b, open...)
		} else {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, v)
		n++
	}
	if n > 0 {
		b = append(b, '}', ',')
	}
	return b
}

// appendJSONString appends s as json.Marshal writes it: quoted as is when
// it holds only printable ASCII that json.Marshal does not escape (every
// name, label and kind Render writes), else by json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
