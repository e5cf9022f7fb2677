package reconcile_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// kyvernoWebhooks are Kyverno 1.19.1's webhook configurations as recorded
// in fail-closed mode (../health/testdata), their rules widened to every
// resource as Kyverno widens them for the policies it loads.
func kyvernoWebhooks(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "health", "testdata", "kyverno-1.19.1", "webhooks-fail-closed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, it := range list.Items {
		for _, w := range it["webhooks"].([]any) {
			for _, r := range w.(map[string]any)["rules"].([]any) {
				rm := r.(map[string]any)
				rm["apiGroups"], rm["resources"], rm["operations"] = []any{"*"}, []any{"*", "*/*"}, []any{"*"}
			}
			// The recorded CEL webhook selects the recording's namespace.
			delete(w.(map[string]any), "namespaceSelector")
		}
		out = append(out, &unstructured.Unstructured{Object: it})
	}
	return out
}

// probed is a world where plan xmas freezes creation in shop, with the
// enforcer read and probes on, answered by answer.
func probed(t *testing.T, answer func(health.Probe) health.ProbeAnswer) *world {
	t.Helper()
	w := newWorld("shop")
	p := freeze("xmas", "shop")
	p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
	w.add(p)
	w.cluster.Enforcer = &reconcile.Enforcer{Webhooks: kyvernoWebhooks(t)}
	w.settings.Probe = true
	w.probe = answer
	return w
}

func refused(p health.Probe) health.ProbeAnswer {
	return health.ProbeAnswer{Code: 400, Message: `admission webhook "validate.kyverno.svc-fail" denied the request: 

resource Deployment/shop/protectionplans-probe was blocked due to the following policies 

` + p.Policy + ":\n  create: 'creating resources is frozen'"}
}

func admitted(health.Probe) health.ProbeAnswer { return health.ProbeAnswer{Admitted: true} }

// statusPolicies marks every live policy ready, as Kyverno does once it
// loaded them.
func (w *world) statusPolicies() {
	for _, o := range w.policies {
		o.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Succeeded", "message": "Ready"}}}
	}
}

