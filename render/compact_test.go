package render

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

// The compact layout (Input.Compact): one policy per namespace holding
// every template. It must decide every request exactly as the per-template
// layout does, and name the same template and message.

// celTargets are the CEL targets, which this package can evaluate with
// cel-go (test/kyverno runs the kyverno target's policies in Kyverno's
// engine).
var celTargets = []Target{TargetKyvernoCEL, TargetVAP}

// compactRule is the name a rule of template has in the compact layout: a
// scope guard's is prefixed with its template's.
func compactRule(template, rule string) string {
	if strings.HasPrefix(rule, scopeGuardRule) {
		return template + "-" + rule
	}
	return rule
}

// everyTemplate is the plan with every template of the catalog instead of
// its own, scope and mode kept.
func everyTemplate(p *plan.ProtectionPlan) *plan.ProtectionPlan {
	q := p.DeepCopy()
	q.Spec.Templates = allTemplates()
	return q
}

// compactCases are the explain corpus twice: each case's own plan, and the
// same plan with every template of the catalog, so that the rules of
// several templates share one policy.
func compactCases(t *testing.T) []corpusCase {
	var out []corpusCase
	for _, c := range explainCorpus(t) {
		out = append(out, c)
		e := c
		e.Name = "every template: " + c.Name
		e.Input.Plan = everyTemplate(c.Input.Plan)
		out = append(out, e)
	}
	return out
}

func TestCompact_DecidesAsThePerTemplateLayout(t *testing.T) {
	for _, target := range Targets() {
		for _, c := range compactCases(t) {
			t.Run(string(target)+"/"+c.Name, func(t *testing.T) {
				in := Input{Plan: c.Input.Plan, Applications: c.Input.Applications, Now: c.Input.Now, Target: target}
				perTemplate, err := Explain(in, c.Request)
				if err != nil {
					t.Fatal(err)
				}
				in.Compact = true
				compact, err := Explain(in, c.Request)
				if err != nil {
					t.Fatal(err)
				}
				if compact.Blocked != perTemplate.Blocked || compact.Audited != perTemplate.Audited ||
					compact.Exempt != perTemplate.Exempt || compact.Template != perTemplate.Template || compact.Message != perTemplate.Message ||
					compact.Rule != compactRule(perTemplate.Template, perTemplate.Rule) {
					t.Fatalf("compact: %+v\nper template: %+v", compact, perTemplate)
				}
				if compact.Policy != "" {
					template := CompactTemplate
					if compact.Exempt { // the record policy, in both layouts
						template = ExemptTemplate
					}
					want := translators[target].traits().policyName(c.Input.Plan.Name, template, compact.Namespace)
					if compact.Policy != want {
						t.Errorf("compact Explain names policy %s, want %s", compact.Policy, want)
					}
				}
				if target == TargetKyverno {
					return // test/kyverno runs Kyverno's engine
				}
				// The engines, on the compact render, agree with Explain;
				// the first failing validation is the rule it names.
				got := evaluateCEL(t, target, mustRender(t, in), c.Request.normalized())
				if got.blocked != compact.Blocked || got.audited != compact.Audited || got.recorded != compact.Exempt {
					t.Fatalf("%s compact: blocked=%v audited=%v recorded=%v (%q); Explain: blocked=%v audited=%v exempt=%v (%s)",
						target, got.blocked, got.audited, got.recorded, got.messages, compact.Blocked, compact.Audited, compact.Exempt, compact.Reason)
				}
				if compact.Message != "" && (len(got.messages) != 1 || got.messages[0] != compact.Message) {
					t.Errorf("the compact policy says %q, Explain %q", got.messages, compact.Message)
				}
			})
		}
	}
}

