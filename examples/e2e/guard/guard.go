// Package guard tests config/admission/created-by.yaml, the
// ValidatingAdmissionPolicy that keeps the annotation telark.io/created-by
// honest: on CREATE it must name the requester (except for the trusted
// writers, the API server example's service account), and on UPDATE it never
// changes; and config/admission/grants.yaml, which lets only the API
// server example's service account add or change break-glass grants
// (status.grants).
//
// The unit test (no tag) decodes the manifest strictly into k8s.io/api types
// and type-checks every CEL expression with cel-go, then evaluates the policy
// on the cases that matter. The end-to-end test (build tag e2e) installs the
// CRD and the guard on a real kube-apiserver (../harness) and drives it with
// kubectl --as:
//
//	cd examples && go test ./e2e/guard/
//	PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e -v ./e2e/guard/
package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
)

// Annotation is the annotation the guard protects: the operator's
// CreatedByAnnotation (and the API server example's createdByAnnotation).
const Annotation = plan.CreatedByAnnotation

// DefaultTrustedWriter is the user name of the API server example's service
// account in its default release namespace, the one trusted writer the
// manifest ships with.
const DefaultTrustedWriter = "system:serviceaccount:telark-system:protectionplans-server"

// ManifestPath returns the absolute path of config/admission/created-by.yaml.
func ManifestPath() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("..", "..", "..", "config", "admission", "created-by.yaml")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "config", "admission", "created-by.yaml")
}

// CRDPath returns the absolute path of the ProtectionPlan CRD.
func CRDPath() string {
	return filepath.Join(filepath.Dir(ManifestPath()), "..", "crd", "telark.io_protectionplans.yaml")
}

// Decode reads the manifest strictly (an unknown or duplicated field is an
// error): exactly one ValidatingAdmissionPolicy and one
// ValidatingAdmissionPolicyBinding, in any order.
func Decode(data []byte) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding, error) {
	var (
		policy  *admissionregistrationv1.ValidatingAdmissionPolicy
		binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	)
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for i := 0; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, nil, fmt.Errorf("document %d: %w", i, err)
		}
		if head.APIVersion != admissionregistrationv1.SchemeGroupVersion.String() {
			return nil, nil, fmt.Errorf("document %d: apiVersion %q, want %q", i, head.APIVersion, admissionregistrationv1.SchemeGroupVersion)
		}
		switch head.Kind {
		case "ValidatingAdmissionPolicy":
			if policy != nil {
				return nil, nil, fmt.Errorf("document %d: a second ValidatingAdmissionPolicy", i)
			}
			policy = &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := yaml.UnmarshalStrict(doc, policy); err != nil {
				return nil, nil, fmt.Errorf("document %d (ValidatingAdmissionPolicy): %w", i, err)
			}
		case "ValidatingAdmissionPolicyBinding":
			if binding != nil {
				return nil, nil, fmt.Errorf("document %d: a second ValidatingAdmissionPolicyBinding", i)
			}
			binding = &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			if err := yaml.UnmarshalStrict(doc, binding); err != nil {
				return nil, nil, fmt.Errorf("document %d (ValidatingAdmissionPolicyBinding): %w", i, err)
			}
		default:
			return nil, nil, fmt.Errorf("document %d: unexpected kind %q", i, head.Kind)
		}
	}
	if policy == nil || binding == nil {
		return nil, nil, fmt.Errorf("want one ValidatingAdmissionPolicy and one ValidatingAdmissionPolicyBinding, got policy=%t binding=%t", policy != nil, binding != nil)
	}
	return policy, binding, nil
}

// stripComments drops whole-line YAML comments, to tell a document of
// comments only (the manifest's header) from one with content.
func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '#' {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
