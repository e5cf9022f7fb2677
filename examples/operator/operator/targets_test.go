package operator

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// The operator with each target: what it writes, lists, repairs, withdraws
// and sweeps, and how it fails without the target's policy API. The kinds
// and names are spelled out here, independently of package render.

// targetCase is one target's kinds and object names for the plan "freeze"
// with the templates scaling and image-change in namespace shop.
type targetCase struct {
	target render.Target
	// applied are the writes that put the plan in place, in order.
	applied []string
	// objects are the target's objects once in place ("<Kind> <ns>/<name>").
	objects []string
	// policy and actionHolder are the objects a repair test breaks: the
	// scaling policy (deleted by hand) and the object carrying the
	// image-change policy's failure action (set to Audit by hand).
	policy, actionHolder      schema.GroupVersionKind
	policyName, holderName    string
	namespace                 string // of policy and actionHolder ("" for vap)
	auditActions              func(u *unstructured.Unstructured) error
	eventApplied, eventAction string
}

var (
	gvkPolicy  = schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "Policy"}
	gvkNVPol   = schema.GroupVersionKind{Group: "policies.kyverno.io", Version: "v1", Kind: "NamespacedValidatingPolicy"}
	gvkVAP     = schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy"}
	gvkBinding = schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding"}
)

func targetCases() []targetCase {
	return []targetCase{
		{
			target:  render.TargetKyverno,
			applied: []string{"apply Policy shop/freeze-image-change", "apply Policy shop/freeze-scaling"},
			objects: []string{"Policy shop/freeze-image-change", "Policy shop/freeze-scaling"},
			policy:  gvkPolicy, actionHolder: gvkPolicy, policyName: "freeze-scaling", holderName: "freeze-image-change", namespace: "shop",
			auditActions: func(u *unstructured.Unstructured) error {
				return unstructured.SetNestedField(u.Object, "Audit", "spec", "validationFailureAction")
			},
			eventApplied: "Normal PoliciesApplied 1: shop/freeze-scaling", eventAction: "Normal FailureActionRestored 1: shop/freeze-image-change",
		},
		{
			target:  render.TargetKyvernoCEL,
			applied: []string{"apply NamespacedValidatingPolicy shop/freeze-image-change", "apply NamespacedValidatingPolicy shop/freeze-scaling"},
			objects: []string{"NamespacedValidatingPolicy shop/freeze-image-change", "NamespacedValidatingPolicy shop/freeze-scaling"},
			policy:  gvkNVPol, actionHolder: gvkNVPol, policyName: "freeze-scaling", holderName: "freeze-image-change", namespace: "shop",
			auditActions: func(u *unstructured.Unstructured) error {
				return unstructured.SetNestedStringSlice(u.Object, []string{"Audit"}, "spec", "validationActions")
			},
			eventApplied: "Normal PoliciesApplied 1: shop/freeze-scaling", eventAction: "Normal FailureActionRestored 1: shop/freeze-image-change",
		},
		{
			target: render.TargetVAP,
			applied: []string{
				"apply ValidatingAdmissionPolicy /freeze-image-change.shop", "apply ValidatingAdmissionPolicyBinding /freeze-image-change.shop",
				"apply ValidatingAdmissionPolicy /freeze-scaling.shop", "apply ValidatingAdmissionPolicyBinding /freeze-scaling.shop",
			},
			objects: []string{
				"ValidatingAdmissionPolicy /freeze-image-change.shop", "ValidatingAdmissionPolicy /freeze-scaling.shop",
				"ValidatingAdmissionPolicyBinding /freeze-image-change.shop", "ValidatingAdmissionPolicyBinding /freeze-scaling.shop",
			},
			policy: gvkVAP, actionHolder: gvkBinding, policyName: "freeze-scaling.shop", holderName: "freeze-image-change.shop",
			auditActions: func(u *unstructured.Unstructured) error {
				return unstructured.SetNestedStringSlice(u.Object, []string{"Audit", "Warn"}, "spec", "validationActions")
			},
			eventApplied: "Normal PoliciesApplied 1: ValidatingAdmissionPolicy freeze-scaling.shop",
			eventAction:  "Normal FailureActionRestored 1: ValidatingAdmissionPolicyBinding freeze-image-change.shop",
		},
	}
}

func TestTargets_EveryTargetIsAccepted(t *testing.T) {
	for _, target := range render.Targets() {
		if err := CheckTarget(target); err != nil {
			t.Errorf("CheckTarget(%s) = %v", target, err)
		}
		if _, err := (Config{Target: target, ReportsDir: t.TempDir()}).withDefaults(); err != nil {
			t.Errorf("Config with target %s: %v", target, err)
		}
	}
	if err := CheckTarget("opa"); err == nil || !strings.Contains(err.Error(), `unknown target "opa"`) {
		t.Errorf("CheckTarget(opa) = %v", err)
	}
}

