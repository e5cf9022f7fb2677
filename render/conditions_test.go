package render

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// bogus is a condition outside the closed set.
const bogus ConditionType = "Bogus"

// probeRule is a rule of condition cond over the updates of Deployments
// (and their /scale), as a catalog template would write it; a scope guard
// of the application checkout for LeavesApplication.
func probeRule(cond ConditionType) RuleSpec {
	r := RuleSpec{
		Name: "probe", What: "probing", Kinds: []Kind{KindDeployment}, Subresources: []string{SubresourceScale},
		Operations: []Operation{OpUpdate}, Condition: cond, Direction: DirectionAny,
	}
	if cond == LeavesApplication {
		r.Subresources, r.Application = nil, "checkout"
	}
	return r
}

// probeCompiled is the enforcing plan on the application checkout,
// compiled for target, with one template whose only rule is r (the
// namespace's scope guards follow it).
func probeCompiled(t *testing.T, target Target, r RuleSpec) *compiled {
	t.Helper()
	in := Input{Plan: appPlan(plan.ModeEnforce, tpl("all-writes")), Applications: []plan.Application{checkoutApp()}, Now: now, Target: target}
	c, err := compile(in)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	c.templates = []boundTemplate{{name: "probe", rules: []RuleSpec{r}}}
	return c
}

// changeEverything is an UPDATE of Deployment shop/web that every
// condition sees: it changes the images, the replicas, restartedAt, the
// storage request and the data, and takes web out of checkout.
func changeEverything() Request {
	object := func(labels map[string]any, v string, replicas int64) map[string]any {
		return map[string]any{
			"metadata": map[string]any{"name": "web", "labels": labels},
			"spec": map[string]any{
				"replicas": replicas,
				"template": map[string]any{
					"metadata": map[string]any{"annotations": map[string]any{"kubectl.kubernetes.io/restartedAt": v}},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "shop/web:" + v}}},
				},
				"resources": map[string]any{"requests": map[string]any{"storage": v + "Gi"}},
			},
			"data": map[string]any{"k": v},
		}
	}
	return Request{
		Operation: OpUpdate, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Namespace: "shop", Name: "web",
		OldObject: object(map[string]any{"app": "checkout", "tier": "web"}, "1", 2),
		Object:    object(map[string]any{}, "2", 3),
		UserInfo:  UserInfo{Username: "alice"},
	}
}

// withTemplate adds tmpl to the catalog until the test ends. The tests of
// this package do not run in parallel (no t.Parallel), so no other test
// sees it; this one must not either.
func withTemplate(t *testing.T, tmpl Template) {
	t.Helper()
	saved := catalog
	catalog = append(slices.Clone(catalog), tmpl)
	t.Cleanup(func() { catalog = saved })
}

// supportedTargets are the targets Render supports: a new target is
// tested here once it has its line in translators.
func supportedTargets() []Target {
	return slices.DeleteFunc(Targets(), func(t Target) bool { return !Supported(t) })
}

// TestConditions_EveryConditionHasATranslationInEveryTarget holds every
// target's translation and Explain's evaluation to the closed set: each
// translates every condition without error, and no two alike (a
// translation that read one condition as another, or as no condition,
// would render two of them the same), and Explain finds that each holds
// on an update that changes everything.
func TestConditions_EveryConditionHasATranslationInEveryTarget(t *testing.T) {
	for _, target := range supportedTargets() {
		rendered := map[string]ConditionType{}
		for _, cond := range Conditions() {
			t.Run(fmt.Sprintf("%s translates %s unlike any other condition", target, cond), func(t *testing.T) {
				ps, err := translators[target].policies(probeCompiled(t, target, probeRule(cond)))
				if err != nil {
					t.Fatalf("policies: %v", err)
				}
				y := string(mustYAML(t, Result{Policies: ps}))
				if other, ok := rendered[y]; ok {
					t.Fatalf("%s renders the same policies as %s", cond, other)
				}
				rendered[y] = cond
			})
			t.Run(fmt.Sprintf("Explain for %s finds that %s holds on an update that changes everything", target, cond), func(t *testing.T) {
				d, err := probeCompiled(t, target, probeRule(cond)).explain(changeEverything())
				if err != nil {
					t.Fatalf("explain: %v", err)
				}
				if !d.Blocked || d.Template != "probe" || d.Rule != "probe" {
					t.Fatalf("decision %+v, want blocked by probe/probe", d)
				}
			})
		}
	}
	t.Run("Conditions lists each condition once", func(t *testing.T) {
		got := Conditions()
		if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
			t.Fatalf("Conditions() = %v", got)
		}
	})
	t.Run("every catalog rule has a known condition, and leaves LeavesApplication to the scope guards", func(t *testing.T) {
		for _, tmpl := range Catalog() {
			for _, r := range tmpl.Rules() {
				if !r.Condition.known() || r.Condition == LeavesApplication {
					t.Errorf("%s/%s: condition %q", tmpl.Name(), r.Name, r.Condition)
				}
			}
		}
	})
}