func TestEnforcementVerified(t *testing.T) {
	t.Run("the pass that puts the policies in place sends no probe; the next one does, and a refused probe verifies the freeze", func(t *testing.T) {
		w := probed(t, refused)
		w.pass(start.Add(-time.Hour))
		w.pass(start)
		if w.probes != 0 {
			t.Fatalf("%d probes on the pass that applied the policies", w.probes)
		}
		w.statusPolicies()
		w.pass(start.Add(time.Minute))
		if w.probes != 1 {
			t.Fatalf("%d probes, want 1 (one namespace, one template)", w.probes)
		}
		c := cond(w.plans["xmas"], plan.ConditionEnforcementVerified)
		if c.Status != metav1.ConditionTrue || c.Reason != health.ReasonEnforced || !strings.Contains(c.Message, "1 probe was refused") {
			t.Fatalf("EnforcementVerified %s %s: %s", c.Status, c.Reason, c.Message)
		}
		writes := w.writes
		w.pass(start.Add(2 * time.Minute))
		if w.writes != writes {
			t.Errorf("the steady state wrote %d times (probes are dry-runs, the condition did not change)", w.writes-writes)
		}
		if w.probes != 2 {
			t.Errorf("%d probes after two probing passes, want 2", w.probes)
		}
	})
	t.Run("two plans freezing creation in one namespace share one probe a pass, and each is verified by its answer", func(t *testing.T) {
		// The answer names the first policy only, as the API server
		// returns the first refusal of kyverno-cel's parallel webhooks.
		var first string
		w := probed(t, func(p health.Probe) health.ProbeAnswer {
			if first == "" {
				first = p.Policy
			}
			return refused(health.Probe{Policy: first})
		})
		other := freeze("nightly", "shop")
		other.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
		w.add(other)
		w.pass(start.Add(-time.Hour))
		w.pass(start)
		w.statusPolicies()
		w.pass(start.Add(time.Minute))
		if w.probes != 1 {
			t.Fatalf("%d probes in a pass over two plans freezing creation in shop, want 1", w.probes)
		}
		for _, id := range []string{"xmas", "nightly"} {
			if c := cond(w.plans[id], plan.ConditionEnforcementVerified); c.Status != metav1.ConditionTrue || c.Reason != health.ReasonEnforced {
				t.Errorf("%s: EnforcementVerified %s %s: %s", id, c.Status, c.Reason, c.Message)
			}
		}
		w.pass(start.Add(2 * time.Minute))
		if w.probes != 2 {
			t.Errorf("%d probes after two probing passes, want 2", w.probes)
		}
	})
	t.Run("an admitted probe turns the condition False with a Warning event, and a refused one turns it back", func(t *testing.T) {
		w := probed(t, refused)
		w.pass(start.Add(-time.Hour))
		w.pass(start)
		w.statusPolicies()
		w.pass(start.Add(time.Minute))
		w.events = nil
		w.probe = admitted
		w.pass(start.Add(2 * time.Minute))
		c := cond(w.plans["xmas"], plan.ConditionEnforcementVerified)
		if c.Status != metav1.ConditionFalse || c.Reason != health.ReasonProbeAdmitted {
			t.Fatalf("EnforcementVerified %s %s: %s", c.Status, c.Reason, c.Message)
		}
		if got := strings.Join(w.reasons(), ","); got != "Warning EnforcementChanged" {
			t.Errorf("events %q, want one Warning EnforcementChanged", got)
		}
		w.events = nil
		w.probe = refused
		w.pass(start.Add(3 * time.Minute))
		if !reconcile.Verified(w.plans["xmas"]) {
			t.Errorf("not verified again: %+v", cond(w.plans["xmas"], plan.ConditionEnforcementVerified))
		}
		if got := strings.Join(w.reasons(), ","); got != "Normal EnforcementChanged" {
			t.Errorf("events %q, want one Normal EnforcementChanged", got)
		}
	})
	t.Run("a verified plan whose policy is deleted and whose repair the cluster refuses (403) fails and is no longer verified", func(t *testing.T) {
		w := probed(t, refused)
		w.pass(start.Add(-time.Hour))
		w.pass(start)
		w.statusPolicies()
		w.pass(start.Add(time.Minute))
		if !reconcile.Verified(w.plans["xmas"]) {
			t.Fatalf("not verified first: %+v", cond(w.plans["xmas"], plan.ConditionEnforcementVerified))
		}
		for k := range w.policies {
			delete(w.policies, k)
		}
		w.fail = func(a health.Action) error {
			return apierrors.NewForbidden(schema.GroupResource{Group: "kyverno.io", Resource: "policies"}, a.Object.GetName(), errors.New("no right"))
		}
		w.events = nil
		w.pass(start.Add(2 * time.Minute))
		p := w.plans["xmas"]
		c := cond(p, plan.ConditionEnforcementVerified)
		if p.Status.Phase != plan.PhaseFailed || c.Status != metav1.ConditionFalse || c.Reason != health.ReasonPlanFailed {
			t.Fatalf("phase %s, EnforcementVerified %s %s: %s", p.Status.Phase, c.Status, c.Reason, c.Message)
		}
		if got := strings.Join(w.reasons(), ","); !strings.Contains(got, "Warning EnforcementChanged") {
			t.Errorf("events %q, want a Warning EnforcementChanged", got)
		}
		w.fail = nil
		w.pass(start.Add(3 * time.Minute))
		w.statusPolicies()
		w.pass(start.Add(4 * time.Minute))
		if !reconcile.Verified(w.plans["xmas"]) {
			t.Errorf("not verified once repaired: phase %s, %+v", w.plans["xmas"].Status.Phase, cond(w.plans["xmas"], plan.ConditionEnforcementVerified))
		}
	})
	t.Run("without an enforcer read, nothing is probed or decided", func(t *testing.T) {
		w := probed(t, refused)
		w.cluster.Enforcer = nil
		w.pass(start.Add(-time.Hour))
		w.pass(start)
		w.pass(start.Add(time.Minute))
		if w.probes != 0 || hasEnforcement(w.plans["xmas"]) {
			t.Errorf("%d probes, condition %+v", w.probes, cond(w.plans["xmas"], plan.ConditionEnforcementVerified))
		}
	})
}

func hasEnforcement(p *plan.ProtectionPlan) bool {
	return cond(p, plan.ConditionEnforcementVerified).Type != ""
}