func TestTargets_PutInPlaceAndSteadyState(t *testing.T) {
	for _, tc := range targetCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"), namespace("other"),
				kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling", "image-change")}, withTarget(tc.target))
			writes := f.pass()
			want := append(append([]string{"update ProtectionPlan /freeze"}, tc.applied...), "update/status ProtectionPlan /freeze")
			if !slices.Equal(writes, want) {
				t.Errorf("writes = %q\nwant     %q", writes, want)
			}
			if got := f.objects(); !slices.Equal(got, tc.objects) {
				t.Errorf("objects = %q, want %q", got, tc.objects)
			}
			if n := len(f.policies("other")); n != 0 {
				t.Errorf("%d policies for namespace other", n)
			}
			p := f.plan("freeze")
			if p.Status.Phase != plan.PhaseActive {
				t.Fatalf("phase %q", p.Status.Phase)
			}
			if c := condition(p, plan.ConditionPoliciesHealthy); c.Status != metav1.ConditionTrue || c.Reason != health.ReasonInPlace {
				t.Errorf("PoliciesHealthy = %s %s %q", c.Status, c.Reason, c.Message)
			}
			if len(p.Status.Policies) != 2 {
				t.Errorf("status.policies = %+v, want the 2 policies", p.Status.Policies)
			}
			var obs reconcile.Record
			f.readJSON("freeze", store.ObservedFile, &obs)
			for _, pi := range obs.Policies {
				if pi.Namespace != "shop" || pi.Target != string(tc.target) {
					t.Errorf("record policy %+v, want namespace shop, target %s", pi, tc.target)
				}
			}
			f.drainEvents()
			for i := range 3 {
				if writes := f.tick(2 * time.Second); len(writes) > 0 {
					t.Fatalf("pass %d in the steady state wrote %q", i+2, writes)
				}
			}
			if evs := f.drainEvents(); len(evs) > 0 {
				t.Errorf("events in the steady state: %q", evs)
			}
		})
	}
}

func TestTargets_DriftIsRepaired(t *testing.T) {
	for _, tc := range targetCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"),
				kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling", "image-change")}, withTarget(tc.target))
			f.pass()
			ctx := context.Background()
			// The scaling policy deleted by hand (for vap: the
			// ValidatingAdmissionPolicy, its binding stays), the
			// image-change policy's failure action set to audit.
			if err := f.c.Delete(ctx, f.get(tc.policy, tc.namespace, tc.policyName)); err != nil {
				t.Fatal(err)
			}
			holder := f.get(tc.actionHolder, tc.namespace, tc.holderName)
			if err := tc.auditActions(holder); err != nil {
				t.Fatal(err)
			}
			if err := f.c.Update(ctx, holder); err != nil {
				t.Fatal(err)
			}
			if mode, err := render.FailureAction(f.get(tc.actionHolder, tc.namespace, tc.holderName)); err != nil || mode != plan.ModeAudit {
				t.Fatalf("the hand edit reads as %s, %v", mode, err)
			}
			f.drainEvents()

			writes := f.tick(2 * time.Second)
			want := []string{
				"apply " + tc.policy.Kind + " " + tc.namespace + "/" + tc.policyName,
				"patch " + tc.actionHolder.Kind + " " + tc.namespace + "/" + tc.holderName,
			}
			if len(writes) < 2 || !slices.Equal(writes[:2], want) {
				t.Errorf("repairs = %q, want %q first", writes, want)
			}
			if mode, _ := render.FailureAction(f.get(tc.actionHolder, tc.namespace, tc.holderName)); mode != plan.ModeEnforce {
				t.Errorf("failure action after repair = %s", mode)
			}
			evs := f.drainEvents()
			for _, w := range []string{tc.eventApplied, tc.eventAction} {
				if !slices.ContainsFunc(evs, func(e string) bool { return strings.HasPrefix(e, w) }) {
					t.Errorf("no event %q in %q", w, evs)
				}
			}
			if writes := f.tick(2 * time.Second); !slices.Equal(writes, []string{"update/status ProtectionPlan /freeze"}) {
				t.Errorf("the pass after the repair wrote %q, want only the status", writes)
			}
			if got := f.objects(); !slices.Equal(got, tc.objects) {
				t.Errorf("objects after repair = %q, want %q", got, tc.objects)
			}
		})
	}
}

