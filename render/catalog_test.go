package render

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

func TestCatalog_NamesAreStable(t *testing.T) {
	want := []string{"create", "delete", "image-change", "scaling", "configmap-edits", "secret-edits", "storage", "rollout-restart", "all-writes"}
	var got []string
	for _, tmpl := range Catalog() {
		got = append(got, tmpl.Name())
	}
	if !slices.Equal(got, want) {
		t.Errorf("catalog = %v, want %v", got, want)
	}
}

func TestCatalog_EveryTemplateIsWellFormed(t *testing.T) {
	for _, tmpl := range Catalog() {
		info := tmpl.Info()
		if info.Title == "" || info.Description == "" || len(info.Scopes) == 0 {
			t.Errorf("%s: title, description and scopes are required", info.Name)
		}
		bt, errs := bindTemplate(tmpl, nil, nil, field.NewPath("t"))
		if len(errs) > 0 {
			t.Errorf("%s: the defaults do not bind: %v", info.Name, errs)
		}
		names := map[string]bool{}
		for _, r := range bt.rules {
			checkRule(t, info, r)
			for _, n := range append([]string{r.Name}, scaleNames(r)...) {
				if names[n] {
					t.Errorf("%s: rule name %s used twice", info.Name, n)
				}
				names[n] = true
				if msgs := validation.IsDNS1123Label(n); len(msgs) > 0 {
					t.Errorf("%s: rule name %q: %v", info.Name, n, msgs)
				}
			}
		}
	}
}

func scaleNames(r RuleSpec) []string {
	var out []string
	for _, k := range r.scalableKinds() {
		out = append(out, scaleRuleName(r, k))
	}
	return out
}

func checkRule(t *testing.T, info plan.TemplateInfo, r RuleSpec) {
	t.Helper()
	if r.What == "" || len(r.Kinds) == 0 || len(r.Operations) == 0 {
		t.Errorf("%s/%s: what, kinds and operations are required", info.Name, r.Name)
	}
	for _, s := range r.Subresources {
		if s != SubresourceScale {
			t.Errorf("%s/%s: subresource %q", info.Name, r.Name, s)
		}
	}
	if r.Condition == ImagesChanged {
		for _, k := range r.Kinds {
			if k.PodSpec == "" || k.PodSpec != r.Kinds[0].PodSpec {
				t.Errorf("%s/%s: an image rule's kinds must share one pod spec path", info.Name, r.Name)
			}
		}
	}
	if r.Condition != Always && r.hasOp(OpCreate) || r.Condition != Always && r.hasOp(OpDelete) {
		t.Errorf("%s/%s: a change condition needs an old and a new object: UPDATE only", info.Name, r.Name)
	}
}

func TestCatalog_ParametersRefer(t *testing.T) {
	for _, tmpl := range Catalog() {
		info := tmpl.Info()
		for _, r := range tmpl.Rules() {
			if r.KindsParam != "" {
				p, ok := info.Parameter(r.KindsParam)
				if !ok || p.Type != plan.ParamStringList {
					t.Errorf("%s/%s: kinds parameter %q is not a declared stringList", info.Name, r.Name, r.KindsParam)
				}
			}
			if r.DirectionParam != "" {
				if p, ok := info.Parameter(r.DirectionParam); !ok || p.Type != plan.ParamString {
					t.Errorf("%s/%s: direction parameter %q is not a declared string", info.Name, r.Name, r.DirectionParam)
				}
			}
		}
	}
}

func TestCatalog_CannotBeChangedThroughItsValues(t *testing.T) {
	tmpl, _ := Lookup("create")
	info := tmpl.Info()
	info.Scopes[0] = "nothing"
	info.Parameters[0].Default = "Pod"
	rules := tmpl.Rules()
	rules[0].Operations[0] = OpDelete
	all := Catalog()
	all[0] = Template{}
	again, _ := Lookup("create")
	if again.Info().Scopes[0] == "nothing" || again.Info().Parameters[0].Default == "Pod" || again.Rules()[0].Operations[0] != OpCreate {
		t.Error("the catalog changed")
	}
	if Catalog()[0].Name() != "create" {
		t.Error("Catalog() returns the catalog itself")
	}
}

func TestDefaultCatalog(t *testing.T) {
	var c plan.Catalog = DefaultCatalog
	info, ok := c.Template("scaling")
	if !ok || info.Name != "scaling" || !info.Supports(plan.ScopeApplications) || !info.Supports(plan.ScopeNamespaces) {
		t.Errorf("scaling: %+v, %v", info, ok)
	}
	if _, ok := c.Template("freeze-everything"); ok {
		t.Error("an unknown template was found")
	}
}

func TestKnownKinds_AreNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range KnownKinds() {
		if seen[k.Kind] {
			t.Errorf("%s listed twice", k.Kind)
		}
		seen[k.Kind] = true
	}
}
