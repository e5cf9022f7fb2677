//go:build e2e

package guard

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/telark/protectionplans/examples/e2e/harness"
)

// rbac lets alice, bob and the API server's service account create and
// update plans (not their status), as a cluster would that lets users apply
// plans with kubectl.
const rbac = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: protectionplan-writer
rules:
- apiGroups: ["telark.io"]
  resources: ["protectionplans"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: protectionplan-writer
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: protectionplan-writer
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: alice
- apiGroup: rbac.authorization.k8s.io
  kind: User
  name: bob
- kind: ServiceAccount
  namespace: telark-system
  name: protectionplans-server
`

// planYAML is a valid plan (examples/plans/holiday-freeze.yaml, shortened)
// named name, with telark.io/created-by: createdBy unless it is empty.
func planYAML(name, createdBy string) string {
	meta := "  name: " + name + "\n"
	if createdBy != "" {
		meta += "  annotations:\n    telark.io/created-by: " + fmt.Sprintf("%q", createdBy) + "\n"
	}
	return `apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata:
` + meta + `spec:
  name: Holiday freeze
  scope:
    namespaces: [shop]
  templates:
  - name: create
  window:
    type: time_range
    startAt: "2026-12-24T18:00:00+01:00"
    endAt: "2026-12-27T06:00:00+01:00"
    timeZone: Europe/Berlin
  mode: audit
`
}

type kubectl struct {
	t   *testing.T
	env *harness.Env
}

func (k kubectl) run(stdin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(k.t.Context(), time.Minute)
	defer cancel()
	return k.env.KubectlInput(ctx, stdin, args...)
}

// admitted runs kubectl and fails the test unless it succeeded.
func (k kubectl) admitted(what, stdin string, args ...string) {
	k.t.Helper()
	out, stderr, err := k.run(stdin, args...)
	if err != nil {
		k.t.Fatalf("%s: refused, want admitted: kubectl %s: %v\n%s", what, strings.Join(args, " "), err, stderr)
	}
	k.t.Logf("%s: admitted: %s", what, strings.TrimSpace(out))
}

// refused runs kubectl and fails the test unless the guard refused it with
// a message containing want.
func (k kubectl) refused(what, want, stdin string, args ...string) {
	k.t.Helper()
	_, stderr, err := k.run(stdin, args...)
	if err == nil {
		k.t.Fatalf("%s: admitted, want refused: kubectl %s", what, strings.Join(args, " "))
	}
	if !strings.Contains(stderr, "ValidatingAdmissionPolicy 'protectionplans-created-by'") || !strings.Contains(stderr, want) {
		k.t.Fatalf("%s: refused, but not by the guard with %q:\n%s", what, want, stderr)
	}
	k.t.Logf("%s: refused: %s", what, strings.TrimSpace(stderr))
}

func (k kubectl) createdBy(name string) string {
	k.t.Helper()
	out, stderr, err := k.run("", "get", "protectionplan", name, "-o", `jsonpath={.metadata.annotations.telark\.io/created-by}`)
	if err != nil {
		k.t.Fatalf("reading %s: %v\n%s", name, err, stderr)
	}
	return out
}

func TestGuardE2E(t *testing.T) {
	start := time.Now()
	env := harness.MustStart(t, harness.WithoutReportsController())
	t.Logf("control plane + Kyverno ready in %s", time.Since(start).Round(time.Millisecond))
	ctx := t.Context()
	k := kubectl{t: t, env: env}

	step := time.Now()
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
		Paths: []string{CRDPath()}, ErrorIfPathMissing: true, MaxTime: 2 * time.Minute,
	}); err != nil {
		t.Fatalf("installing the ProtectionPlan CRD: %v", err)
	}
	k.admitted("RBAC for alice, bob and the server's service account", rbac, "apply", "-f", "-")
	k.admitted("the guard", "", "apply", "-f", ManifestPath())
	t.Logf("CRD, RBAC and guard installed in %s", time.Since(step).Round(time.Millisecond))

	// Policies (and RBAC) take effect asynchronously: retry a request the
	// guard must refuse, on a dry run, until it is refused by the guard.
	step = time.Now()
	const alice = "--as=alice"
	waitCtx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	for {
		_, stderr, err := env.KubectlInput(waitCtx, planYAML("probe", "bob"), alice, "create", "--dry-run=server", "-f", "-")
		if err != nil && strings.Contains(stderr, "protectionplans-created-by") {
			break
		}
		if waitCtx.Err() != nil {
			t.Fatalf("the guard did not take effect within 90 s; last answer: err=%v %s", err, stderr)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("the guard took effect after %s", time.Since(step).Round(time.Millisecond))

	// The policy as the API server stored it: no typeChecking warnings.
	// (The status is written by kube-controller-manager, which the harness
	// does not run; when there is one, it must carry no warnings.)
	var vap admissionregistrationv1.ValidatingAdmissionPolicy
	if err := env.Client.Get(ctx, client.ObjectKey{Name: "protectionplans-created-by"}, &vap); err != nil {
		t.Fatal(err)
	}
	if tc := vap.Status.TypeChecking; tc != nil && len(tc.ExpressionWarnings) > 0 {
		t.Fatalf("typeChecking warnings: %+v", tc.ExpressionWarnings)
	}
	t.Logf("policy status: observedGeneration %d, typeChecking %+v", vap.Status.ObservedGeneration, vap.Status.TypeChecking)

	step = time.Now()
	// CREATE as alice.
	k.refused("alice creates a plan naming bob as creator",
		`set the annotation telark.io/created-by: alice when you create a plan with kubectl (it says "bob")`,
		planYAML("alice-as-bob", "bob"), alice, "create", "-f", "-")
	k.refused("alice creates a plan without the annotation",
		"set the annotation telark.io/created-by: alice when you create a plan with kubectl (it is missing)",
		planYAML("alice-anonymous", ""), alice, "create", "-f", "-")
	k.admitted("alice creates a plan naming herself", planYAML("alice-plan", "alice"), alice, "create", "-f", "-")

	// UPDATE as alice (and as bob, who may edit but not rename the creator).
	k.refused("alice changes the creator of her plan to bob",
		"never changes: keep telark.io/created-by: alice when you update this plan",
		"", alice, "annotate", "--overwrite", "protectionplan/alice-plan", "telark.io/created-by=bob")
	k.refused("alice removes the annotation",
		"keep telark.io/created-by: alice", "", alice, "annotate", "protectionplan/alice-plan", "telark.io/created-by-")
	k.refused("bob names himself creator of alice's plan",
		"keep telark.io/created-by: alice", "", "--as=bob", "annotate", "--overwrite", "protectionplan/alice-plan", "telark.io/created-by=bob")
	k.admitted("alice edits the spec of her plan", "", alice, "patch", "protectionplan/alice-plan", "--type=merge",
		"-p", `{"spec":{"description":"edited by alice"}}`)
	k.admitted("alice labels her plan", "", alice, "label", "protectionplan/alice-plan", "team=shop")
	k.admitted("alice applies a full update keeping the annotation", planYAML("alice-plan", "alice"), alice, "apply", "-f", "-")
	if got := k.createdBy("alice-plan"); got != "alice" {
		t.Fatalf("alice-plan created-by = %q after the updates, want alice", got)
	}

	// The trusted writer: the API server example's service account.
	const server = "--as=" + DefaultTrustedWriter
	k.admitted("the server's service account creates a plan for carol", planYAML("carol-plan", "carol"), server, "create", "-f", "-")
	k.refused("the server's service account changes the creator",
		"keep telark.io/created-by: carol", "", server, "annotate", "--overwrite", "protectionplan/carol-plan", "telark.io/created-by=dave")
	k.admitted("the server's service account edits the plan", "", server, "patch", "protectionplan/carol-plan", "--type=merge",
		"-p", `{"spec":{"description":"edited through the API"}}`)
	if got := k.createdBy("carol-plan"); got != "carol" {
		t.Fatalf("carol-plan created-by = %q, want carol", got)
	}

	// Another service account of the same namespace is not trusted, and
	// cluster administrators (system:masters) are held to the rule too.
	k.refused("another service account creates a plan for carol",
		"created-by: system:serviceaccount:telark-system:default when you create",
		planYAML("other-sa", "carol"), "--as=system:serviceaccount:telark-system:default", "--as-group=system:masters", "create", "-f", "-")
	k.refused("the cluster administrator creates a plan without the annotation",
		"set the annotation telark.io/created-by: e2e-admin when you create a plan with kubectl (it is missing)",
		planYAML("admin-anonymous", ""), "create", "-f", "-")

	// A status write is not matched (the operator writes status).
	k.admitted("a status write", "", "patch", "protectionplan/alice-plan", "--subresource=status", "--type=merge",
		"-p", `{"status":{"phase":"scheduled"}}`)
	t.Logf("all cases in %s", time.Since(step).Round(time.Millisecond))

	grantsGuard(t, env, k)
}

// grantsGuard installs config/admission/grants.yaml on the same control
// plane: only the server's service account may add or change
// status.grants; the operator (and a cluster administrator) may write the
// rest of the status.
func grantsGuard(t *testing.T, env *harness.Env, k kubectl) {
	k.admitted("the grants guard", "", "apply", "-f", GrantsManifestPath())
	const grant = `{"status":{"grantSeq":1,"grants":[{"id":"alice-plan-g1","users":["alice"],"reason":"INC-1","duration":"1h0m0s","requestedBy":"alice","requestedAt":"2026-12-24T20:00:00Z"}]}}`
	waitCtx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	for {
		_, stderr, err := env.KubectlInput(waitCtx, "", "patch", "protectionplan/alice-plan", "--subresource=status", "--type=merge", "--dry-run=server", "-p", grant)
		if err != nil && strings.Contains(stderr, "protectionplans-grants") {
			break
		}
		if waitCtx.Err() != nil {
			t.Fatalf("the grants guard did not take effect within 90 s; last answer: err=%v %s", err, stderr)
		}
		time.Sleep(250 * time.Millisecond)
	}
	const (
		operatorSA = "--as=system:serviceaccount:telark-system:protectionplans-operator"
		serverSA   = "--as=" + DefaultTrustedWriter
		masters    = "--as-group=system:masters"
	)
	patch := func(body string) []string {
		return []string{"patch", "protectionplan/alice-plan", "--subresource=status", "--type=merge", "-p", body}
	}
	k.refusedBy("protectionplans-grants", "a cluster administrator adds a grant",
		"only the protection plans API server may add, change or remove break-glass grants", "", patch(grant)...)
	k.refusedBy("protectionplans-grants", "the operator's service account adds a grant",
		"only the protection plans API server may add, change or remove break-glass grants", "", append([]string{operatorSA, masters}, patch(grant)...)...)
	k.admitted("the server's service account adds a grant", "", append([]string{serverSA, masters}, patch(grant)...)...)
	k.admitted("the operator writes the rest of the status", "", append([]string{operatorSA, masters}, patch(`{"status":{"phase":"active"}}`)...)...)
	k.refusedBy("protectionplans-grants", "the operator's service account grants the request to itself",
		"keep status.grants and status.grantSeq as they are", "",
		append([]string{operatorSA, masters}, patch(`{"status":{"grants":[{"id":"alice-plan-g1","users":["alice"],"reason":"INC-1","duration":"1h0m0s","requestedBy":"alice","requestedAt":"2026-12-24T20:00:00Z","grantedBy":"protectionplans-operator","grantedAt":"2026-12-24T20:01:00Z","expiresAt":"2026-12-25T20:01:00Z"}]}}`)...)...)
}

// refusedBy runs kubectl and fails the test unless the named policy
// refused it with a message containing want.
func (k kubectl) refusedBy(policy, what, want, stdin string, args ...string) {
	k.t.Helper()
	_, stderr, err := k.run(stdin, args...)
	if err == nil {
		k.t.Fatalf("%s: admitted, want refused: kubectl %s", what, strings.Join(args, " "))
	}
	if !strings.Contains(stderr, "ValidatingAdmissionPolicy '"+policy+"'") || !strings.Contains(stderr, want) {
		k.t.Fatalf("%s: refused, but not by %s with %q:\n%s", what, policy, want, stderr)
	}
	k.t.Logf("%s: refused: %s", what, strings.TrimSpace(stderr))
}
