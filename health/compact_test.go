package health

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// compactTemplates are the templates of the compact plan of these tests,
// in its order.
var compactTemplates = []string{"create", "scaling", "delete", "image-change"}

// compactPlan is samplePlan over payments and shop with compactTemplates;
// edit changes it before it renders.
func compactPlan(edit func(*plan.ProtectionPlan)) *plan.ProtectionPlan {
	p := samplePlan([]string{"payments", "shop"}, compactTemplates...)
	if edit != nil {
		edit(p)
	}
	return p
}

func renderCompact(t testing.TB, p *plan.ProtectionPlan, target render.Target) render.Result {
	t.Helper()
	res, err := render.Render(render.Input{Plan: p, Now: now, Target: target, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// fromServer is a served object as a client decodes it from the API
// server's JSON: integers are int64, not float64 as in a render.
func fromServer(t testing.TB, o *unstructured.Unstructured, i int) *unstructured.Unstructured {
	t.Helper()
	b, err := json.Marshal(served(o, i).Object)
	if err != nil {
		t.Fatal(err)
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	return out
}

func fromServerAll(t testing.TB, res render.Result) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for i, o := range res.Objects() {
		out = append(out, fromServer(t, o, i))
	}
	return out
}

// shopPolicy is the render's compact policy of namespace shop.
func shopPolicy(t testing.TB, res render.Result) render.Policy {
	t.Helper()
	for _, p := range res.Policies {
		if p.Namespace == "shop" && p.Template == render.CompactTemplate {
			return p
		}
	}
	t.Fatal("no compact policy in shop")
	return render.Policy{}
}

// liveOf is the live object of a rendered one.
func liveOf(t testing.TB, live []*unstructured.Unstructured, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	for _, l := range live {
		if keyOf(l) == keyOf(o) {
			return l
		}
	}
	t.Fatalf("%s is not live", describe(o))
	return nil
}

// firstRuleOf is the index of template's first entry in the compact
// policy's rule list.
func firstRuleOf(t testing.TB, p render.Policy, template string) int {
	t.Helper()
	at := 0
	for _, pt := range p.Parts {
		if pt.Template == template {
			return at
		}
		at += pt.Rules
	}
	t.Fatalf("no part %s", template)
	return 0
}

// editRules changes the rule list of the live object of p's first object
// as `kubectl edit` would.
func editRules(t testing.TB, live []*unstructured.Unstructured, p render.Policy, edit func([]any) []any) {
	t.Helper()
	o := liveOf(t, live, p.Objects[0])
	l, field, ok := render.RuleList(o)
	if !ok {
		t.Fatalf("%s has no rule list", describe(o))
	}
	set(t, o, edit(slices.Clone(l)), "spec", strings.TrimPrefix(field, "spec."))
}

// changed is a rule list entry changed in place.
func changed(e any) any {
	m := e.(map[string]any)
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	if _, ok := m["name"]; ok {
		c["skipBackgroundRequests"] = false // kyverno.io/v1
	} else {
		c["expression"] = "true" // a validation that refuses nothing
	}
	return c
}

func TestCheck_CompactPolicyTellsTemplatesApart(t *testing.T) {
	tests := []struct {
		name string
		// drift changes the live objects of the render res (the compact
		// policy of shop is p).
		drift func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured
		// before, when set, is the plan the live objects were rendered
		// from (the check renders compactPlan(nil)).
		before func(*plan.ProtectionPlan)
		state  State
		// templates are the templates at fault of shop's policy.
		templates []string
		// detail and message are what its detail and the condition's
		// message hold.
		detail, message []string
		action          ActionKind
	}{
		{
			name: "a compact policy in the steady state is ok and names no template",
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				return live
			},
			state: StateOK,
		},
		{
			name: "a deleted compact policy is missing for every template, and the repair applies all of it",
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				return slices.DeleteFunc(live, func(o *unstructured.Unstructured) bool {
					return o.GetAnnotations()[render.AnnotationTemplateHashes] != "" && keyOf(o) == keyOf(p.Objects[0])
				})
			},
			state: StateMissing, templates: compactTemplates,
			detail:  []string{"is missing: every template (create, scaling, delete, image-change); the repair applies the whole compact policy"},
			message: []string{"1 of 2 policies missing in shop (templates create, scaling, delete, image-change): being re-applied"},
			action:  Apply,
		},
		{
			name: "a hand edit of one template's rule puts that template alone at fault",
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				i := firstRuleOf(t, p, "delete")
				editRules(t, live, p, func(l []any) []any { l[i] = changed(l[i]); return l })
				return live
			},
			state: StateOutdated, templates: []string{"delete"},
			detail:  []string{"changed by hand", ": template delete (delete: ", " changed); the repair applies the whole compact policy"},
			message: []string{"1 of 2 policies outdated in shop (template delete): being re-applied"},
			action:  Apply,
		},
		{
			name: "a rule removed from the middle puts its template alone at fault, not the templates after it",
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				i := firstRuleOf(t, p, "scaling")
				editRules(t, live, p, func(l []any) []any { return slices.Delete(l, i, i+1) })
				return live
			},
			state: StateOutdated, templates: []string{"scaling"},
			detail:  []string{": template scaling (scaling: ", " missing); the repair"},
			message: []string{"(template scaling)"},
			action:  Apply,
		},
		{
			name: "two templates edited are both named, in the plan's order",
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				i, j := firstRuleOf(t, p, "image-change"), firstRuleOf(t, p, "create")
				editRules(t, live, p, func(l []any) []any { l[i], l[j] = changed(l[i]), changed(l[j]); return l })
				return live
			},
			state: StateOutdated, templates: []string{"create", "image-change"},
			detail:  []string{": templates create, image-change (create: ", "; image-change: "},
			message: []string{"(templates create, image-change)"},
			action:  Apply,
		},
		{
			name: "a rule no template renders is told apart, and puts no template at fault",
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				editRules(t, live, p, func(l []any) []any { return append(l, changed(l[0])) })
				if _, ok := p.Objects[0].Object["spec"].(map[string]any)["rules"]; ok { // kyverno: a rule of its own name
					editRules(t, live, p, func(l []any) []any {
						l[len(l)-1].(map[string]any)["name"] = "rogue"
						return l
					})
				}
				return live
			},
			state: StateOutdated, templates: nil,
			detail: []string{": no template (", "that no template renders)"},
			action: Apply,
		},
		{
			name:   "a compact policy rendered before one template's parameter changed names that template",
			before: func(p *plan.ProtectionPlan) { p.Spec.Templates[1].Parameters = map[string]string{"direction": "up"} },
			drift: func(t *testing.T, live []*unstructured.Unstructured, p render.Policy) []*unstructured.Unstructured {
				return live
			},
			state: StateOutdated, templates: []string{"scaling"},
			detail:  []string{"rendered from another version of the plan", ": template scaling (scaling: "},
			message: []string{"2 of 2 policies outdated in payments, shop (template scaling): being re-applied"},
			action:  Apply,
		},
	}
	for _, target := range render.Targets() {
		for _, tt := range tests {
			t.Run(string(target)+"/"+tt.name, func(t *testing.T) {
				p := compactPlan(nil)
				res := renderCompact(t, p, target)
				from := res
				if tt.before != nil {
					from = renderCompact(t, compactPlan(tt.before), target)
				}
				shop := shopPolicy(t, res)
				live := tt.drift(t, fromServerAll(t, from), shopPolicy(t, from))
				r := Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
				var got *PolicyHealth
				for i := range r.Policies {
					if r.Policies[i].Name == shop.Name && r.Policies[i].Namespace == "shop" {
						got = &r.Policies[i]
					}
				}
				if got == nil {
					t.Fatalf("no health of %s: %+v", shop.Name, r.Policies)
				}
				if got.State != tt.state || !slices.Equal(got.Templates, tt.templates) {
					t.Fatalf("state %s, templates %q; want %s, %q (detail %q)", got.State, got.Templates, tt.state, tt.templates, got.Detail)
				}
				for _, s := range tt.detail {
					if !strings.Contains(got.Detail, s) {
						t.Errorf("detail %q does not say %q", got.Detail, s)
					}
				}
				msg := r.Condition(plan.ConditionPoliciesHealthy).Message
				t.Logf("detail: %s\nmessage: %s", got.Detail, msg)
				for _, s := range tt.message {
					if !strings.Contains(msg, s) {
						t.Errorf("condition message %q does not say %q", msg, s)
					}
				}
				if tt.state == StateOK {
					if len(r.Actions) != 0 || got.Detail != "" {
						t.Errorf("actions %+v, detail %q in the steady state", r.Actions, got.Detail)
					}
					return
				}
				// The repair is the whole compact policy, its reason the
				// detail that names the templates.
				var a *Action
				for i := range r.Actions {
					if keyOf(r.Actions[i].Object) == keyOf(shop.Objects[0]) {
						a = &r.Actions[i]
					}
				}
				if a == nil || a.Kind != tt.action || !strings.Contains(got.Detail, a.Reason) {
					t.Fatalf("action %+v, want %s of %s with the detail as its reason", a, tt.action, describe(shop.Objects[0]))
				}
				if a.Kind == Apply && !jsonEqual(a.Object.Object["spec"], shop.Objects[0].Object["spec"]) {
					t.Errorf("the repair does not apply the whole compact policy")
				}
			})
		}
	}
}

