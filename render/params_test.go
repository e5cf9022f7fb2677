package render

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/plan"
)

// validateAndRender runs plan validation with the real catalog, and
// Render, on a namespaces plan with these templates: their parameter
// problems (field and detail), each.
func validateAndRender(t *testing.T, refs ...plan.TemplateRef) (validation, rendering []string) {
	t.Helper()
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, refs...)
	problems := func(err error) []string {
		var ve *plan.ValidationError
		if err != nil && !errors.As(err, &ve) {
			t.Fatalf("not a validation error: %v", err)
		}
		var out []string
		for _, pr := range plan.ProblemsOf(err) {
			out = append(out, pr.String())
		}
		return out
	}
	validation = problems(plan.Validate(p, plan.ValidationEnv{Now: now, Catalog: DefaultCatalog}))
	_, err := Render(Input{Plan: p, Now: now, Target: TargetKyverno})
	return validation, problems(err)
}

// Issue 17: these values passed plan.Validate and were refused only by
// Render, when the window opened. Validation now refuses them, with the
// field, and with Render's words.
func TestParameters_RefusedAtValidation(t *testing.T) {
	kinds := `supported values: "` + strings.Join(kindNameList(), `", "`) + `" (400)`
	cases := map[string]struct {
		refs []plan.TemplateRef
		want []string
	}{
		"a Kyverno variable as the kinds": {
			refs: []plan.TemplateRef{tplWith("create", "kinds", "{{ request.object }}")},
			want: []string{`spec.templates[0].parameters[kinds]: Unsupported value: "{{ request.object }}": ` + kinds}},
		"a direction of sideways": {
			refs: []plan.TemplateRef{tpl("create"), tplWith("scaling", "direction", "sideways")},
			want: []string{`spec.templates[1].parameters[direction]: Unsupported value: "sideways": supported values: "any", "up", "down" (400)`}},
		"empty kinds": {
			refs: []plan.TemplateRef{tplWith("all-writes", "kinds", " , ")},
			want: []string{`spec.templates[0].parameters[kinds]: Invalid value: " , ": must list at least one value, among: ` +
				strings.Join(kindNameList(), ", ") + " (400)"}},
		"an empty direction": {
			refs: []plan.TemplateRef{tplWith("scaling", "direction", "")},
			want: []string{`spec.templates[0].parameters[direction]: Invalid value: "": must not be empty, among: any, up, down (400)`}},
		"a parameter the template does not declare": {
			refs: []plan.TemplateRef{tplWith("image-change", "kinds", "Pod")},
			want: []string{`spec.templates[0].parameters[kinds]: Invalid value: "kinds": template image-change declares no parameter of this name (it declares: none) (400)`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			v, r := validateAndRender(t, tc.refs...)
			if diff := cmp.Diff(tc.want, v); diff != "" {
				t.Errorf("validation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, r); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

// Every parameter value validation accepts renders, and every value it
// refuses Render refuses with the same problems: random values built from
// the catalog's own words, text that only looks like them, separators and
// whitespace, for every parameter of every template.
func TestParameters_ValidationAndRenderAgree(t *testing.T) {
	words := append(kindNameList(), "any", "up", "down")
	for _, tp := range Catalog() {
		for _, p := range tp.Info().Parameters {
			words = append(words, p.Default)
		}
	}
	words = append(words, "", " ", ",", "deployment", "Pods", "{{ request.object }}", "sideways", "\n", "\t", "Déployment", "Job/scale")
	rng := rand.New(rand.NewPCG(17, 17))
	value := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{",", ", ", " ", ""}[rng.IntN(4)])
		}
		return b.String()
	}
	accepted, refused := 0, 0
	for i := range 3000 {
		tp := Catalog()[rng.IntN(len(Catalog()))]
		params := map[string]string{}
		for _, p := range tp.Info().Parameters {
			if rng.IntN(4) > 0 {
				params[p.Name] = value()
			}
		}
		if rng.IntN(20) == 0 {
			params[value()] = value()
		}
		ref := plan.TemplateRef{Name: tp.Name(), Parameters: params}
		v, r := validateAndRender(t, ref)
		if diff := cmp.Diff(v, r); diff != "" {
			t.Fatalf("case %d, %s %q: validation and render disagree (-validation +render):\n%s", i, tp.Name(), fmt.Sprint(params), diff)
		}
		if len(v) == 0 {
			accepted++
		} else {
			refused++
		}
	}
	if accepted < 300 || refused < 300 {
		t.Errorf("%d accepted, %d refused: the values do not exercise both sides", accepted, refused)
	}
}
