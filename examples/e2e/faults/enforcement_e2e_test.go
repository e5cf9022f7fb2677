//go:build e2e

package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
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
	"github.com/telark/protectionplans/examples/operator/operator"
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
//	(d) a cluster's guard of its webhook configurations (an admission
//	    policy refusing their updates) keeps Kyverno from registering a
//	    second plan's new policy: it never gets Ready, Kyverno's cache
//	    leaves it out and a delete in scope is admitted: PolicyNotReady,
//	    and True again once the guard is gone and Kyverno registered it;
//	(e) the probes' dry-runs leave PolicyViolation events that
//	    violations reads as probes, none as a violation.
//
// Other ways to a policy Kyverno 1.19.1 does not load were read in its
// source and left out: a custom kind whose CRD is deleted afterwards
// leaves the policy Ready (mergeWebhook logs "resource not found"); a CEL
// expression that does not compile is refused by Kyverno's policy webhook
// (failurePolicy Fail), and a policy that its engine fails to compile is
// only logged at V(4), its status untouched
// (pkg/cel/policies/vpol/engine/reconciler.go); with
// --autoUpdateWebhooks=false every policy is reported Ready whatever its
// webhooks hold (updatePolicyStatuses).
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

	// (d) a policy Kyverno cannot load. A cluster that guards its webhook
	// configurations (here a ValidatingAdmissionPolicy refusing every
	// update of them, as a hardening baseline may; the API server runs
	// admission policies on webhook configurations, only not on admission
	// policies and their bindings) keeps Kyverno from registering a new
	// policy: its webhook controller cannot write the rules, returns
	// before it sets the policy's status (Kyverno 1.19.1,
	// pkg/controllers/webhook/controller.go: reconcile returns the error
	// before updatePolicyStatuses, the only place that sets a
	// kyverno.io/v1 policy's Ready), so the policy never gets Ready and
	// Kyverno's policy cache leaves it out (pkg/controllers/policycache:
	// only IsReady policies): it refuses nothing. A second plan freezing
	// deletion needs new webhook rules (DELETE) that the guard refuses.
	unloaded := id + "-unloaded"
	verifiedOf := func(planID, want string) func() (string, bool) {
		return func() (string, bool) {
			got := conditionOf(getPlan(t, planID), plan.ConditionEnforcementVerified)
			return got, strings.HasPrefix(got, want)
		}
	}
	if out, stderr, err := env.KubectlInput(ctx, webhooksFrozen, "apply", "-f", "-"); err != nil {
		t.Fatalf("the webhook configurations' guard: %v %s %s", err, out, stderr)
	}
	t.Cleanup(func() {
		_, _, _ = env.KubectlInput(context.Background(), webhooksFrozen, "delete", "--ignore-not-found", "-f", "-")
	})
	time.Sleep(2 * time.Second) // the API server loads admission policies asynchronously
	p2 := newPlan(unloaded, ns, plan.ModeEnforce, window.Spec{Type: window.Permanent})
	p2.Spec.Templates = []plan.TemplateRef{{Name: "delete"}}
	created := time.Now()
	if err := c.Create(ctx, p2); err != nil {
		t.Fatal(err)
	}
	d = waitFor(t, tick+30*time.Second, "PolicyNotReady", verifiedOf(unloaded, "False/"+health.ReasonPolicyNotReady))
	t.Logf("a policy Kyverno has not reported on: PolicyNotReady %s after the plan was created", d.Round(time.Millisecond))
	// A new policy reads "not ready yet" at first; a minute on without
	// Ready (health's registerGrace: Kyverno registers one within seconds)
	// the message says Kyverno could not register it, and where to look.
	d = waitFor(t, time.Minute+tick+30*time.Second, "could not register", func() (string, bool) {
		got, m := conditionOf(getPlan(t, unloaded), plan.ConditionEnforcementVerified), messageOf(t, unloaded)
		return got + ": " + m, got == "False/"+health.ReasonPolicyNotReady && strings.Contains(m, "Kyverno could not register it")
	})
	t.Logf("a policy Kyverno could not register: reported %s after the plan was created: %s", time.Since(created).Round(time.Millisecond), messageOf(t, unloaded))
	// The policy as Kyverno left it (health/testdata/kyverno-1.19.1/
	// policy-v1-unregistered.json is this object).
	for _, u := range planPolicies(t, unloaded) {
		b, _ := json.Marshal(u.Object)
		t.Logf("the unloaded policy, %s after the plan was created: %s", time.Since(created).Round(time.Second), b)
	}
	if err := c.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.DryRunAll); err != nil {
		t.Errorf("a delete in scope was refused while its freeze's policy was not loaded: %s", errText(err))
	} else {
		t.Logf("meanwhile a delete in scope (dry-run) was admitted: the freeze of deletion refused nothing, as reported")
	}
	if _, stderr, err := env.KubectlInput(ctx, webhooksFrozen, "delete", "-f", "-"); err != nil {
		t.Fatal(err, stderr)
	}
	released := time.Now()
	d = waitFor(t, 2*time.Minute, "verified once Kyverno registered the policy", verifiedOf(unloaded, "True/"+health.ReasonEnforced))
	t.Logf("the webhook configurations' guard removed: verified %s after", d.Round(time.Millisecond))
	if err := c.Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}, client.DryRunAll); !refused(err) {
		t.Errorf("a delete in scope (dry-run) was not refused %s after the policy was registered: %s", time.Since(released).Round(time.Second), errText(err))
	}
	if err := c.Delete(ctx, getPlan(t, unloaded)); err != nil {
		t.Fatal(err)
	}

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