// TestCheck_CompactFailureActionIsEveryTemplates: the failure action (the
// plan's mode) is the policy's, shared by every template, and is patched
// back as in the standard layout.
func TestCheck_CompactFailureActionIsEveryTemplates(t *testing.T) {
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) {
			p := compactPlan(nil)
			res := renderCompact(t, p, target)
			live := fromServerAll(t, res)
			shop := shopPolicy(t, res)
			var flipped *unstructured.Unstructured
			for _, o := range shop.Objects {
				if _, err := render.FailureAction(o); err == nil {
					flipped = liveOf(t, live, o)
				}
			}
			if err := render.SetFailureAction(flipped, plan.ModeAudit); err != nil {
				t.Fatal(err)
			}
			r := Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
			if r.Summary.ActionChanged != 1 || len(r.Actions) != 1 || r.Actions[0].Kind != PatchFailureAction {
				t.Fatalf("%+v, actions %+v", r.Summary, r.Actions)
			}
			for _, ph := range r.Policies {
				if ph.Name == shop.Name && ph.Namespace == "shop" {
					if !slices.Equal(ph.Templates, compactTemplates) || !strings.Contains(ph.Detail, "every template (create, scaling, delete, image-change)") ||
						!strings.Contains(ph.Detail, "shared by every template") || strings.Contains(ph.Detail, "applies the whole") {
						t.Errorf("templates %q, detail %q", ph.Templates, ph.Detail)
					}
				}
			}
		})
	}
}

// TestCheck_StandardLayoutNamesNoTemplates: a policy of one template says
// its template in Template; Templates stays nil and messages unchanged.
func TestCheck_StandardLayoutNamesNoTemplates(t *testing.T) {
	p := compactPlan(nil)
	res := mustRender(t, p)
	live := servedAll(res)
	editRule(t, named(t, live, "summer-freeze-scaling", "shop"))
	r := Check(Input{Plan: p, Render: res, Live: live, Now: now, Repair: true})
	for _, ph := range r.Policies {
		if ph.Templates != nil {
			t.Errorf("%s has templates %q", ph.Name, ph.Templates)
		}
	}
	if msg := r.Condition(plan.ConditionPoliciesHealthy).Message; msg != "1 of 8 policies outdated in shop: being re-applied" {
		t.Errorf("message %q", msg)
	}
}
