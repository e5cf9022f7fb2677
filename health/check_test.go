package health

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// verdict is what a case asserts about a check: the states that are not
// ok, the counts, PoliciesHealthy and the actions.
type verdict struct {
	States  map[string]State // "namespace/name" -> state, for every policy not ok
	Summary Summary
	Healthy condition
	Actions []action
}

// condition is the part of a condition a case asserts.
type condition struct {
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

// action is an action as a case asserts it: kind, object and reason.
type action struct {
	Kind   ActionKind
	Object string // "Kind namespace/name"
	Reason string
}

func verdictOf(r Result) verdict {
	v := verdict{Summary: r.Summary, States: map[string]State{}}
	for _, p := range r.Policies {
		if p.State != StateOK {
			v.States[p.Namespace+"/"+p.Name] = p.State
		}
	}
	if c := r.Condition(plan.ConditionPoliciesHealthy); c != nil {
		v.Healthy = condition{c.Status, c.Reason, c.Message}
	}
	for _, a := range r.Actions {
		v.Actions = append(v.Actions, action{a.Kind, describe(a.Object), a.Reason})
	}
	return v
}

// named returns the object of objs named name (and in namespace ns, when
// given).
func named(t testing.TB, objs []*unstructured.Unstructured, name string, ns ...string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetName() == name && (len(ns) == 0 || o.GetNamespace() == ns[0]) {
			return o
		}
	}
	t.Fatalf("no object %s %v", name, ns)
	return nil
}

// drop returns objs without the object named name in namespace ns.
func drop(objs []*unstructured.Unstructured, ns, name string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetName() != name || o.GetNamespace() != ns {
			out = append(out, o)
		}
	}
	return out
}

func set(t testing.TB, o *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(o.Object, value, path...); err != nil {
		t.Fatal(err)
	}
}

// editRule changes the first rule's operations, as `kubectl edit` would.
func editRule(t testing.TB, o *unstructured.Unstructured) {
	t.Helper()
	rules, _, _ := unstructured.NestedSlice(o.Object, "spec", "rules")
	r := rules[0].(map[string]any)
	r["match"] = map[string]any{"any": []any{map[string]any{"resources": map[string]any{
		"kinds": []any{"apps/*/Deployment"}, "operations": []any{"DELETE"}}}}}
	set(t, o, rules, "spec", "rules")
}

// withPhase moves the plan to phase, with the Ready the lifecycle would
// have set.
func withPhase(p *plan.ProtectionPlan, phase plan.Phase, reason, msg string) *plan.ProtectionPlan {
	p.Status.Phase = phase
	plan.SetCondition(p, metav1.Condition{Type: plan.ConditionReady, Status: metav1.ConditionTrue, Reason: reason, Message: msg}, earlier)
	return p
}

