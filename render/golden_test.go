package render

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// goldenName is where the golden file of a case lives: testdata/<case>
// for the kyverno target, testdata/<target>/<case> for the others.
func goldenName(target Target, name string) string {
	if target == TargetKyverno {
		return name
	}
	return string(target) + "/" + name
}

// TestGolden_TemplateScopeMode renders every template in both scope types
// and both modes, one namespace each, for every target.
func TestGolden_TemplateScopeMode(t *testing.T) {
	for _, target := range Targets() {
		for _, tmpl := range Catalog() {
			for _, mode := range []plan.Mode{plan.ModeAudit, plan.ModeEnforce} {
				name := goldenName(target, tmpl.Name()+"_namespaces_"+string(mode))
				t.Run(name, func(t *testing.T) {
					p := namespacePlan(mode, []string{"shop"}, tpl(tmpl.Name()))
					checkGolden(t, name, mustYAML(t, mustRender(t, Input{Plan: p, Now: now, Target: target})))
				})
				name = goldenName(target, tmpl.Name()+"_applications_"+string(mode))
				t.Run(name, func(t *testing.T) {
					p := appPlan(mode, tpl(tmpl.Name()))
					in := Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now, Target: target}
					checkGolden(t, name, mustYAML(t, mustRender(t, in)))
				})
			}
		}
	}
}

func TestGolden_Cases(t *testing.T) {
	tests := []struct {
		name string
		in   func() Input
	}{
		{"exclusions_kinds_namespaces", func() Input {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"), tpl("configmap-edits"))
			p.Spec.Exclusions.Kinds = []string{"StatefulSet", "ConfigMap"}
			return Input{Plan: p, Now: now}
		}},
		{"exclusions_resources_applications", func() Input {
			p := appPlan(plan.ModeEnforce, tpl("scaling"))
			p.Spec.Exclusions = plan.Exclusions{
				Kinds: []string{"DaemonSet"},
				Resources: []plan.ResourceRef{
					{Kind: "Deployment", Name: "web", Namespace: "shop"},
					{Kind: "Deployment", Name: "api", Namespace: "shop"},
					{Kind: "StatefulSet", Name: "db", Namespace: "shop"},
					{Kind: "Deployment", Name: "elsewhere", Namespace: "other"},
				},
			}
			return Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now}
		}},
		{"multi_namespace", func() Input {
			p := namespacePlan(plan.ModeEnforce, []string{"shop", "payments", "edge"}, tpl("image-change"), tpl("delete"))
			return Input{Plan: p, Now: now}
		}},
		{"multi_application", func() Input {
			p := appPlan(plan.ModeAudit, tpl("all-writes"))
			p.Spec.Scope.Applications = []string{"checkout", "search", "ledger"}
			apps := []plan.Application{
				checkoutApp(),
				{Name: "search", Namespaces: []string{"shop", "search"}, Selector: &metav1.LabelSelector{
					MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "app.kubernetes.io/name", Operator: metav1.LabelSelectorOpExists},
						{Key: "track", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"canary"}},
						{Key: "legacy", Operator: metav1.LabelSelectorOpDoesNotExist},
					}}},
				{Name: "ledger", Namespaces: []string{"ledger"}},
			}
			return Input{Plan: p, Applications: apps, Now: now}
		}},
		{"parameters", func() Input {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"},
				tplWith("create", "kinds", " Secret, Deployment,ConfigMap ,Deployment"),
				tplWith("scaling", "direction", "up"))
			return Input{Plan: p, Now: now}
		}},
		{"window_permanent", func() Input {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete"))
			p.Spec.Window = window.Spec{Type: window.Permanent}
			return Input{Plan: p, Now: now}
		}},
		{"window_recurring", func() Input {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete"))
			p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: "America/New_York",
				Schedules: []window.Schedule{{Cron: "0 6 * * *", Duration: "8h"}}}
			return Input{Plan: p, Now: now}
		}},
		{"window_recurring_open_end", func() Input {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("delete"))
			p.Spec.Window = window.Spec{Type: window.Recurring,
				Schedules: []window.Schedule{{Cron: "0 * * * *", Duration: "2h"}}}
			return Input{Plan: p, Now: now}
		}},
		// The shape plan.InstanceLabelResolver gives: one label, no
		// expressions. Kyverno refused the /scale rules of this shape once.
		{"applications_instance_label", func() Input {
			p := appPlan(plan.ModeEnforce, tpl("scaling"), tpl("all-writes"))
			app := plan.Application{Name: "checkout", Namespaces: []string{"shop"},
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{plan.InstanceLabel: "checkout"}},
				Members:  []plan.ResourceRef{{Kind: "Deployment", Name: "web", Namespace: "shop"}}}
			return Input{Plan: p, Applications: []plan.Application{app}, Now: now}
		}},
		{"hostile", func() Input { return hostileInput() }},
		// Exempt requesters only: excluded from every rule, recorded by
		// the record policy, which matches them alone.
		{"requesters_exempt_namespaces", func() Input {
			return Input{Plan: exemptingPlan(plan.ModeEnforce), Now: now}
		}},
		// Include and exclude on an applications scope (scope guards, the
		// /scale rules): every rule matches only included requesters; the
		// record policy's rules match included and exempt ones (kyverno:
		// match.all).
		{"requesters_include_applications", func() Input {
			p := exemptingApplicationsPlan()
			p.Spec.Requesters.Include = plan.RequesterSet{Groups: []string{"developers"}, ServiceAccounts: []string{"ci:deployer"}}
			return Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now}
		}},
		{"applications_members_and_guards", func() Input {
			p := appPlan(plan.ModeEnforce, tpl("scaling"), tpl("image-change"))
			p.Spec.Scope.Applications = []string{"checkout", "search"}
			checkout := checkoutApp()
			checkout.Members = append(checkout.Members,
				plan.ResourceRef{Kind: "StatefulSet", Name: "cart-db", Namespace: "shop"},
				plan.ResourceRef{Kind: "Deployment", Name: "api", Namespace: "shop"},
				plan.ResourceRef{Kind: "ConfigMap", Name: "not-scalable", Namespace: "shop"},
				plan.ResourceRef{Kind: "Deployment", Name: "elsewhere", Namespace: "other"})
			search := plan.Application{Name: "search", Namespaces: []string{"shop"},
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search"}},
				Members:  []plan.ResourceRef{{Kind: "Deployment", Name: "indexer", Namespace: "shop"}}}
			return Input{Plan: p, Applications: []plan.Application{checkout, search}, Now: now}
		}},
	}
	for _, target := range Targets() {
		for _, tt := range tests {
			name := goldenName(target, tt.name)
			t.Run(name, func(t *testing.T) {
				in := tt.in()
				in.Target = target
				checkGolden(t, name, mustYAML(t, mustRender(t, in)))
			})
		}
	}
}

