//go:build e2e

package faults

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// TestEnforcementVerified runs the operator command (enforcement check and
// probes on, the default) over an enforce plan freezing creation, with the
// policies guard installed, and breaks Kyverno in the ways issue 21 lists:
//
//	(a) SIGSTOP of Kyverno's PID, fail closed (the harness's default):
//	    the probe gets no answer, reported within one probe interval
//	    (EnforcerNotAnswering), and True again within one after SIGCONT;
//	    then Kyverno restarted with --forceFailurePolicyIgnore (a chart
//	    that fails open): WebhookFailsOpen, and while it is stopped the
//	    probe is admitted (ProbeAdmitted);
//	(b) a PolicyException naming the plan's policy: PolicyExcepted;
//	(c) Kyverno restarted with --autoUpdateWebhooks=false (the one way a
//	    failurePolicy patched to Ignore by hand stays: otherwise Kyverno
//	    puts it back within the same second, recorded in
//	    health/testdata/kyverno-1.19.1), then the patch: WebhookFailsOpen,
//	    and True again once Kyverno, restarted with it on, puts it back;
//	(e) the probes' dry-runs leave PolicyViolation events that
//	    violations reads as probes, none as a violation.
//
// (d), a policy Kyverno cannot load, is covered by health's unit tests
// only: no rendered policy that Kyverno 1.19.1 admits and then fails to
// load was found. A custom kind whose CRD is deleted afterwards is not
// one: Kyverno 1.19.1's webhook controller (mergeWebhook) logs "resource
// not found" for a kind discovery no longer knows and leaves the policy
// Ready; only another discovery error (an aggregated API down) marks it
// not ready. And with --autoUpdateWebhooks=false it reports every policy
// Ready whatever its webhooks hold (updatePolicyStatuses).
func TestEnforcementVerified(t *testing.T) {
	ctx := t.Context()
	id, ns := "enforcement", "enforcement"
	createNamespace(t, ns)
	dir, logPath := enforcementSetup(t)
	op := startCommand(t, filepath.Join(dir, "reports"), logPath)
	p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.Permanent})
	p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	verified := func(want string) func() (string, bool) {
		return func() (string, bool) {
			got := conditionOf(getPlan(t, id), plan.ConditionEnforcementVerified)
			return got, strings.HasPrefix(got, want)
		}
	}
	message := func() string {
		for _, c := range getPlan(t, id).Status.Conditions {
			if c.Type == plan.ConditionEnforcementVerified {
				return c.Message
			}
		}
		return ""
	}
	d := waitFor(t, time.Minute, "EnforcementVerified True", verified("True/"+health.ReasonEnforced))
	t.Logf("verified %s after the plan was created: %s", d.Round(time.Millisecond), message())

	// (a) fail closed: SIGSTOP.
	if err := env.SignalKyverno(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	// One probe interval is one tick plus the probe's own wait: the API
	// server gives up on the webhook after its 10 s timeout.
	d = waitFor(t, tick+30*time.Second, "EnforcerNotAnswering", verified("False/"+health.ReasonEnforcerNotAnswering))
	t.Logf("fail closed, Kyverno stopped: not verified %s after SIGSTOP: %s", d.Round(time.Millisecond), message())
	if err := createDeployment(ctx, ns, "meanwhile"); err == nil {
		t.Errorf("a create in scope was admitted while a fail-closed Kyverno was stopped")
	} else {
		t.Logf("meanwhile a create in scope (dry-run): %s", errText(err))
	}
	if err := env.SignalKyverno(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+30*time.Second, "verified again", verified("True/"+health.ReasonEnforced))
	t.Logf("fail closed: verified again %s after SIGCONT (stopped for %s)", d.Round(time.Millisecond), time.Since(stopped).Round(time.Second))

	// (b) a PolicyException naming the plan's policy.
	pol := planPolicies(t, id)
	if len(pol) != 1 {
		t.Fatalf("%d policies", len(pol))
	}
	exception := `apiVersion: kyverno.io/v2
kind: PolicyException
metadata:
  name: let-ops-create
  namespace: ` + ns + `
spec:
  exceptions:
  - policyName: ` + ns + `/` + pol[0].GetName() + `
    ruleNames: ["create"]
  match:
    any:
    - resources:
        kinds: ["Deployment"]
`
	if out, stderr, err := env.KubectlInput(ctx, exception, "apply", "-f", "-"); err != nil {
		t.Fatalf("the exception: %v %s %s", err, out, stderr)
	}
	d = waitFor(t, tick+15*time.Second, "PolicyExcepted", verified("False/"+health.ReasonPolicyExcepted))
	t.Logf("a PolicyException reported %s after it was created: %s", d.Round(time.Millisecond), message())
	if _, stderr, err := env.Kubectl(ctx, "delete", "-n", ns, "policyexceptions.kyverno.io", "let-ops-create"); err != nil {
		t.Fatal(err, stderr)
	}
	waitFor(t, tick+15*time.Second, "verified without the exception", verified("True/"+health.ReasonEnforced))

	// (a) fail open, as the chart of seed 000 has it.
	if err := env.RestartKyvernoWith(ctx, "--forceFailurePolicyIgnore=true"); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, time.Minute, "WebhookFailsOpen", verified("False/"+health.ReasonWebhookFailsOpen))
	t.Logf("Kyverno restarted failing open: reported %s after it was ready: %s", d.Round(time.Millisecond), message())
	if err := env.SignalKyverno(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+30*time.Second, "ProbeAdmitted", verified("False/"+health.ReasonProbeAdmitted))
	t.Logf("fail open, Kyverno stopped: probe admitted, reported %s after SIGSTOP: %s", d.Round(time.Millisecond), message())
	if err := createDeployment(ctx, ns, "meanwhile"); err != nil {
		t.Errorf("a create in scope was refused while a fail-open Kyverno was stopped: %s", errText(err))
	} else {
		t.Logf("meanwhile a create in scope (dry-run) was admitted: the freeze failed open, as reported")
	}
	if err := env.SignalKyverno(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+30*time.Second, "back to fails open", verified("False/"+health.ReasonWebhookFailsOpen))
	t.Logf("fail open: probe refused again %s after SIGCONT (still not verified: it fails open)", d.Round(time.Millisecond))
	if err := env.RestartKyvernoWith(ctx, "--forceFailurePolicyIgnore=false"); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, time.Minute, "verified fail closed again", verified("True/"+health.ReasonEnforced))
	t.Logf("Kyverno restarted failing closed: verified %s after it was ready", d.Round(time.Millisecond))

	// (c) failurePolicy patched to Ignore by hand. Kyverno puts its
	// resource webhook back on its next reconcile (within a second, see
	// above) unless started with --autoUpdateWebhooks=false (Kyverno
	// 1.19.1, pkg/controllers/webhook: it then creates a missing
	// configuration but never updates one it finds), as an operator
	// might run it to keep hand-made webhook settings.
	if err := env.RestartKyvernoWith(ctx, "--autoUpdateWebhooks=false"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "verified with --autoUpdateWebhooks=false", verified("True/"+health.ReasonEnforced))
	patched := time.Now()
	if err := setFailurePolicy(ctx, admissionregistrationv1.Ignore); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+15*time.Second, "WebhookFailsOpen after the patch", verified("False/"+health.ReasonWebhookFailsOpen))
	t.Logf("failurePolicy patched to Ignore (Kyverno with --autoUpdateWebhooks=false): reported %s after the patch: %s", d.Round(time.Millisecond), message())
	time.Sleep(3 * time.Second)
	if fp, err := failurePolicy(ctx); err != nil || fp != admissionregistrationv1.Ignore {
		t.Errorf("the patched failurePolicy is %q %v %s after the patch, want Ignore kept (autoUpdateWebhooks=false)", fp, err, time.Since(patched).Round(time.Second))
	}
	if err := env.RestartKyvernoWith(ctx, "--autoUpdateWebhooks=true"); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, time.Minute, "verified once Kyverno put its webhook back", verified("True/"+health.ReasonEnforced))
	t.Logf("Kyverno restarted with --autoUpdateWebhooks=true: webhook put back, verified %s after it was ready", d.Round(time.Millisecond))

	// (e) the probes' traces: PolicyViolation events Kyverno wrote for the
	// refused dry-runs, read as probes, never as violations.
	var evs corev1.EventList
	if err := c.List(ctx, &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for i := range pol {
		objs = append(objs, &pol[i])
	}
	b, err := violations.FromEvents(violations.IndexPolicies(objs), evs.Items)
	if err != nil {
		t.Logf("unrecognized events: %v", err)
	}
	var pv, total int32
	for _, e := range evs.Items {
		if e.Reason == violations.ReasonPolicyViolation {
			pv++
			total += max(e.Count, 1)
		}
	}
	t.Logf("%d PolicyViolation event objects (%d occurrences in all) in %s; violations read %d as probes and %d as violations (the test's own requests)",
		pv, total, ns, b.Probes, len(b.Violations))
	// The test's own "meanwhile" creates are real requests: Kyverno,
	// continued, still judges those it received while stopped and records
	// them. Only they may be violations.
	for _, v := range b.Violations {
		if v.Resource.Name != "meanwhile" {
			t.Errorf("a violation that is not the test's own request: %+v", v)
		}
	}
	if b.Probes == 0 {
		t.Errorf("no probe read among the events: the check proves nothing")
	}
	if err := c.Delete(ctx, getPlan(t, id)); err != nil {
		t.Fatal(err)
	}
	op.stop(t)
}

