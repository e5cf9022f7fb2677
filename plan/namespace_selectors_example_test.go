package plan_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// Which namespaces a scope of label selectors covers: ORed, and never the
// release namespace or the control plane's.
func ExampleCoveredNamespaces() {
	scope := plan.Scope{NamespaceSelectors: []metav1.LabelSelector{
		{MatchLabels: map[string]string{"env": "prod"}},
		{MatchLabels: map[string]string{"team": "payments"}},
	}}
	namespaces := []plan.NamespaceInfo{
		{Name: "shop", Labels: map[string]string{"env": "prod"}},
		{Name: "ledger", Labels: map[string]string{"team": "payments"}},
		{Name: "sandbox", Labels: map[string]string{"env": "dev"}},
		{Name: "telark-system", Labels: map[string]string{"env": "prod"}},
		{Name: "kube-system", Labels: map[string]string{"env": "prod"}},
	}
	fmt.Println(plan.CoveredNamespaces(scope, plan.AlwaysLeftOut("telark-system", nil), namespaces))
	// Output: [ledger shop]
}
