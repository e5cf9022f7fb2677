//go:build e2e

package crd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/telark/protectionplans/examples/e2e/harness"
)

type kubectl struct {
	t   *testing.T
	env *harness.Env
}

func (k kubectl) apply(manifest string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, stderr, err := k.env.KubectlInput(ctx, manifest, "apply", "-f", "-")
	return strings.TrimSpace(stderr), err
}

func (k kubectl) admitted(what, manifest string) {
	k.t.Helper()
	if stderr, err := k.apply(manifest); err != nil {
		k.t.Errorf("%s: refused: %v\n%s", what, err, stderr)
	}
}

// refused checks that kubectl apply failed and that its error names every
// one of want (the field and the rule's message).
func (k kubectl) refused(what, manifest string, want ...string) {
	k.t.Helper()
	stderr, err := k.apply(manifest)
	if err == nil {
		k.t.Errorf("%s: admitted, want it refused naming %q", what, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			k.t.Errorf("%s: the error does not name %q:\n%s", what, w, stderr)
		}
	}
	k.t.Logf("%s: %s", what, stderr)
}

// TestCRDValidationE2E installs config/crd on the harness's API server and
// applies the cases of cases_test.go with kubectl.
func TestCRDValidationE2E(t *testing.T) {
	env := harness.MustStart(t, harness.WithoutReportsController())
	crdDir, err := filepath.Abs(filepath.Join("..", "..", "..", "config", "crd"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := envtest.InstallCRDs(env.Config, envtest.CRDInstallOptions{
		Paths: []string{crdDir}, ErrorIfPathMissing: true, MaxTime: 2 * time.Minute,
	}); err != nil {
		t.Fatalf("installing the ProtectionPlan CRD: %v", err)
	}

	t.Run("every sample plan, and the test suites' valid plans, are admitted", func(t *testing.T) {
		k := kubectl{t: t, env: env}
		for _, path := range samplePlans(t) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			k.admitted(path, string(data))
		}
	})

	t.Run("plans the Go validation accepts are admitted", func(t *testing.T) {
		k := kubectl{t: t, env: env}
		for what, c := range admittedCases {
			k.admitted(what, planYAML(t, "ok-"+shortHash(what), c))
		}
	})

	t.Run("a plan breaking one rule is refused at kubectl apply, naming the field", func(t *testing.T) {
		k := kubectl{t: t, env: env}
		for what, tc := range refusedCases {
			k.refused(what, planYAML(t, "bad-"+shortHash(what), tc.change), tc.want...)
		}
	})

	t.Run("an update changing the scope type or the approval mode is refused", func(t *testing.T) {
		k := kubectl{t: t, env: env}
		for what, tc := range updateCases {
			name := "upd-" + shortHash(what)
			if _, err := k.apply(planYAML(t, name, tc.old)); err != nil {
				t.Fatalf("%s: creating the plan to update: %v", what, err)
			}
			if tc.want == nil {
				k.admitted(what, planYAML(t, name, tc.new))
				continue
			}
			k.refused(what, planYAML(t, name, tc.new), tc.want...)
		}
	})

	t.Run("kubectl get prints one NAME column and the display name as TITLE", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, stderr, err := env.Kubectl(ctx, "get", "pp", "production-release")
		if err != nil {
			t.Fatalf("kubectl get: %v\n%s", err, stderr)
		}
		header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
		want := []string{"NAME", "TITLE", "PHASE", "MODE", "WINDOW", "ENFORCED", "AGE"} // ENFORCED: issue 21's printer column
		if strings.Join(header, " ") != strings.Join(want, " ") {
			t.Errorf("kubectl get header = %q, want %q\n%s", header, want, out)
		}
		if !strings.Contains(out, "Business-hours freeze (payments)") {
			t.Errorf("the display name is not printed:\n%s", out)
		}
		out, stderr, err = env.Kubectl(ctx, "get", "telark")
		if err != nil || !strings.Contains(out, "production-release") {
			t.Errorf("kubectl get telark (the category): %v\n%s%s", err, out, stderr)
		}
	})

	// After the CRD's rules: the install brings the admission guards, which
	// then judge every plan write.
	t.Run("kubectl apply -k config/default installs everything", func(t *testing.T) { testInstall(t, env) })
	t.Run("the operator runs a plan with only the generated RBAC", func(t *testing.T) { testOperatorWithGeneratedRBAC(t, env) })
	t.Run("each permission of the operator's generated RBAC is needed", func(t *testing.T) { testEachPermissionIsNeeded(t, env) })
	t.Run("an operator with no target picks kyverno-cel here, vap without Kyverno's CRDs", func(t *testing.T) { testAutoTarget(t, env) })
}