// kyvernoFailHook is Kyverno's fail-closed resource webhook: the
// configuration and the webhook's name.
const kyvernoWebhookCfg, kyvernoFailHook = "kyverno-resource-validating-webhook-cfg", "validate.kyverno.svc-fail"

// failurePolicy reads the failurePolicy of Kyverno's fail-closed webhook.
func failurePolicy(ctx context.Context) (admissionregistrationv1.FailurePolicyType, error) {
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, types.NamespacedName{Name: kyvernoWebhookCfg}, &cfg); err != nil {
		return "", err
	}
	for _, w := range cfg.Webhooks {
		if w.Name == kyvernoFailHook && w.FailurePolicy != nil {
			return *w.FailurePolicy, nil
		}
	}
	return "", fmt.Errorf("no webhook %s in %s", kyvernoFailHook, kyvernoWebhookCfg)
}

// setFailurePolicy patches the failurePolicy of Kyverno's fail-closed
// webhook by hand, as a cluster administrator would.
func setFailurePolicy(ctx context.Context, fp admissionregistrationv1.FailurePolicyType) error {
	var cfg admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, types.NamespacedName{Name: kyvernoWebhookCfg}, &cfg); err != nil {
		return err
	}
	for i := range cfg.Webhooks {
		if cfg.Webhooks[i].Name == kyvernoFailHook {
			cfg.Webhooks[i].FailurePolicy = &fp
			return c.Update(ctx, &cfg)
		}
	}
	return fmt.Errorf("no webhook %s in %s", kyvernoFailHook, kyvernoWebhookCfg)
}

