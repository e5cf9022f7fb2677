package render

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/telark/protectionplans/plan"
)

func TestHashOf_EqualsTheAnnotation(t *testing.T) {
	inputs := map[string]Input{"rich": richInput(), "hostile": hostileInput()}
	for _, tmpl := range Catalog() {
		inputs[tmpl.Name()] = Input{Plan: namespacePlan(plan.ModeAudit, []string{"a", "b"}, tpl(tmpl.Name())), Now: now}
	}
	for name, in := range inputs {
		for _, p := range mustRender(t, in).Policies {
			obj := p.Objects[0]
			got, err := HashOf(obj)
			if err != nil {
				t.Fatal(err)
			}
			if ann := obj.GetAnnotations()[AnnotationRenderHash]; got != ann || got != p.Hash {
				t.Errorf("%s: %s/%s: HashOf = %s, annotation %s, Policy.Hash %s", name, p.Namespace, p.Name, got, ann, p.Hash)
			}
		}
	}
}

// live turns a rendered object into what the API server returns: server
// metadata, other labels and annotations, a status; numbers as int64.
func live(obj *unstructured.Unstructured) *unstructured.Unstructured {
	l := obj.DeepCopy()
	l.SetUID("0b0d7a8e-1111-2222-3333-444455556666")
	l.SetResourceVersion("4711")
	l.SetGeneration(1)
	l.SetLabels(map[string]string{LabelPlan: obj.GetLabels()[LabelPlan], LabelTemplate: obj.GetLabels()[LabelTemplate],
		LabelManagedBy: ManagedBy, "other": "x"})
	ann := obj.GetAnnotations()
	ann["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
	l.SetAnnotations(ann)
	l.Object["status"] = map[string]any{"ready": true, "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	return l
}

func TestHashOf_IgnoresWhatTheServerSets(t *testing.T) {
	res := mustRender(t, richInput())
	for _, p := range res.Policies {
		got, err := HashOf(live(p.Objects[0]))
		if err != nil || got != p.Hash {
			t.Errorf("%s/%s: live hash %s, rendered %s (%v)", p.Namespace, p.Name, got, p.Hash, err)
		}
	}
}

func TestHashOf_SeesEditsUnderAnIntactAnnotation(t *testing.T) {
	p := mustRender(t, Input{Plan: namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling")), Now: now}).Policies[0]
	edits := map[string]func(*unstructured.Unstructured){
		"a rule removed": func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(o.Object, []any{}, "spec", "rules")
		},
		"the failure action changed": func(o *unstructured.Unstructured) { _ = SetFailureAction(o, plan.ModeAudit) },
		"a rule-level failure action added": func(o *unstructured.Unstructured) {
			rules, _, _ := unstructured.NestedSlice(o.Object, "spec", "rules")
			rules[0].(map[string]any)["validate"].(map[string]any)["failureAction"] = "Audit"
			_ = unstructured.SetNestedSlice(o.Object, rules, "spec", "rules")
		},
		"background turned on": func(o *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(o.Object, true, "spec", "background")
		},
		"the plan label changed": func(o *unstructured.Unstructured) {
			l := o.GetLabels()
			l[LabelPlan] = "other-plan"
			o.SetLabels(l)
		},
		"the managed-by label removed": func(o *unstructured.Unstructured) {
			l := o.GetLabels()
			delete(l, LabelManagedBy)
			o.SetLabels(l)
		},
		"moved to another namespace": func(o *unstructured.Unstructured) { o.SetNamespace("elsewhere") },
		"autogen switched back on": func(o *unstructured.Unstructured) {
			a := o.GetAnnotations()
			delete(a, AnnotationKyvernoAutogen)
			o.SetAnnotations(a)
		},
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			o := live(p.Objects[0])
			edit(o)
			if got, _ := HashOf(o); got == p.Hash {
				t.Error("the hash did not change")
			}
		})
	}
}

func TestFailureAction(t *testing.T) {
	for _, mode := range []plan.Mode{plan.ModeAudit, plan.ModeEnforce} {
		p := mustRender(t, Input{Plan: namespacePlan(mode, []string{"shop"}, tpl("delete")), Now: now}).Policies[0]
		obj := live(p.Objects[0])
		if got, err := FailureAction(obj); err != nil || got != mode {
			t.Errorf("FailureAction = %q, %v; want %q", got, err, mode)
		}
		other := plan.ModeAudit
		if mode == plan.ModeAudit {
			other = plan.ModeEnforce
		}
		if err := SetFailureAction(obj, other); err != nil {
			t.Fatal(err)
		}
		if got, _ := FailureAction(obj); got != other {
			t.Errorf("after SetFailureAction(%s): %s", other, got)
		}
		if err := SetFailureAction(obj, mode); err != nil {
			t.Fatal(err)
		}
		if got, _ := HashOf(obj); got != p.Hash {
			t.Error("patching the action back does not restore the render hash")
		}
	}
}

func TestFailureAction_DeprecatedSpellingsAndDefault(t *testing.T) {
	for value, want := range map[string]plan.Mode{"enforce": plan.ModeEnforce, "audit": plan.ModeAudit, "": plan.ModeAudit} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kyverno.io/v1", "kind": "Policy", "spec": map[string]any{}}}
		if value != "" {
			obj.Object["spec"].(map[string]any)["validationFailureAction"] = value
		}
		if got, err := FailureAction(obj); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", value, got, err, want)
		}
	}
}