// webhooksFrozen is a cluster's guard of its webhook configurations: a
// ValidatingAdmissionPolicy (and its binding) refusing every update of a
// ValidatingWebhookConfiguration, Kyverno's included.
const webhooksFrozen = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: e2e-webhooks-frozen
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["admissionregistration.k8s.io"]
      apiVersions: ["*"]
      operations: ["UPDATE"]
      resources: ["validatingwebhookconfigurations"]
  validations:
  - expression: "false"
    message: webhook configurations are frozen by the cluster's change control
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: e2e-webhooks-frozen
spec:
  policyName: e2e-webhooks-frozen
  validationActions: ["Deny"]
`

// messageOf is the message of a plan's EnforcementVerified.
func messageOf(t *testing.T, id string) string {
	t.Helper()
	for _, c := range getPlan(t, id).Status.Conditions {
		if c.Type == plan.ConditionEnforcementVerified {
			return c.Message
		}
	}
	return ""
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
	return createDeploymentWith(ctx, c, ns, name)
}

// TestEnforcementVerifiedCEL is the part of TestEnforcementVerified that
// applies to kyverno-cel unchanged, on the same control plane: two plans
// freezing creation in one namespace (so that they share the probe, and
// the API server names one policy of its parallel webhooks in the
// refusal), both verified; a policies.kyverno.io PolicyException naming
// the first plan's policy, reported on it alone (PolicyExcepted), both
// verified once it is deleted; Kyverno stopped (fail closed), both report the
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

	// (b) on kyverno-cel: a policies.kyverno.io PolicyException naming the
	// first plan's NamespacedValidatingPolicy; the second plan, which it
	// does not name, stays verified.
	nvpols := &unstructured.UnstructuredList{}
	nvpols.SetGroupVersionKind(harness.NamespacedValidatingPolicyGVK.GroupVersion().WithKind("NamespacedValidatingPolicyList"))
	if err := c.List(ctx, nvpols, client.MatchingLabels{render.LabelPlan: ids[0]}); err != nil || len(nvpols.Items) != 1 {
		t.Fatalf("the first plan's NamespacedValidatingPolicy: %v (%d)", err, len(nvpols.Items))
	}
	celException := `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata:
  name: let-ops-create-cel
  namespace: ` + ns + `
spec:
  policyRefs:
  - kind: NamespacedValidatingPolicy
    name: ` + nvpols.Items[0].GetName() + `
  matchConditions:
  - name: ops
    expression: "request.userInfo.username == 'ops'"