func TestTargets_StrayObjectWithThePlanLabelIsDeleted(t *testing.T) {
	for _, tc := range targetCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"),
				kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling", "image-change")}, withTarget(tc.target))
			f.pass()
			stray := f.get(tc.policy, tc.namespace, tc.policyName).DeepCopy()
			stray.SetName("stray")
			stray.SetResourceVersion("")
			stray.SetUID("")
			if err := f.c.Create(context.Background(), stray); err != nil {
				t.Fatal(err)
			}
			writes := f.tick(2 * time.Second)
			if want := "delete " + tc.policy.Kind + " " + tc.namespace + "/stray"; !slices.Contains(writes, want) {
				t.Errorf("writes = %q, want %q", writes, want)
			}
			if got := f.objects(); !slices.Equal(got, tc.objects) {
				t.Errorf("objects = %q, want %q", got, tc.objects)
			}
		})
	}
}

func TestTargets_CancelWithdrawsEveryObject(t *testing.T) {
	for _, tc := range targetCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"),
				kubectlPlan("freeze", plan.ModeAudit, []string{"shop"}, "scaling", "image-change")}, withTarget(tc.target))
			f.pass()
			res, err := plan.Cancel(f.plan("freeze"), "bob", f.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			f.storeStatus(res.Plan)
			writes := f.tick(time.Second)
			var deletes []string
			for _, w := range writes {
				if strings.HasPrefix(w, "delete ") {
					deletes = append(deletes, w)
				}
			}
			if len(deletes) != len(tc.objects) {
				t.Errorf("deletes = %q, want one per object of %q", deletes, tc.objects)
			}
			if got := f.objects(); len(got) != 0 {
				t.Errorf("objects left after cancel: %q", got)
			}
			var obs reconcile.Record
			f.readJSON("freeze", store.ObservedFile, &obs)
			if obs.Phase != plan.PhaseCanceled || len(obs.Policies) != 2 {
				t.Errorf("record = %+v, want canceled with the run's 2 policies", obs)
			}
		})
	}
}

func TestTargets_DeletedPlanIsSwept(t *testing.T) {
	for _, tc := range targetCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"),
				kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling", "image-change")}, withTarget(tc.target))
			f.pass()
			if err := f.c.Delete(context.Background(), f.plan("freeze")); err != nil {
				t.Fatal(err)
			}
			writes := f.tick(2 * time.Second)
			if len(writes) != len(tc.objects) {
				t.Errorf("writes = %q, want one delete per object of %q", writes, tc.objects)
			}
			if got := f.objects(); len(got) != 0 {
				t.Errorf("objects left after the sweep: %q", got)
			}
		})
	}
}

// Without the target's policy API (Kyverno, or its CEL policy CRD, not
// installed; the admissionregistration.k8s.io/v1 policy API not served),
// an active plan fails with PolicyAPIMissing, is retried on every tick
// without rewriting its status, and recovers nothing else on its own.
func TestTargets_PolicyAPIMissingFailsThePlan(t *testing.T) {
	for _, tc := range targetCases() {
		t.Run(string(tc.target), func(t *testing.T) {
			f := newFixture(t, []client.Object{namespace("shop"),
				kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")}, withTarget(tc.target), withoutPolicyAPI())
			f.pass()
			p := f.plan("freeze")
			c := condition(p, plan.ConditionReady)
			if p.Status.Phase != plan.PhaseFailed || c.Reason != plan.ReasonPolicyAPIMissing {
				t.Fatalf("phase %q, Ready %s %q; want failed, PolicyAPIMissing", p.Status.Phase, c.Reason, c.Message)
			}
			if !strings.Contains(c.Message, string(tc.target)) || !strings.Contains(c.Message, tc.policy.Kind) {
				t.Errorf("Ready message %q does not name the target and its kind", c.Message)
			}
			if !slices.ContainsFunc(f.drainEvents(), func(e string) bool { return strings.HasPrefix(e, "Warning Failed PolicyAPIMissing") }) {
				t.Error("no Failed event")
			}
			if writes := f.tick(2 * time.Second); len(writes) > 0 {
				t.Errorf("the retry of a lasting failure wrote %q", writes)
			}
		})
	}
}

// Only the target's kinds are listed: the policies of another target
// carrying a plan's label are not the operator's to judge (another
// operator may run with that target).
func TestTargets_OtherTargetsObjectsAreLeftAlone(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"),
		kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")}, withTarget(render.TargetVAP))
	other := &unstructured.Unstructured{}
	other.SetGroupVersionKind(gvkPolicy)
	other.SetNamespace("shop")
	other.SetName("freeze-scaling")
	other.SetLabels(map[string]string{render.LabelPlan: "freeze"})
	if err := f.c.Create(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	writes := f.pass()
	for _, w := range writes {
		if strings.Contains(w, " Policy ") {
			t.Errorf("the vap operator wrote %q", w)
		}
	}
	f.get(gvkPolicy, "shop", "freeze-scaling") // still there
}