func TestCheck(t *testing.T) {
	const (
		scaling = "summer-freeze-scaling"
		image   = "summer-freeze-image-change"
	)
	allOK := condition{metav1.ConditionTrue, ReasonInPlace, "all 9 policies are in place and match the plan"}
	tests := []struct {
		name  string
		input func(t *testing.T) Input
		want  verdict
	}{
		{
			name: "steady state has zero actions",
			input: func(t *testing.T) Input {
				p := samplePlan(nil)
				return Input{Plan: p, Render: mustRender(t, p), Live: liveSamples(t), Repair: true}
			},
			want: verdict{Summary: Summary{Rendered: 9, OK: 9}, Healthy: allOK},
		},
		{
			name: "a policy deleted by hand is missing and re-applied",
			input: func(t *testing.T) Input {
				p := samplePlan(nil)
				return Input{Plan: p, Render: mustRender(t, p), Live: drop(liveSamples(t), "shop", scaling), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateMissing},
				Summary: Summary{Rendered: 9, OK: 8, Missing: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesMissing, "1 of 9 policies missing in shop: being re-applied"},
				Actions: []action{{Apply, "Policy shop/" + scaling, "Policy shop/" + scaling + " is missing"}},
			},
		},
		{
			name: "a failure action flipped to Audit by hand is patched back to Enforce",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				set(t, named(t, live, scaling), "Audit", "spec", "validationFailureAction")
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateActionChanged},
				Summary: Summary{Rendered: 9, OK: 8, ActionChanged: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonFailureActionChanged,
					"1 of 9 policies with a changed failure action in shop: being patched back to enforce"},
				Actions: []action{{PatchFailureAction, "Policy shop/" + scaling,
					"Policy shop/" + scaling + " has failure action audit instead of the plan's enforce"}},
			},
		},
		{
			name: "a failure action set to Kyverno's deprecated lower-case audit is patched back",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				set(t, named(t, live, scaling), "audit", "spec", "validationFailureAction")
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateActionChanged},
				Summary: Summary{Rendered: 9, OK: 8, ActionChanged: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonFailureActionChanged,
					"1 of 9 policies with a changed failure action in shop: being patched back to enforce"},
				Actions: []action{{PatchFailureAction, "Policy shop/" + scaling,
					"Policy shop/" + scaling + " has failure action audit instead of the plan's enforce"}},
			},
		},
		{
			name: "a failure action respelled in lower case, still enforcing, is outdated and re-applied",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				set(t, named(t, live, scaling), "enforce", "spec", "validationFailureAction")
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateOutdated},
				Summary: Summary{Rendered: 9, OK: 8, Outdated: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesOutdated, "1 of 9 policies outdated in shop: being re-applied"},
				Actions: []action{{Apply, "Policy shop/" + scaling, "Policy shop/" + scaling +
					" was changed by hand under its render-hash annotation (it hashes to sha256:9a94f1f9ded4, not sha256:6a08fc356c76)"}},
			},
		},
		{
			name: "a rule edited by hand under an intact hash annotation is outdated and re-applied",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				editRule(t, named(t, live, image))
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + image: StateOutdated},
				Summary: Summary{Rendered: 9, OK: 8, Outdated: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesOutdated, "1 of 9 policies outdated in shop: being re-applied"},
				Actions: []action{{Apply, "Policy shop/" + image, "Policy shop/" + image +
					" was changed by hand under its render-hash annotation (it hashes to sha256:ec9319e5a7ef, not sha256:7300fab94b62)"}},
			},
		},
		{
			name: "a failure action flipped together with a rule edit is outdated, and re-applying fixes both",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				o := named(t, live, image)
				editRule(t, o)
				set(t, o, "Audit", "spec", "validationFailureAction")
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + image: StateOutdated},
				Summary: Summary{Rendered: 9, OK: 8, Outdated: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesOutdated, "1 of 9 policies outdated in shop: being re-applied"},
				Actions: []action{{Apply, "Policy shop/" + image, "Policy shop/" + image +
					" was changed by hand under its render-hash annotation (it hashes to sha256:7debc7d12d35, not sha256:7300fab94b62)"}},
			},
		},
		{
			name: "the policies of an earlier audit version of the plan are outdated and re-applied, not patched",
			input: func(t *testing.T) Input {
				p, old := samplePlan(nil, "scaling"), samplePlan(nil, "scaling")
				old.Spec.Mode = plan.ModeAudit
				return Input{Plan: p, Render: mustRender(t, p), Live: servedAll(mustRender(t, old)), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateOutdated},
				Summary: Summary{Rendered: 1, Outdated: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesOutdated, "1 of 1 policy outdated in shop: being re-applied"},
				Actions: []action{{Apply, "Policy shop/" + scaling, "Policy shop/" + scaling +
					" was rendered from another version of the plan (render hash sha256:8d20b7564007, now sha256:6a08fc356c76)"}},
			},
		},
		{
			name: "a policy whose render-hash annotation was removed is outdated and re-applied",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				o := named(t, live, scaling)
				a := o.GetAnnotations()
				delete(a, render.AnnotationRenderHash)
				o.SetAnnotations(a)
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateOutdated},
				Summary: Summary{Rendered: 9, OK: 8, Outdated: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesOutdated, "1 of 9 policies outdated in shop: being re-applied"},
				Actions: []action{{Apply, "Policy shop/" + scaling, "Policy shop/" + scaling + " has no render-hash annotation"}},
			},
		},
		{
			name: "a label another controller added to a policy keeps it ok",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				o := named(t, live, scaling)
				l := o.GetLabels()
				l["example.com/owner"] = "platform"
				o.SetLabels(l)
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: true}
			},
			want: verdict{Summary: Summary{Rendered: 9, OK: 9}, Healthy: allOK},
		},
		{
			name: "a stray policy with the plan label is deleted",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				stray := liveSample(t, "scaling")
				stray.SetName("summer-freeze-scaling-by-hand")
				stray.SetUID("aaaaaaaa-0000-4000-8000-000000000001")
				return Input{Plan: p, Render: mustRender(t, p), Live: append(live, stray), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/summer-freeze-scaling-by-hand": StateUnexpected},
				Summary: Summary{Rendered: 9, OK: 9, Unexpected: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonUnexpectedPolicies,
					"1 unexpected policy with the plan's label in shop: being deleted"},
				Actions: []action{{Delete, "Policy shop/summer-freeze-scaling-by-hand",
					"Policy shop/summer-freeze-scaling-by-hand carries the plan's label but is not in its render"}},
			},
		},
		{
			name: "the policies of a namespace taken out of the scope are deleted",
			input: func(t *testing.T) Input {
				p, old := samplePlan(nil, "scaling"), samplePlan([]string{"payments", "shop"}, "scaling")
				return Input{Plan: p, Render: mustRender(t, p), Live: servedAll(mustRender(t, old)), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"payments/" + scaling: StateUnexpected},
				Summary: Summary{Rendered: 1, OK: 1, Unexpected: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonUnexpectedPolicies,
					"1 unexpected policy with the plan's label in payments: being deleted"},
				Actions: []action{{Delete, "Policy payments/" + scaling,
					"Policy payments/" + scaling + " carries the plan's label but is not in its render"}},
			},
		},
		{
			name: "a canceled plan's policies are all deleted",
			input: func(t *testing.T) Input {
				p := withPhase(samplePlan(nil), plan.PhaseCanceled, "Canceled", "canceled by alice; reactivate the plan to run it again")
				return Input{Plan: p, Render: mustRender(t, p), Live: liveSamples(t, "scaling", "delete"), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/summer-freeze-delete": StateUnexpected, "shop/" + scaling: StateUnexpected},
				Summary: Summary{Unexpected: 2},
				Healthy: condition{metav1.ConditionFalse, ReasonUnexpectedPolicies,
					"2 policies still deployed in shop although the plan is canceled: being deleted"},
				Actions: []action{
					{Delete, "Policy shop/summer-freeze-delete", "Policy shop/summer-freeze-delete is deployed although the plan is canceled"},
					{Delete, "Policy shop/" + scaling, "Policy shop/" + scaling + " is deployed although the plan is canceled"},
				},
			},
		},
		{
			name: "a terminated plan's last policy is deleted",
			input: func(t *testing.T) Input {
				p := withPhase(samplePlan(nil), plan.PhaseTerminated, "Terminated", "the window ended; nothing is deployed")
				return Input{Plan: p, Render: mustRender(t, p), Live: liveSamples(t, "scaling"), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateUnexpected},
				Summary: Summary{Unexpected: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonUnexpectedPolicies,
					"1 policy still deployed in shop although the window ended: being deleted"},
				Actions: []action{{Delete, "Policy shop/" + scaling, "Policy shop/" + scaling + " is deployed although the window ended"}},
			},
		},
		{
			name: "a scheduled plan with no policies is healthy",
			input: func(t *testing.T) Input {
				p := withPhase(samplePlan(nil), plan.PhaseScheduled, "Scheduled", "nothing is deployed until the window opens at 2026-07-25T22:00:00Z")
				return Input{Plan: p, Render: mustRender(t, p), Repair: true}
			},
			want: verdict{Healthy: condition{metav1.ConditionTrue, ReasonNothingDeployed, "nothing is deployed before the window starts"}},
		},
		{
			name: "refresh health computes the same states but no actions",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), drop(liveSamples(t), "shop", scaling)
				set(t, named(t, live, image), "Audit", "spec", "validationFailureAction")
				return Input{Plan: p, Render: mustRender(t, p), Live: live, Repair: false}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateMissing, "shop/" + image: StateActionChanged},
				Summary: Summary{Rendered: 9, OK: 7, Missing: 1, ActionChanged: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesMissing,
					"1 of 9 policies missing in shop: re-applied on the next tick; " +
						"1 of 9 policies with a changed failure action in shop: patched back to enforce on the next tick"},
			},
		},
		{
			name: "refresh health of a canceled plan says the next tick deletes its policies",
			input: func(t *testing.T) Input {
				p := withPhase(samplePlan(nil), plan.PhaseCanceled, "Canceled", "canceled by alice; reactivate the plan to run it again")
				return Input{Plan: p, Render: mustRender(t, p), Live: liveSamples(t, "scaling")}
			},
			want: verdict{
				States:  map[string]State{"shop/" + scaling: StateUnexpected},
				Summary: Summary{Unexpected: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonUnexpectedPolicies,
					"1 policy still deployed in shop although the plan is canceled: deleted on the next tick"},
			},
		},
		{
			name: "a policy labelled for another plan is not this plan's to judge",
			input: func(t *testing.T) Input {
				p, live := samplePlan(nil), liveSamples(t)
				other := liveSample(t, "scaling")
				other.SetName("other-plan-scaling")
				l := other.GetLabels()
				l[render.LabelPlan] = "other-plan"
				other.SetLabels(l)
				return Input{Plan: p, Render: mustRender(t, p), Live: append(live, other), Repair: true}
			},
			want: verdict{Summary: Summary{Rendered: 9, OK: 9}, Healthy: allOK},
		},
		{
			name: "an object of a kind no target renders is never deleted, even with the plan label",
			input: func(t *testing.T) Input {
				p := samplePlan(nil)
				cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"name": "notes", "namespace": "shop",
						"labels": map[string]any{render.LabelPlan: "summer-freeze", render.LabelManagedBy: render.ManagedBy}}}}
				return Input{Plan: p, Render: mustRender(t, p), Live: append(liveSamples(t), cm), Repair: true}
			},
			want: verdict{Summary: Summary{Rendered: 9, OK: 9}, Healthy: allOK},
		},
		{
			name: "a policy listed twice is judged once",
			input: func(t *testing.T) Input {
				p := samplePlan(nil)
				stray := liveSample(t, "scaling")
				stray.SetName("stray")
				live := append(liveSamples(t), liveSamples(t)...)
				return Input{Plan: p, Render: mustRender(t, p), Live: append(live, stray, stray.DeepCopy()), Repair: true}
			},
			want: verdict{
				States:  map[string]State{"shop/stray": StateUnexpected},
				Summary: Summary{Rendered: 9, OK: 9, Unexpected: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonUnexpectedPolicies,
					"1 unexpected policy with the plan's label in shop: being deleted"},
				Actions: []action{{Delete, "Policy shop/stray", "Policy shop/stray carries the plan's label but is not in its render"}},
			},
		},
		{
			name: "an active plan checked against an empty render changes nothing",
			input: func(t *testing.T) Input {
				return Input{Plan: samplePlan(nil), Live: liveSamples(t), Repair: true}
			},
			want: verdict{Healthy: condition{metav1.ConditionUnknown, ReasonInconsistentInput,
				"the plan is active but its render holds no policies: render the plan before checking it; nothing is changed"}},
		},
		{
			name: "a canceled plan checked against a render of its active days changes nothing",
			input: func(t *testing.T) Input {
				p := samplePlan(nil)
				res := mustRender(t, p)
				p = withPhase(p, plan.PhaseCanceled, "Canceled", "canceled by alice; reactivate the plan to run it again")
				return Input{Plan: p, Render: res, Live: liveSamples(t), Repair: true}
			},
			want: verdict{Healthy: condition{metav1.ConditionUnknown, ReasonInconsistentInput,
				"the plan is canceled but its render holds 9 policies: render the plan in its current phase (nothing is rendered outside the window); nothing is changed"}},
		},
		{
			name: "a render of another plan changes nothing",
			input: func(t *testing.T) Input {
				p, other := samplePlan(nil), samplePlan(nil)
				other.Name = "winter-freeze"
				return Input{Plan: p, Render: mustRender(t, other), Live: liveSamples(t), Repair: true}
			},
			want: verdict{Healthy: condition{metav1.ConditionUnknown, ReasonInconsistentInput,
				`the render is of plan "winter-freeze", not of "summer-freeze"`}},
		},
		{
			name: "every kind of drift is named, the most severe as the reason, and repaired in order",
			input: func(t *testing.T) Input {
				p := samplePlan([]string{"edge", "payments", "shop"})
				live := servedAll(mustRender(t, p))
				live = drop(drop(live, "payments", scaling), "shop", scaling)
				set(t, named(t, live, image, "edge"), "Audit", "spec", "validationFailureAction")
				editRule(t, named(t, live, "summer-freeze-delete", "payments"))
				stray := named(t, live, scaling, "edge").DeepCopy()
				stray.SetNamespace("old")
				return Input{Plan: p, Render: mustRender(t, p), Live: append(live, stray), Repair: true}
			},
			want: verdict{
				States: map[string]State{
					"payments/" + scaling: StateMissing, "shop/" + scaling: StateMissing,
					"payments/summer-freeze-delete": StateOutdated, "edge/" + image: StateActionChanged,
					"old/" + scaling: StateUnexpected,
				},
				Summary: Summary{Rendered: 27, OK: 23, Missing: 2, Outdated: 1, ActionChanged: 1, Unexpected: 1},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesMissing,
					"2 of 27 policies missing in payments, shop: being re-applied; " +
						"1 of 27 policies outdated in payments: being re-applied; " +
						"1 of 27 policies with a changed failure action in edge: being patched back to enforce; " +
						"1 unexpected policy with the plan's label in old: being deleted"},
				Actions: []action{
					{Apply, "Policy payments/summer-freeze-delete", "Policy payments/summer-freeze-delete" +
						" was changed by hand under its render-hash annotation (it hashes to sha256:46c73c935171, not sha256:0796e5b43dae)"},
					{Apply, "Policy payments/" + scaling, "Policy payments/" + scaling + " is missing"},
					{Apply, "Policy shop/" + scaling, "Policy shop/" + scaling + " is missing"},
					{PatchFailureAction, "Policy edge/" + image, "Policy edge/" + image + " has failure action audit instead of the plan's enforce"},
					{Delete, "Policy old/" + scaling, "Policy old/" + scaling + " carries the plan's label but is not in its render"},
				},
			},
		},
		{
			name: "more than five namespaces are summed up",
			input: func(t *testing.T) Input {
				ns := []string{"a", "b", "c", "d", "e", "f", "g"}
				p := samplePlan(ns, "scaling")
				return Input{Plan: p, Render: mustRender(t, p)}
			},
			want: verdict{
				States: map[string]State{"a/" + scaling: StateMissing, "b/" + scaling: StateMissing, "c/" + scaling: StateMissing,
					"d/" + scaling: StateMissing, "e/" + scaling: StateMissing, "f/" + scaling: StateMissing, "g/" + scaling: StateMissing},
				Summary: Summary{Rendered: 7, Missing: 7},
				Healthy: condition{metav1.ConditionFalse, ReasonPoliciesMissing,
					"7 of 7 policies missing in a, b, c, d, e and 2 more: re-applied on the next tick"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.input(t)
			in.Now = now
			got := verdictOf(Check(in))
			if tt.want.States == nil {
				tt.want.States = map[string]State{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck_PoliciesAreSortedByNamespaceAndNameWithTheStraysAmongThem(t *testing.T) {
	p := samplePlan([]string{"payments", "shop"}, "scaling", "delete")
	live := servedAll(mustRender(t, p))
	stray := named(t, live, "summer-freeze-delete", "shop").DeepCopy()
	stray.SetNamespace("orders")
	r := Check(Input{Plan: p, Render: mustRender(t, p), Live: append(live, stray), Now: now})
	var got []string
	for _, ps := range r.PolicyStatuses() {
		got = append(got, ps.Namespace+"/"+ps.Name+" "+ps.Template+" "+ps.State)
	}
	want := []string{
		"orders/summer-freeze-delete delete unexpected",
		"payments/summer-freeze-delete delete ok",
		"payments/summer-freeze-scaling scaling ok",
		"shop/summer-freeze-delete delete ok",
		"shop/summer-freeze-scaling scaling ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PolicyStatuses (-want +got):\n%s", diff)
	}
}

// A target may render a policy as several objects (the vap target will
// render a ValidatingAdmissionPolicy and its binding). Health checks them
// object by object; the policy takes the most severe state.
func TestCheck_APolicyOfSeveralObjectsTakesItsMostSevereObjectState(t *testing.T) {
	p := samplePlan(nil, "scaling", "delete")
	res := mustRender(t, p)
	// Fold the two rendered policies into one of two objects.
	two := res.Policies[0]
	two.Objects = append(two.Objects, res.Policies[1].Objects...)
	folded := render.Result{Policies: []render.Policy{two}}
	tests := []struct {
		name    string
		live    func(t *testing.T) []*unstructured.Unstructured
		state   State
		detail  string
		actions []action
	}{
		{
			name:  "both objects in place: ok",
			live:  func(t *testing.T) []*unstructured.Unstructured { return liveSamples(t, "scaling", "delete") },
			state: StateOK,
		},
		{
			name: "one object missing, the other with a changed failure action: missing, and each object repaired its own way",
			live: func(t *testing.T) []*unstructured.Unstructured {
				o := liveSample(t, "scaling")
				set(t, o, "Audit", "spec", "validationFailureAction")
				return []*unstructured.Unstructured{o}
			},
			state: StateMissing,
			detail: "Policy shop/summer-freeze-delete is missing; " +
				"Policy shop/summer-freeze-scaling has failure action audit instead of the plan's enforce",
			actions: []action{
				{Apply, "Policy shop/summer-freeze-delete", "Policy shop/summer-freeze-delete is missing"},
				{PatchFailureAction, "Policy shop/summer-freeze-scaling", "Policy shop/summer-freeze-scaling has failure action audit instead of the plan's enforce"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Check(Input{Plan: p, Render: folded, Live: tt.live(t), Now: now, Repair: true})
			if len(r.Policies) != 1 || r.Policies[0].State != tt.state || r.Policies[0].Detail != tt.detail {
				t.Fatalf("policies %+v", r.Policies)
			}
			if diff := cmp.Diff(tt.actions, verdictOf(r).Actions); diff != "" {
				t.Errorf("actions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheck_TheOrderOfTheLiveListDoesNotMatter(t *testing.T) {
	p := samplePlan([]string{"payments", "shop", "shop-eu"}, "scaling", "delete")
	res := mustRender(t, p)
	live := servedAll(res)
	live = drop(live, "shop", "summer-freeze-delete")
	set(t, named(t, live, "summer-freeze-scaling", "shop-eu"), "Audit", "spec", "validationFailureAction")
	stray := named(t, live, "summer-freeze-scaling", "payments").DeepCopy()
	stray.SetName("stray")
	live = append(live, stray)
	want := verdictOf(Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true}))
	reversed := make([]*unstructured.Unstructured, len(live))
	for i, o := range live {
		reversed[len(live)-1-i] = o
	}
	// etcd's order: "shop-eu/..." before "shop/...".
	etcd := append(append(append([]*unstructured.Unstructured{}, live[:2]...), live[3:5]...), live[2], stray)
	for name, order := range map[string][]*unstructured.Unstructured{"reversed": reversed, "etcd": etcd} {
		got := verdictOf(Check(Input{Plan: p, Render: res, Live: order, Now: now, Repair: true}))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-render order +%s):\n%s", name, name, diff)
		}
	}
	if len(want.Actions) != 3 {
		t.Errorf("actions %+v", want.Actions)
	}
}
