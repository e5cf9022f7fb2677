package operator

import (
	"context"
	_ "embed" // the CRD copy
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// The ProtectionPlan CRD, copied from config/crd (generated from package
// plan by controller-gen). The examples are their own module and go:embed
// cannot reach outside it, so the operator keeps a copy;
// TestCRDCopyIsInSync fails when it differs from the original. Refresh it
// with `go generate ./operator/...` in examples/.
//
//go:generate cp ../../../config/crd/telark.io_protectionplans.yaml crd/telark.io_protectionplans.yaml
//go:embed crd/telark.io_protectionplans.yaml
var crdYAML []byte

// CRD returns the ProtectionPlan CustomResourceDefinition the operator
// installs, as an unstructured object (the operator does not need the
// apiextensions types for one server-side apply).
func CRD() (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(crdYAML, &u.Object); err != nil {
		return nil, fmt.Errorf("the embedded ProtectionPlan CRD: %w", err)
	}
	return u, nil
}

// InstallCRD server-side applies the ProtectionPlan CRD with the field
// manager and waits until the API server reports it Established.
func InstallCRD(ctx context.Context, c client.Client, r client.Reader, fieldManager string) error {
	crd, err := CRD()
	if err != nil {
		return err
	}
	name := crd.GetName()
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(crd),
		client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("installing the CRD %s: %w", name, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(crd.GroupVersionKind())
		if err := r.Get(ctx, types.NamespacedName{Name: name}, live); err != nil {
			return false, nil //nolint:nilerr // not visible yet: poll again
		}
		conds, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the CRD %s to be established: %w", name, err)
	}
	return nil
}
