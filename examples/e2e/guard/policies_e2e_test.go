//go:build e2e

package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/examples/e2e/harness"
)

// policiesRBAC gives alice every right on Kyverno policies in shop, as a
// namespace admin has them.
const policiesRBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: kyverno-policy-admin
  namespace: shop
rules:
- apiGroups: ["kyverno.io", "policies.kyverno.io"]
  resources: ["*"]
  verbs: ["*"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: kyverno-policy-admin
  namespace: shop
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: kyverno-policy-admin
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: alice
`

// TestPoliciesGuardE2E installs config/admission/policies.yaml on the
// harness: alice, with full rights on Kyverno policies in shop, cannot
// delete, edit or unlabel a plan's Policy or NamespacedValidatingPolicy
// (refused naming the plan); the operator's identity still updates and
// deletes them, and so does the namespace controller's.
func TestPoliciesGuardE2E(t *testing.T) {
	start := time.Now()
	env := harness.MustStart(t, harness.WithoutReportsController())
	t.Logf("control plane + Kyverno ready in %s", time.Since(start).Round(time.Millisecond))
	k := kubectl{t: t, env: env}
	const (
		alice    = "--as=alice"
		operator = "--as=" + OperatorWriter
		masters  = "--as-group=system:masters"
		nsCtl    = "--as=system:serviceaccount:kube-system:namespace-controller"
		guard    = "protectionplans-policies"
	)
	k.admitted("namespace shop", "", "create", "namespace", "shop")
	k.admitted("alice's rights on Kyverno policies in shop", policiesRBAC, "apply", "-f", "-")
	k.admitted("the guard", "", "apply", "-f", PoliciesManifestPath())
	apply := func(file string, as ...string) {
		data, err := os.ReadFile(filepath.Join("..", "harness", "testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		args := append(as, "apply", "-n", "shop", "-f", "-")
		k.admitted("apply "+file, string(data), args...)
	}
	apply("policy-enforce-v1.yaml", operator, masters)
	apply("nvpol-enforce.yaml", operator, masters)
	for _, kind := range []string{"policies.kyverno.io/freeze-replicas", "namespacedvalidatingpolicies.policies.kyverno.io/freeze-replicas-cel-deny"} {
		k.admitted("label "+kind, "", operator, masters, "label", "-n", "shop", kind, "telark.io/protection-plan=summer-freeze")
	}

	// The guard takes effect asynchronously.
	step := time.Now()
	waitCtx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	for {
		_, stderr, err := env.KubectlInput(waitCtx, "", alice, "delete", "-n", "shop", "--dry-run=server", "policies.kyverno.io/freeze-replicas")
		if err != nil && strings.Contains(stderr, guard) {
			break
		}
		if waitCtx.Err() != nil {
			t.Fatalf("the guard did not take effect within 90 s; last answer: err=%v %s", err, stderr)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("the guard took effect after %s", time.Since(step).Round(time.Millisecond))

	const named = "this policy enforces protection plan summer-freeze"
	for _, res := range []string{"policies.kyverno.io/freeze-replicas", "namespacedvalidatingpolicies.policies.kyverno.io/freeze-replicas-cel-deny"} {
		k.refusedBy(guard, "alice deletes "+res, named+": only the operator removes it", "", alice, "delete", "-n", "shop", res)
		k.refusedBy(guard, "alice unlabels "+res, named, "", alice, "label", "-n", "shop", res, "telark.io/protection-plan-")
		k.refusedBy(guard, "alice annotates "+res, named, "", alice, "annotate", "-n", "shop", res, "note=x")
	}
	k.refusedBy(guard, "alice edits the Policy's rules", named+": its rules, labels and annotations are the operator's", "",
		alice, "patch", "-n", "shop", "policies.kyverno.io/freeze-replicas", "--type=json",
		"-p", `[{"op":"replace","path":"/spec/rules/0/validate/message","value":"nothing is frozen"}]`)
	k.refusedBy(guard, "alice edits the CEL policy", named, "",
		alice, "patch", "-n", "shop", "namespacedvalidatingpolicies.policies.kyverno.io/freeze-replicas-cel-deny", "--type=json",
		"-p", `[{"op":"replace","path":"/spec/validationActions","value":["Audit"]}]`)

	// The operator repairs, updates and withdraws.
	k.admitted("the operator updates the Policy", "", operator, masters, "patch", "-n", "shop", "policies.kyverno.io/freeze-replicas", "--type=json",
		"-p", `[{"op":"replace","path":"/spec/rules/0/validate/message","value":"spec.replicas is frozen by summer-freeze"}]`)
	k.admitted("the operator withdraws the Policy", "", operator, masters, "delete", "-n", "shop", "policies.kyverno.io/freeze-replicas")
	k.admitted("the namespace controller deletes the CEL policy of a namespace being deleted", "", nsCtl, masters,
		"delete", "-n", "shop", "namespacedvalidatingpolicies.policies.kyverno.io/freeze-replicas-cel-deny")
	t.Logf("done in %s", time.Since(start).Round(time.Millisecond))
}