// createDeployment creates a Deployment named name in ns with a server
// dry-run: a write the create freeze refuses.
func createDeployment(ctx context.Context, ns, name string) error {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example/web:1"}}},
			},
		},
	}
	return c.Create(ctx, d, client.DryRunAll)
}

// TestEnforcementVerifiedCEL is the part of TestEnforcementVerified that
// applies to kyverno-cel unchanged, on the same control plane: two plans
// freezing creation in one namespace (so that they share the probe, and
// the API server names one policy of its parallel webhooks in the
// refusal), both verified; Kyverno stopped (fail closed), both report the
// enforcer not answering within one probe interval, and both are
// verified again after SIGCONT; the probes' events are no violations.
func TestEnforcementVerifiedCEL(t *testing.T) {
	ctx := t.Context()
	ns := "enforcement-cel"
	ids := []string{"enforcement-cel-a", "enforcement-cel-b"}
	createNamespace(t, ns)
	dir, logPath := enforcementSetup(t)
	op := startCommandArgs(t, filepath.Join(dir, "reports"), logPath, []string{"--target=" + string(render.TargetKyvernoCEL)})
	for _, id := range ids {
		p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.Permanent})
		p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	all := func(want string) func() (string, bool) {
		return func() (string, bool) {
			var got []string
			ok := true
			for _, id := range ids {
				c := conditionOf(getPlan(t, id), plan.ConditionEnforcementVerified)
				got = append(got, id+" "+c)
				ok = ok && strings.HasPrefix(c, want)
			}
			return strings.Join(got, ", "), ok
		}
	}
	d := waitFor(t, time.Minute, "both verified", all("True/"+health.ReasonEnforced))
	t.Logf("kyverno-cel: both plans verified %s after they were created", d.Round(time.Millisecond))
	if err := env.SignalKyverno(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+30*time.Second, "EnforcerNotAnswering", all("False/"+health.ReasonEnforcerNotAnswering))
	t.Logf("kyverno-cel, fail closed, Kyverno stopped: both not verified %s after SIGSTOP", d.Round(time.Millisecond))
	if err := env.SignalKyverno(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+30*time.Second, "both verified again", all("True/"+health.ReasonEnforced))
	t.Logf("kyverno-cel: both verified again %s after SIGCONT", d.Round(time.Millisecond))

	var evs corev1.EventList
	if err := c.List(ctx, &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, id := range ids {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(harness.NamespacedValidatingPolicyGVK.GroupVersion().WithKind("NamespacedValidatingPolicyList"))
		if err := c.List(ctx, list, client.MatchingLabels{render.LabelPlan: id}); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	}
	b, err := violations.FromEvents(violations.IndexPolicies(objs), evs.Items)
	if err != nil {
		t.Logf("unrecognized events: %v", err)
	}
	t.Logf("kyverno-cel: %d events in %s; violations read %d as probes and %d as violations", len(evs.Items), ns, b.Probes, len(b.Violations))
	if len(b.Violations) > 0 {
		t.Errorf("probes read as violations: %+v", b.Violations)
	}
	if b.Probes == 0 {
		t.Errorf("no probe read among the events: the check proves nothing")
	}
	for _, id := range ids {
		if err := c.Delete(ctx, getPlan(t, id)); err != nil {
			t.Fatal(err)
		}
	}
	op.stop(t)
}

// enforcementSetup installs the policies guard for the test, and returns
// the operator's directory and log path. The operator command runs as the
// operator's ServiceAccount, which the guard trusts; the guard is removed
// again so that the tests after this one start without it (it refuses any
// other writer of managed policies, the harness's admin included).
// Kyverno is continued whatever the test stopped, and the operator's log
// shown when it failed.
func enforcementSetup(t *testing.T) (dir, logPath string) {
	t.Helper()
	guard := filepath.Join("..", "..", "..", "config", "admission", "policies.yaml")
	if out, stderr, err := env.Kubectl(t.Context(), "apply", "-f", guard); err != nil {
		t.Fatalf("the guard: %v %s %s", err, out, stderr)
	}
	t.Cleanup(func() {
		if _, stderr, err := env.Kubectl(context.Background(), "delete", "-f", guard); err != nil {
			t.Errorf("removing the guard: %v %s", err, stderr)
		}
	})
	dir = t.TempDir()
	logPath = filepath.Join(dir, "operator.log")
	t.Cleanup(func() {
		_ = env.SignalKyverno(syscall.SIGCONT)
		if t.Failed() {
			t.Logf("operator log: %s\n%s", logPath, tailFile(logPath, 60))
		}
	})
	return dir, logPath
}
