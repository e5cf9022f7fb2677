//go:build e2e

// End-to-end tests of the harness itself: a real kube-apiserver with a real
// Kyverno refuses what an enforcing policy forbids, and an auditing policy
// admits and records it. They need the binaries of hack/e2e/build.sh:
//
//	cd examples && PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e ./e2e/harness/ -v
//
// TestRecordFixtures (PROTECTIONPLANS_RECORD_FIXTURES=1) also writes real
// Kyverno events and reports into violations/testdata/kyverno-1.19.1/.
package harness_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
)

const policyMessage = "spec.replicas is frozen"

func TestSmoke(t *testing.T) {
	start := time.Now()
	env := harness.MustStart(t)
	t.Logf("control plane + Kyverno ready in %s (dir %s)", time.Since(start).Round(time.Millisecond), env.Dir)
	ctx := t.Context()
	k := kubectl{t: t, env: env}

	// Enforce: kubectl scale is refused with the policy's message; a label
	// change is admitted.
	const enforceNS = "e2e-enforce"
	k.namespaceWithDeployment(enforceNS)
	k.must("apply", "-n", enforceNS, "-f", "testdata/policy-enforce-v1.yaml")
	if err := env.WaitPolicyReady(ctx, enforceNS, "freeze-replicas"); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := k.run("scale", "-n", enforceNS, "deployment/web", "--replicas=3")
	if err == nil {
		t.Fatalf("kubectl scale was admitted under an enforcing policy")
	}
	if !strings.Contains(stderr, policyMessage) || !strings.Contains(stderr, "freeze-replicas") {
		t.Fatalf("kubectl scale refused, but not by the policy: %s", stderr)
	}
	t.Logf("refused as expected: %s", strings.TrimSpace(stderr))
	_, stderr, err = k.run("patch", "-n", enforceNS, "deployment/web", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
	if err == nil || !strings.Contains(stderr, policyMessage) {
		t.Fatalf("a spec.replicas patch was not refused by the policy: err=%v stderr=%s", err, stderr)
	}
	k.must("label", "-n", enforceNS, "deployment/web", "tier=frontend")
	if got := replicas(t, env, enforceNS, "web"); got != 1 {
		t.Fatalf("replicas = %d after refused changes, want 1", got)
	}

	// Audit: kubectl scale is admitted; Kyverno emits PolicyViolation
	// events at once and, through the reports controller, a PolicyReport
	// with a fail result a little later.
	const auditNS = "e2e-audit"
	k.namespaceWithDeployment(auditNS)
	k.must("apply", "-n", auditNS, "-f", "testdata/policy-audit-v1.yaml")
	if err := env.WaitPolicyReady(ctx, auditNS, "freeze-replicas-audit"); err != nil {
		t.Fatal(err)
	}
	auditStart := time.Now()
	k.must("scale", "-n", auditNS, "deployment/web", "--replicas=3")
	if got := replicas(t, env, auditNS, "web"); got != 3 {
		t.Fatalf("replicas = %d after an audited scale, want 3", got)
	}
	// A change through the Deployment itself too: its report is on the
	// Deployment.
	k.must("patch", "-n", auditNS, "deployment/web", "--type=merge", "-p", `{"spec":{"replicas":4}}`)

	events := eventually(t, 30*time.Second, "PolicyViolation events in "+auditNS, func() ([]corev1.Event, bool) {
		ev := policyViolationEvents(t, env, auditNS)
		return ev, len(ev) > 0
	})
	for _, ev := range events {
		t.Logf("event: %s %s/%s: %s", ev.Reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Message)
	}
	if !slices.ContainsFunc(events, func(ev corev1.Event) bool { return strings.Contains(ev.Message, policyMessage) }) {
		t.Errorf("no PolicyViolation event carries the policy message %q", policyMessage)
	}

	eventually(t, 90*time.Second, "a PolicyReport with a fail result in "+auditNS, func() (struct{}, bool) {
		return struct{}{}, failResults(t, env, auditNS) > 0
	})
	t.Logf("PolicyReport with a fail result %s after the audited change", time.Since(auditStart).Round(time.Second))
}

// TestTwoEnvs starts two harnesses at once in one process: every port is
// chosen at run time, so they must not collide.
func TestTwoEnvs(t *testing.T) {
	if os.Getenv("PROTECTIONPLANS_E2E_TWO_ENVS") != "1" {
		t.Skip("set PROTECTIONPLANS_E2E_TWO_ENVS=1 to start two environments at once")
	}
	type result struct {
		env *harness.Env
		err error
	}
	ch := make(chan result, 2)
	for range 2 {
		go func() {
			env, err := harness.Start(t.Context(), t, harness.WithoutReportsController())
			ch <- result{env, err}
		}()
	}
	var envs []*harness.Env
	for range 2 {
		r := <-ch
		if r.err != nil {
			t.Fatal(r.err)
		}
		envs = append(envs, r.env)
	}
	if envs[0].WebhookPort == envs[1].WebhookPort {
		t.Fatalf("both Kyvernos on port %d", envs[0].WebhookPort)
	}
	for _, env := range envs {
		out, _, err := env.Kubectl(t.Context(), "get", "ns", "kyverno", "-o", "name")
		if err != nil || strings.TrimSpace(out) != "namespace/kyverno" {
			t.Fatalf("kubectl: %q %v", out, err)
		}
	}
	// Stop is idempotent.
	for _, env := range envs {
		if err := env.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := env.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// kubectl wraps Env.Kubectl for tests, optionally logging every command
// (for the fixtures' README).
type kubectl struct {
	t   *testing.T
	env *harness.Env
	log *strings.Builder
}

func (k kubectl) run(args ...string) (string, string, error) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(k.t.Context(), 2*time.Minute)
	defer cancel()
	stdout, stderr, err := k.env.Kubectl(ctx, args...)
	if k.log != nil {
		fmt.Fprintf(k.log, "$ kubectl %s\n", strings.Join(quoteArgs(args), " "))
		if s := strings.TrimSpace(stdout); s != "" && !slices.Contains(args, "json") {
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
	return stdout, stderr, err
}

func (k kubectl) must(args ...string) string {
	k.t.Helper()
	stdout, _, err := k.run(args...)
	if err != nil {
		k.t.Fatal(err)
	}
	return stdout
}

func (k kubectl) namespaceWithDeployment(ns string) {
	k.t.Helper()
	k.must("create", "namespace", ns)
	k.must("apply", "-n", ns, "-f", "testdata/deployment.yaml")
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " {}\"'$*") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

func replicas(t *testing.T, env *harness.Env, ns, name string) int32 {
	t.Helper()
	var d appsv1.Deployment
	if err := env.Client.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: name}, &d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil {
		return 0
	}
	return *d.Spec.Replicas
}

func policyViolationEvents(t *testing.T, env *harness.Env, ns string) []corev1.Event {
	t.Helper()
	var list corev1.EventList
	if err := env.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []corev1.Event
	for _, ev := range list.Items {
		if ev.Reason == "PolicyViolation" {
			out = append(out, ev)
		}
	}
	return out
}

// failResults counts the fail results of the PolicyReports in ns.
func failResults(t *testing.T, env *harness.Env, ns string) int {
	t.Helper()
	n, err := env.FailResults(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// eventually polls f every 500 ms until it returns true or timeout passes.
func eventually[T any](t *testing.T, timeout time.Duration, what string, f func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		v, ok := f()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("canceled while waiting for %s", what)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
