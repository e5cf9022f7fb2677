package operator

import (
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// kyvernoHook is a fail-closed Kyverno webhook configuration covering
// everything, as Kyverno registers it (name, label, webhook name).
func kyvernoHook() *admissionregistrationv1.ValidatingWebhookConfiguration {
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	url := "https://127.0.0.1:9443/validate/fail"
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kyverno-resource-validating-webhook-cfg", Labels: map[string]string{health.KyvernoWebhookLabel: "kyverno"}},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.kyverno.svc-fail", FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*", "*/*"}},
			}},
		}},
	}
}

func enforcementCond(f *fixture, name string) metav1.Condition {
	f.t.Helper()
	c := meta.FindStatusCondition(f.plan(name).Status.Conditions, plan.ConditionEnforcementVerified)
	if c == nil {
		f.t.Fatalf("plan %s has no %s condition", name, plan.ConditionEnforcementVerified)
	}
	return *c
}

// TestEnforcement_ProbesAreDryRuns: on the fake API server (no Kyverno to
// refuse anything) the operator reads the webhooks, sends the create
// freeze's probe as a dry-run on every pass after the one that applied the
// policies, stores nothing, and reports the admitted probe; the steady
// state writes nothing but the probes' dry-runs.
func TestEnforcement_ProbesAreDryRuns(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kyvernoHook(), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "create")},
		withEnforcement())
	writes := f.pass()
	if slices.ContainsFunc(writes, func(w string) bool { return strings.Contains(w, health.ProbeName) }) {
		t.Errorf("the pass that applied the policies probed: %q", writes)
	}
	writes = f.tick(2 * time.Second)
	probes := 0
	for _, w := range writes {
		if strings.Contains(w, health.ProbeName) {
			probes++
		}
	}
	if probes != 1 {
		t.Fatalf("pass 2 wrote %q, want one probe (one namespace, one template)", writes)
	}
	var d appsv1.Deployment
	if err := f.c.Get(t.Context(), types.NamespacedName{Namespace: "shop", Name: health.ProbeName}, &d); err == nil {
		t.Errorf("the probe's dry-run stored a Deployment")
	}
	c := enforcementCond(f, "freeze")
	if c.Status != metav1.ConditionFalse || c.Reason != health.ReasonProbeAdmitted {
		t.Errorf("EnforcementVerified %s %s: %s; want False ProbeAdmitted (nothing refuses on a fake API server)", c.Status, c.Reason, c.Message)
	}
	f.drainEvents()
	for i := range 3 {
		for _, w := range f.tick(2 * time.Second) {
			if !strings.Contains(w, health.ProbeName) {
				t.Fatalf("steady pass %d wrote %q", i+3, w)
			}
		}
	}
	if evs := f.drainEvents(); len(evs) > 0 {
		t.Errorf("events in the steady state: %q", evs)
	}
}

// TestEnforcement_ProbesSharedAcrossPlans: two plans freezing creation in
// one namespace ask for the same probe (a Deployment); a pass sends it
// once, and the admitted answer is both plans'. A third plan freezing
// all writes asks for its cheapest kind, a ConfigMap: one more request
// for the namespace, not one per plan.
func TestEnforcement_ProbesSharedAcrossPlans(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kyvernoHook(),
		kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "create"),
		kubectlPlan("nightly", plan.ModeEnforce, []string{"shop"}, "create"),
		kubectlPlan("release", plan.ModeEnforce, []string{"shop"}, "all-writes")},
		withEnforcement())
	f.pass()
	var probes []string
	for _, w := range f.tick(2 * time.Second) {
		if strings.Contains(w, health.ProbeName) {
			probes = append(probes, w)
		}
	}
	if len(probes) != 2 {
		t.Errorf("probes %q in a pass over three plans freezing creation in shop, want 2 (a Deployment shared by two plans, a ConfigMap)", probes)
	}
	for _, name := range []string{"freeze", "nightly", "release"} {
		if c := enforcementCond(f, name); c.Reason != health.ReasonProbeAdmitted {
			t.Errorf("%s: EnforcementVerified %s %s: %s; want the shared probe's ProbeAdmitted", name, c.Status, c.Reason, c.Message)
		}
	}
}

// TestEnforcement_NoWebhookAndNoGuard: without Kyverno's webhooks and the
// guard, the plan's freeze is reported as not verified, naming both.
func TestEnforcement_NoWebhookAndNoGuard(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")}, withEnforcement())
	f.pass()
	c := enforcementCond(f, "freeze")
	if c.Status != metav1.ConditionFalse || c.Reason != health.ReasonWebhookMissing || !strings.Contains(c.Message, "the guard") {
		t.Errorf("EnforcementVerified %s %s: %s; want False WebhookMissing, the guard named too", c.Status, c.Reason, c.Message)
	}
}
