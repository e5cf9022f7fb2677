//go:build e2e

package harness_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/examples/e2e/harness"
)

// TestRecordEnforcerFixtures records what health's enforcement check reads
// of a real Kyverno 1.19.1 (issue 21): its validating webhook
// configurations in its fail-closed default and started with
// --forceFailurePolicyIgnore (fail open, as a chart that fails open has
// them), and with failurePolicy patched to Ignore by hand; policy statuses
// ready and not; PolicyExceptions of both kinds (kyverno.io/v2 and
// policies.kyverno.io/v1); Kyverno's ConfigMap; a ValidatingAdmissionPolicy
// with type-checking warnings and its binding.
//
// It writes only when PROTECTIONPLANS_RECORD_FIXTURES=1, into
// PROTECTIONPLANS_FIXTURES_DIR or ../../../health/testdata/kyverno-1.19.1.
func TestRecordEnforcerFixtures(t *testing.T) {
	out := fixturesDir(t, filepath.Join("..", "..", "..", "health", "testdata", "kyverno-1.19.1"))
	log := &strings.Builder{}
	fmt.Fprintf(log, "# Recorded %s by TestRecordEnforcerFixtures (examples/e2e/harness/record_enforcer_e2e_test.go).\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(log, "# kubectl runs with an admin kubeconfig (user e2e-admin, group system:masters).\n\n")

	const ns = "shop"
	isKyverno := func(item map[string]any) bool {
		md, _ := item["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		return strings.HasPrefix(name, "kyverno-")
	}

	// Fail closed: the harness's default; exceptions enabled in every
	// namespace as Kyverno's chart can have them.
	func() {
		fmt.Fprintf(log, "## Kyverno started with --enablePolicyException=true --exceptionNamespace=*\n\n")
		env, err := harness.Start(t.Context(), t, harness.WithoutReportsController(),
			harness.WithKyvernoArgs("--enablePolicyException=true", "--exceptionNamespace=*"))
		if err != nil {
			t.Fatal(err)
		}
		defer env.Stop()
		k := kubectl{t: t, env: env, log: log}
		r := recorder{t: t, k: k, dir: out}
		r.write("versions.json", []byte(k.must("version", "-o", "json")))
		k.namespaceWithDeployment(ns)
		k.must("apply", "-n", ns, "-f", "testdata/policy-enforce-v1.yaml")
		k.must("apply", "-n", ns, "-f", "testdata/nvpol-enforce.yaml")
		for _, p := range []string{"freeze-replicas", "freeze-replicas-cel-deny"} {
			if err := env.WaitPolicyReady(t.Context(), ns, p); err != nil {
				t.Fatal(err)
			}
		}
		r.dumpList("webhooks-fail-closed.json", "", "validatingwebhookconfigurations", isKyverno)
		r.dumpList("policies-v1-ready.json", ns, "policies.kyverno.io", nil)
		r.dumpList("nvpols-ready.json", ns, "namespacedvalidatingpolicies.policies.kyverno.io", nil)
		r.dumpList("configmaps-kyverno.json", "kyverno", "configmaps", func(item map[string]any) bool {
			md, _ := item["metadata"].(map[string]any)
			return md["name"] == "kyverno"
		})

		// Policies Kyverno may not load: keep what the API server admits.
		for _, f := range []string{"policy-unloadable-v1.yaml", "nvpol-unloadable.yaml", "nvpol-badcel.yaml"} {
			k.run("apply", "-n", ns, "-f", filepath.Join("testdata", "enforcer", f))
		}
		time.Sleep(15 * time.Second)
		r.dumpList("policies-v1-all.json", ns, "policies.kyverno.io", nil)
		r.dumpList("nvpols-all.json", ns, "namespacedvalidatingpolicies.policies.kyverno.io", nil)

		// PolicyExceptions, and whether they really exempt.
		for _, f := range []string{"exception-v2.yaml", "exception-cel.yaml"} {
			data, err := os.ReadFile(filepath.Join("testdata", "enforcer", f))
			if err != nil {
				t.Fatal(err)
			}
			k.runInput(strings.ReplaceAll(string(data), "NAMESPACE", ns), "apply", "-n", ns, "-f", "-")
		}
		time.Sleep(5 * time.Second)
		k.run("-n", ns, "scale", "deployment/web", "--replicas=5", "--dry-run=server")
		r.dumpList("policyexceptions-v2.json", ns, "policyexceptions.kyverno.io", nil)
		r.dumpList("policyexceptions-cel.json", ns, "policyexceptions.policies.kyverno.io", nil)

		// failurePolicy patched to Ignore by hand: does Kyverno put it back?
		k.must("patch", "validatingwebhookconfiguration", harness.ValidatingWebhookName, "--type=json",
			"-p", `[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]`)
		r.dumpList("webhooks-patched-ignore.json", "", "validatingwebhookconfigurations", isKyverno)
		time.Sleep(10 * time.Second)
		r.dumpList("webhooks-patched-ignore-after-10s.json", "", "validatingwebhookconfigurations", isKyverno)

		// A native policy with a type-checking warning, and its binding.
		k.runInput(vapYAML, "apply", "-f", "-")
		time.Sleep(3 * time.Second)
		r.dumpList("vap-typecheck-warning.json", "", "validatingadmissionpolicies", func(item map[string]any) bool {
			md, _ := item["metadata"].(map[string]any)
			return md["name"] == "freeze-replicas-vap"
		})
		r.dumpList("vap-bindings.json", "", "validatingadmissionpolicybindings", func(item map[string]any) bool {
			md, _ := item["metadata"].(map[string]any)
			return md["name"] == "freeze-replicas-vap"
		})
	}()

	// Fail open: --forceFailurePolicyIgnore.
	func() {
		fmt.Fprintf(log, "## Kyverno started with --forceFailurePolicyIgnore=true\n\n")
		env, err := harness.Start(t.Context(), t, harness.WithoutReportsController(),
			harness.WithKyvernoArgs("--forceFailurePolicyIgnore=true"))
		if err != nil {
			t.Fatal(err)
		}
		defer env.Stop()
		k := kubectl{t: t, env: env, log: log}
		r := recorder{t: t, k: k, dir: out}
		k.namespaceWithDeployment(ns)
		k.must("apply", "-n", ns, "-f", "testdata/policy-enforce-v1.yaml")
		k.must("apply", "-n", ns, "-f", "testdata/nvpol-enforce.yaml")
		for _, p := range []string{"freeze-replicas", "freeze-replicas-cel-deny"} {
			if err := env.WaitPolicyReady(t.Context(), ns, p); err != nil {
				t.Fatal(err)
			}
		}
		r.dumpList("webhooks-fail-open.json", "", "validatingwebhookconfigurations", isKyverno)
	}()
	r := recorder{t: t, dir: out}
	r.write("commands.log", []byte(log.String()))
	t.Logf("fixtures written to %s", out)
}

const vapYAML = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: freeze-replicas-vap
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.nosuchfield == oldObject.spec.nosuchfield"
    message: "spec is frozen"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: freeze-replicas-vap
spec:
  policyName: freeze-replicas-vap
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: shop
`

func (k kubectl) runInput(stdin string, args ...string) {
	k.t.Helper()
	stdout, stderr, err := k.env.KubectlInput(k.t.Context(), stdin, args...)
	if k.log != nil {
		fmt.Fprintf(k.log, "$ kubectl %s <<EOF\n%sEOF\n", strings.Join(quoteArgs(args), " "), stdin)
		if s := strings.TrimSpace(stdout); s != "" {
			fmt.Fprintf(k.log, "%s\n", s)
		}
		if s := strings.TrimSpace(stderr); s != "" {
			fmt.Fprintf(k.log, "[stderr] %s\n", s)
		}
		if err != nil {
			fmt.Fprintf(k.log, "[exit status non-zero]\n")
		}
		k.log.WriteString("\n")
	}
}