// TestConditions_AnUnknownConditionIsRefusedByEveryTargetAndByExplain
// makes sure that a condition outside the closed set fails loudly, as an
// *UnknownConditionError (500), instead of reading as Always: from Render
// and Explain, whatever the request, naming the plan's template entry; and
// from each translation and Explain's evaluation, should a rule reach
// them unchecked.
func TestConditions_AnUnknownConditionIsRefusedByEveryTargetAndByExplain(t *testing.T) {
	withTemplate(t, Template{
		info:  plan.TemplateInfo{Name: "bogus", Title: "Bogus", Scopes: bothScopes},
		rules: []RuleSpec{probeRule(bogus)},
	})
	const fromCompile = `render: spec.templates[1]: rule "bogus/probe" has unknown condition "Bogus" ` +
		`(known: Always, ImagesChanged, ReplicasChanged, RestartedAtChanged, StorageRequestChanged, DataChanged, LeavesApplication)`
	const fromTranslation = `render: rule "probe" has unknown condition "Bogus" ` +
		`(known: Always, ImagesChanged, ReplicasChanged, RestartedAtChanged, StorageRequestChanged, DataChanged, LeavesApplication)`
	input := func(target Target) Input {
		return Input{
			Plan:         appPlan(plan.ModeEnforce, tpl("create"), tpl("bogus")),
			Applications: []plan.Application{checkoutApp()}, Now: now, Target: target,
		}
	}
	type row struct {
		name string
		run  func(t *testing.T) error
		want string
	}
	var tests []row
	for _, target := range supportedTargets() {
		tests = append(tests,
			row{fmt.Sprintf("Render to %s refuses a template rule with an unknown condition", target), func(t *testing.T) error {
				_, err := Render(input(target))
				return err
			}, fromCompile},
			row{fmt.Sprintf("Render to %s refuses it before the plan's own errors", target), func(t *testing.T) error {
				in := input(target)
				in.Plan.Spec.Mode = "sometimes"
				_, err := Render(in)
				return err
			}, fromCompile},
			row{fmt.Sprintf("Explain for %s refuses it, even for a request no rule matches", target), func(t *testing.T) error {
				_, err := Explain(input(target), Request{Operation: OpCreate, Namespace: "elsewhere"})
				return err
			}, fromCompile},
			row{fmt.Sprintf("the %s translation refuses it", target), func(t *testing.T) error {
				_, err := translators[target].policies(probeCompiled(t, target, probeRule(bogus)))
				return err
			}, fromTranslation},
			row{fmt.Sprintf("the %s translation refuses it in the compact layout", target), func(t *testing.T) error {
				c := probeCompiled(t, target, probeRule(bogus))
				c.compact = true
				_, err := translators[target].policies(c)
				return err
			}, fromTranslation},
			row{fmt.Sprintf("Explain's evaluation for %s refuses it on a request the rule matches", target), func(t *testing.T) error {
				_, err := probeCompiled(t, target, probeRule(bogus)).explain(changeEverything())
				return err
			}, fromTranslation},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run(t)
			var uc *UnknownConditionError
			if !errors.As(err, &uc) {
				t.Fatalf("error %v (%T), want an *UnknownConditionError", err, err)
			}
			if uc.Condition != bogus || uc.Rule != "probe" {
				t.Errorf("condition %q of rule %q, want %q of probe", uc.Condition, uc.Rule, bogus)
			}
			if err.Error() != tt.want {
				t.Errorf("message\n  %s\nwant\n  %s", err, tt.want)
			}
			if code := plan.CodeOf(err); code != http.StatusInternalServerError {
				t.Errorf("code %d, want 500", code)
			}
		})
	}
}