// TestGolden_Compact renders the compact layout of every target: every
// template in two namespaces, every template of two applications sharing
// a namespace (members and scope guards), in audit mode.
func TestGolden_Compact(t *testing.T) {
	tests := []struct {
		name string
		in   func() Input
	}{
		{"compact_every_template_namespaces_enforce", func() Input {
			return Input{Plan: namespacePlan(plan.ModeEnforce, []string{"shop", "payments"}, allTemplates()...), Now: now}
		}},
		{"compact_every_template_applications_audit", func() Input {
			p := appPlan(plan.ModeAudit, allTemplates()...)
			p.Spec.Scope.Applications = []string{"checkout", "search"}
			checkout := checkoutApp()
			checkout.Members = append(checkout.Members, plan.ResourceRef{Kind: "StatefulSet", Name: "cart-db", Namespace: "shop"})
			search := plan.Application{Name: "search", Namespaces: []string{"shop"},
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search"}},
				Members:  []plan.ResourceRef{{Kind: "Deployment", Name: "indexer", Namespace: "shop"}}}
			p.Spec.Exclusions.Resources = []plan.ResourceRef{{Kind: "ConfigMap", Name: "feature-flags", Namespace: "shop"}}
			return Input{Plan: p, Applications: []plan.Application{checkout, search}, Now: now}
		}},
		{"compact_requesters_namespaces_audit", func() Input {
			p := exemptingPlan(plan.ModeAudit)
			p.Spec.Requesters.Include = plan.RequesterSet{Users: []string{"alice"}, Groups: []string{"developers"}}
			return Input{Plan: p, Now: now}
		}},
	}
	for _, target := range Targets() {
		for _, tt := range tests {
			name := goldenName(target, tt.name)
			t.Run(name, func(t *testing.T) {
				in := tt.in()
				in.Target, in.Compact = target, true
				checkGolden(t, name, mustYAML(t, mustRender(t, in)))
			})
		}
	}
}
