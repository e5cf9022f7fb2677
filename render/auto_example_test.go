package render_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/render"
)

// The operator's --target=auto: discovery found the API server's
// ValidatingAdmissionPolicy kinds and no Kyverno.
func ExampleChooseTarget() {
	served := []schema.GroupVersionKind{
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"},
		{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"},
	}
	c, err := render.ChooseTarget(served)
	fmt.Println(c.Target, err)
	fmt.Println(c.Reason)
	// Output:
	// vap <nil>
	// no Kyverno runs; the API server serves ValidatingAdmissionPolicy
}