func TestCompact_OnePolicyPerNamespace(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop", "payments", "edge"}, tpl("image-change"), tpl("delete"), tpl("scaling"))
	for _, target := range Targets() {
		t.Run(string(target), func(t *testing.T) {
			res := mustRender(t, Input{Plan: p, Now: now, Target: target, Compact: true})
			if len(res.Policies) != 3 {
				t.Fatalf("%d policies, want one per namespace (3)", len(res.Policies))
			}
			for _, pol := range res.Policies {
				if pol.Template != CompactTemplate || !slices.Equal(pol.Templates, []string{"image-change", "delete", "scaling"}) {
					t.Errorf("%s: template %q, templates %v", pol.Name, pol.Template, pol.Templates)
				}
				want := translators[target].traits().policyName(p.Name, CompactTemplate, pol.Namespace)
				if pol.Name != want {
					t.Errorf("name %s, want %s", pol.Name, want)
				}
				for _, o := range pol.Objects {
					if o.GetLabels()[LabelTemplate] != CompactTemplate {
						t.Errorf("%s %s: template label %q", o.GetKind(), o.GetName(), o.GetLabels()[LabelTemplate])
					}
					if h, err := HashOf(o); err != nil || h != o.GetAnnotations()[AnnotationRenderHash] {
						t.Errorf("%s %s: HashOf %s (%v), annotation %s", o.GetKind(), o.GetName(), h, err, o.GetAnnotations()[AnnotationRenderHash])
					}
				}
			}
			perTemplate := mustRender(t, Input{Plan: p, Now: now, Target: target})
			for _, pol := range perTemplate.Policies {
				if !slices.Equal(pol.Templates, []string{pol.Template}) {
					t.Errorf("per template: %s holds %v", pol.Name, pol.Templates)
				}
			}
		})
	}
}

func TestCompact_NoTemplateIsNamedCompact(t *testing.T) {
	if _, ok := Lookup(CompactTemplate); ok {
		t.Fatalf("a catalog template is named %q: its policies would be taken for compact ones", CompactTemplate)
	}
}

// TestCompact_RuleNamesAreUniqueInAPolicy: Kyverno refuses a Policy with
// two rules of one name, and the compact layout puts every template's
// rules in one. The catalog's rule names are unique across templates;
// scope guards are prefixed with their template.
func TestCompact_RuleNamesAreUniqueInAPolicy(t *testing.T) {
	seen := map[string]string{}
	for _, tmpl := range Catalog() {
		for _, r := range tmpl.rules {
			if other, ok := seen[r.Name]; ok {
				t.Errorf("rule %s is in templates %s and %s", r.Name, other, tmpl.Name())
			}
			seen[r.Name] = tmpl.Name()
		}
	}
	p := appPlan(plan.ModeEnforce, allTemplates()...)
	p.Spec.Scope.Applications = []string{"checkout", "search"}
	search := plan.Application{Name: "search", Namespaces: []string{"shop"},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search"}}}
	res := mustRender(t, Input{Plan: p, Applications: []plan.Application{checkoutApp(), search}, Now: now, Target: TargetKyverno, Compact: true})
	rules, _, _ := unstructured.NestedSlice(res.Policies[0].Objects[0].Object, "spec", "rules")
	names := map[string]bool{}
	for _, r := range rules {
		name := r.(map[string]any)["name"].(string)
		if names[name] {
			t.Errorf("rule name %s twice", name)
		}
		names[name] = true
	}
	if len(names) < 20 || !names["image-change-scope-guard-2"] {
		t.Errorf("%d rules: %v", len(names), names)
	}
}

// TestCompact_ValidationsKeepTheirTemplatesMessages: every template's
// message is in the one policy, in the plan's order.
func TestCompact_ValidationsKeepTheirTemplatesMessages(t *testing.T) {
	p := appPlan(plan.ModeEnforce, allTemplates()...)
	for _, target := range celTargets {
		t.Run(string(target), func(t *testing.T) {
			in := Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now, Target: target}
			var want []string
			for _, pol := range mustRender(t, in).Policies {
				want = append(want, validationMessages(t, pol)...)
			}
			in.Compact = true
			res := mustRender(t, in)
			if len(res.Policies) != 1 {
				t.Fatalf("%d policies", len(res.Policies))
			}
			got := validationMessages(t, res.Policies[0])
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("compact messages:\n%q\nper-template messages:\n%q", got, want)
			}
		})
	}
}

func validationMessages(t *testing.T, pol Policy) []string {
	t.Helper()
	vals, _, err := unstructured.NestedSlice(pol.Objects[0].Object, "spec", "validations")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vals {
		m := v.(map[string]any)
		s, _ := m["message"].(string)
		if e, _ := m["messageExpression"].(string); e != "" {
			s += " | " + e
		}
		out = append(out, s)
	}
	return out
}