`
	if out, stderr, err := env.KubectlInput(ctx, celException, "apply", "-f", "-"); err != nil {
		t.Fatalf("the exception: %v %s %s", err, out, stderr)
	}
	d = waitFor(t, tick+15*time.Second, "PolicyExcepted on the first plan", func() (string, bool) {
		a, b := conditionOf(getPlan(t, ids[0]), plan.ConditionEnforcementVerified), conditionOf(getPlan(t, ids[1]), plan.ConditionEnforcementVerified)
		return a + ", " + b, a == "False/"+health.ReasonPolicyExcepted && b == "True/"+health.ReasonEnforced
	})
	t.Logf("kyverno-cel: a policies.kyverno.io PolicyException reported %s after it was created: %s", d.Round(time.Millisecond), messageOf(t, ids[0]))
	if _, stderr, err := env.Kubectl(ctx, "delete", "-n", ns, "policyexceptions.policies.kyverno.io", "let-ops-create-cel"); err != nil {
		t.Fatal(err, stderr)
	}
	d = waitFor(t, tick+15*time.Second, "both verified without the exception", all("True/"+health.ReasonEnforced))
	t.Logf("kyverno-cel: verified again %s after the exception was deleted", d.Round(time.Millisecond))
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

// TestEnforcementVerifiedVAP is issue 21's binding case on vap, on the same
// control plane: the operator in this process (target vap) over an enforce
// plan freezing creation, its own ValidatingAdmissionPolicyBinding changed
// by hand three ways, each while the test holds back the operator's
// repairs of bindings (answered 429, as the API server's priority and
// fairness does under load: a transient error the next pass retries; the
// operator repairs its own binding within a pass otherwise, and the
// condition never sees the drift; a 403 fails the plan instead, which
// reconcile's tests cover: PlanFailed): validationActions [Audit],
// policyName pointing elsewhere, the binding deleted. Each is reported
// (BindingNotEnforcing), and verified again within a pass or two of the
// repairs being let through.
func TestEnforcementVerifiedVAP(t *testing.T) {
	ctx := t.Context()
	id, ns := "enforcement-vap", "enforcement-vap"
	createNamespace(t, ns)
	ht := &holdTransport{}
	_, stop := startWith(t, t.TempDir(), func(rt http.RoundTripper) http.RoundTripper { ht.next = rt; return ht },
		operator.Config{Target: render.TargetVAP})
	defer stop()
	p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.Permanent})
	p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id}})
	})
	verified := func() (string, bool) {
		got := conditionOf(getPlan(t, id), plan.ConditionEnforcementVerified)
		return got, got == "True/"+health.ReasonEnforced
	}
	d := waitFor(t, time.Minute, "EnforcementVerified True", verified)
	t.Logf("vap: verified %s after the plan was created: %s", d.Round(time.Millisecond), messageOf(t, id))

	binding := func() *unstructured.Unstructured {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicyBindingList"))
		if err := c.List(ctx, list, client.MatchingLabels{render.LabelPlan: id}); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 {
			return nil
		}
		return &list.Items[0]
	}
	for _, row := range []struct {
		name   string
		change func(b *unstructured.Unstructured) error
		want   string // in the condition's message
	}{
		{"validationActions [Audit]", func(b *unstructured.Unstructured) error {
			_ = unstructured.SetNestedStringSlice(b.Object, []string{"Audit"}, "spec", "validationActions")
			return c.Update(ctx, b)
		}, "without Deny"},
		{"policyName pointing elsewhere", func(b *unstructured.Unstructured) error {
			_ = unstructured.SetNestedField(b.Object, "someone-elses-policy", "spec", "policyName")
			return c.Update(ctx, b)
		}, `binds policy "someone-elses-policy"`},
		{"deleted", func(b *unstructured.Unstructured) error { return c.Delete(ctx, b) }, "is missing"},
	} {
		b := binding()
		if b == nil {
			t.Fatalf("%s: the plan's binding is not there", row.name)
		}
		ht.hold(true)
		changed := time.Now()
		if err := row.change(b); err != nil {
			t.Fatalf("%s: %v", row.name, err)
		}
		d := waitFor(t, tick+15*time.Second, row.name+" reported", func() (string, bool) {
			got, m := conditionOf(getPlan(t, id), plan.ConditionEnforcementVerified), messageOf(t, id)
			return got + ": " + m, got == "False/"+health.ReasonBindingNotEnforcing && strings.Contains(m, row.want)
		})
		t.Logf("vap, binding %s (repairs held back): reported %s after the change: %s: %s", row.name, d.Round(time.Millisecond),
			conditionOf(getPlan(t, id), plan.ConditionEnforcementVerified), messageOf(t, id))
		if err := createDeployment(ctx, ns, "meanwhile"); err == nil {
			t.Logf("vap, binding %s: meanwhile a create in scope (dry-run) was admitted, as reported", row.name)
		} else {
			t.Errorf("vap, binding %s: a create in scope was refused: %s", row.name, errText(err))
		}
		ht.hold(false)
		d = waitFor(t, 2*tick+15*time.Second, row.name+" repaired and verified", verified)
		t.Logf("vap, binding %s: repaired and verified %s after the repairs were let through (%s after the change; %d repairs held back)",
			row.name, d.Round(time.Millisecond), time.Since(changed).Round(time.Millisecond), ht.heldCount())
	}
	if err := c.Delete(ctx, getPlan(t, id)); err != nil {
		t.Fatal(err)
	}
}

// holdTransport answers the operator's writes of
// ValidatingAdmissionPolicyBindings with a 429 (no Retry-After: the client
// does not retry it) while held, and sends everything else.
type holdTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	on   bool
	held int
}

func (t *holdTransport) hold(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.on = on
}

func (t *holdTransport) heldCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.held
}

func (t *holdTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	hold := t.on && req.Method != http.MethodGet && strings.Contains(req.URL.Path, "/validatingadmissionpolicybindings")
	if hold {
		t.held++
	}
	t.mu.Unlock()
	if !hold {
		return t.next.RoundTrip(req)
	}
	if req.Body != nil {
		_ = req.Body.Close()
	}
	body, _ := json.Marshal(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
		Message: "held back by the faults test: the operator's writes of ValidatingAdmissionPolicyBindings wait",
	})
	return &http.Response{
		StatusCode: http.StatusTooManyRequests, Status: "429 Too Many Requests",
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req,
	}, nil
}