func TestFailureAction_RefusesOtherKinds(t *testing.T) {
	// ClusterPolicy is rendered for a namespaceSelectors scope; a
	// PolicyException of the same engine never is.
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kyverno.io/v2", "kind": "PolicyException"}}
	if _, err := FailureAction(obj); !errors.Is(err, ErrNotRendered) {
		t.Errorf("err = %v, want ErrNotRendered", err)
	}
	if err := SetFailureAction(obj, plan.ModeAudit); !errors.Is(err, ErrNotRendered) {
		t.Errorf("err = %v, want ErrNotRendered", err)
	}
	if tgt, ok := TargetOf(obj); ok {
		t.Errorf("TargetOf = %s", tgt)
	}
}

func TestRender_UnknownTargets(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete"))
	_, err := Render(Input{Plan: p, Now: now, Target: "gatekeeper"})
	var uerr *UnsupportedTargetError
	if !errors.As(err, &uerr) || plan.CodeOf(err) != 400 {
		t.Errorf("err = %v, want a 400 *UnsupportedTargetError", err)
	}
	if _, err := Explain(Input{Plan: p, Now: now, Target: "gatekeeper"}, Request{}); !errors.As(err, &uerr) {
		t.Errorf("Explain: err = %v", err)
	}
	if err.Error() != `unknown render target "gatekeeper" (known: kyverno, kyverno-cel, vap)` {
		t.Errorf("message = %q", err)
	}
	for _, tgt := range Targets() {
		if !Supported(tgt) {
			t.Errorf("%s is not supported", tgt)
		}
	}
}

func TestRender_InactivePlansRenderNothing(t *testing.T) {
	for _, phase := range []plan.Phase{"", plan.PhasePendingApproval, plan.PhaseScheduled, plan.PhaseTerminated, plan.PhaseCanceled, plan.PhaseFailed} {
		p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete"))
		p.Status.Phase = phase
		p.Spec.Mode = "not even valid"
		res, err := Render(Input{Plan: p, Now: now})
		if err != nil || len(res.Policies) != 0 {
			t.Errorf("phase %q: %d policies, %v", phase, len(res.Policies), err)
		}
	}
}

func TestRender_OnePolicyPerTemplateAndNamespace(t *testing.T) {
	res := mustRender(t, richInput())
	// checkout: shop; search: search, shop; ledger: ledger, audit, billing.
	if got, want := len(res.Policies), 4*5; got != want {
		t.Fatalf("%d policies, want %d", got, want)
	}
	seen := map[string]bool{}
	for _, p := range res.Policies {
		o := p.Objects[0]
		key := o.GetNamespace() + "/" + o.GetName()
		if seen[key] {
			t.Errorf("%s rendered twice", key)
		}
		seen[key] = true
		if o.GetLabels()[LabelPlan] != "checkout-freeze" || o.GetLabels()[LabelTemplate] != p.Template {
			t.Errorf("%s: labels %v", key, o.GetLabels())
		}
		if o.GetNamespace() != p.Namespace || o.GetName() != p.Name || p.Name != PolicyName("checkout-freeze", p.Template) {
			t.Errorf("%s: Policy says %s/%s", key, p.Namespace, p.Name)
		}
	}
}

func TestRender_MissingApplication(t *testing.T) {
	p := appPlan(plan.ModeEnforce, tpl("delete"))
	_, err := Render(Input{Plan: p, Now: now})
	assertFieldError(t, err, "spec.scope.applications[0]")
}

func TestRender_ObjectsAreJSONValues(t *testing.T) {
	for _, o := range mustRender(t, richInput()).Objects() {
		_ = runtime.DeepCopyJSONValue(o.Object) // panics on anything but JSON values
	}
}

func TestKindsOfAndPlanSelector(t *testing.T) {
	kinds, err := KindsOf("")
	if err != nil || len(kinds) != 2 || kinds[0].String() != "kyverno.io/v1, Kind=Policy" || kinds[1].String() != "kyverno.io/v1, Kind=ClusterPolicy" {
		t.Errorf("KindsOf(default) = %v, %v", kinds, err)
	}
	kinds, err = KindsOf(TargetVAP)
	if err != nil || len(kinds) != 2 || kinds[0].Kind != "ValidatingAdmissionPolicy" || kinds[1].Kind != "ValidatingAdmissionPolicyBinding" {
		t.Errorf("KindsOf(vap) = %v, %v", kinds, err)
	}
	kinds, err = KindsOf(TargetKyvernoCEL)
	if err != nil || len(kinds) != 2 || kinds[0].String() != "policies.kyverno.io/v1, Kind=NamespacedValidatingPolicy" ||
		kinds[1].String() != "policies.kyverno.io/v1, Kind=ValidatingPolicy" {
		t.Errorf("KindsOf(kyverno-cel) = %v, %v", kinds, err)
	}
	if got := PlanSelector("black-friday"); got != "telark.io/protection-plan=black-friday" {
		t.Errorf("PlanSelector = %q", got)
	}
}
