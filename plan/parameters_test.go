package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	kindsParam = ParameterInfo{Name: "kinds", Type: ParamStringList, Values: []string{"Deployment", "Service", "Secret"}}
	dirParam   = ParameterInfo{Name: "direction", Type: ParamString, Values: []string{"any", "up", "down"}}
)

// Parse is the one definition of a parameter's values: validation refuses
// with it and render binds what it returns.
func TestParameterInfo_Parse(t *testing.T) {
	fld := field.NewPath("p")
	cases := map[string]struct {
		decl  ParameterInfo
		value string
		want  []string
		errs  []fieldErr
	}{
		"a list's items are trimmed, empty items dropped, each kept once in the order written": {
			decl: kindsParam, value: " Service,, Deployment ,Service", want: []string{"Service", "Deployment"}},
		"a list item that is not allowed is refused, each one": {
			decl: kindsParam, value: "Deployment,{{ request.object }},Pod",
			errs: []fieldErr{
				{field.ErrorTypeNotSupported, "p", `supported values: "Deployment", "Service", "Secret"`},
				{field.ErrorTypeNotSupported, "p", `supported values: "Deployment", "Service", "Secret"`},
			}},
		"allowed values are case-sensitive": {
			decl: kindsParam, value: "deployment",
			errs: []fieldErr{{field.ErrorTypeNotSupported, "p", `supported values: "Deployment", "Service", "Secret"`}}},
		"an empty list is refused": {
			decl: kindsParam, value: "",
			errs: []fieldErr{{field.ErrorTypeInvalid, "p", "must list at least one value, among: Deployment, Service, Secret"}}},
		"a list of commas and spaces is empty": {
			decl: kindsParam, value: " , ,",
			errs: []fieldErr{{field.ErrorTypeInvalid, "p", "must list at least one value, among: Deployment, Service, Secret"}}},
		"a list without allowed values takes any item": {
			decl: ParameterInfo{Type: ParamStringList}, value: "a,b", want: []string{"a", "b"}},
		"an enumeration's value is trimmed": {decl: dirParam, value: " down\n", want: []string{"down"}},
		"a value outside the enumeration is refused": {
			decl: dirParam, value: "sideways",
			errs: []fieldErr{{field.ErrorTypeNotSupported, "p", `supported values: "any", "up", "down"`}}},
		"an empty enumeration value is refused": {
			decl: dirParam, value: " ",
			errs: []fieldErr{{field.ErrorTypeInvalid, "p", "must not be empty, among: any, up, down"}}},
		"an empty string is refused": {
			decl: ParameterInfo{Type: ParamString}, value: "",
			errs: []fieldErr{{field.ErrorTypeInvalid, "p", "must not be empty"}}},
		"an integer parses":        {decl: ParameterInfo{Type: ParamInteger}, value: "10", want: []string{"10"}},
		"a word is not an integer": {decl: ParameterInfo{Type: ParamInteger}, value: "ten", errs: []fieldErr{{field.ErrorTypeInvalid, "p", "must be an integer"}}},
		"a duration parses":        {decl: ParameterInfo{Type: ParamDuration}, value: "15m", want: []string{"15m"}},
		"yes is not a boolean":     {decl: ParameterInfo{Type: ParamBoolean}, value: "yes", errs: []fieldErr{{field.ErrorTypeInvalid, "p", "must be true or false"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, errs := tc.decl.Parse(tc.value, fld)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, fieldErrs(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// paramCatalog declares allowed values, as render's catalog does.
var paramCatalog = CatalogFunc(func(name string) (TemplateInfo, bool) {
	both := []ScopeType{ScopeApplications, ScopeNamespaces}
	switch name {
	case "create":
		return TemplateInfo{Name: name, Scopes: both, Parameters: []ParameterInfo{kindsParam}}, true
	case "scaling":
		return TemplateInfo{Name: name, Scopes: both, Parameters: []ParameterInfo{dirParam}}, true
	}
	return TemplateInfo{}, false
})

// Issue 17: validation accepted values that render refused, when the
// window opened. Each value is now refused at validation, with its field.
func TestValidate_ParameterValues(t *testing.T) {
	params := func(refs ...TemplateRef) func(*ProtectionPlan, *ValidationEnv) {
		return func(p *ProtectionPlan, env *ValidationEnv) { env.Catalog = paramCatalog; p.Spec.Templates = refs }
	}
	kinds := `supported values: "Deployment", "Service", "Secret"`
	runValidateCases(t, map[string]validateCase{
		"a Kyverno variable as the kinds is refused at spec.templates[0].parameters.kinds": {
			plan:   holiday,
			change: params(TemplateRef{Name: "create", Parameters: map[string]string{"kinds": "{{ request.object }}"}}),
			want:   []fieldErr{{field.ErrorTypeNotSupported, "spec.templates[0].parameters[kinds]", kinds}},
			code:   400,
		},
		"a direction of sideways is refused": {
			plan:   holiday,
			change: params(TemplateRef{Name: "create"}, TemplateRef{Name: "scaling", Parameters: map[string]string{"direction": "sideways"}}),
			want:   []fieldErr{{field.ErrorTypeNotSupported, "spec.templates[1].parameters[direction]", `supported values: "any", "up", "down"`}},
			code:   400,
		},
		"empty values are refused": {
			plan: holiday,
			change: params(TemplateRef{Name: "create", Parameters: map[string]string{"kinds": ""}},
				TemplateRef{Name: "scaling", Parameters: map[string]string{"direction": ""}}),
			want: []fieldErr{
				{field.ErrorTypeInvalid, "spec.templates[0].parameters[kinds]", "must list at least one value, among: Deployment, Service, Secret"},
				{field.ErrorTypeInvalid, "spec.templates[1].parameters[direction]", "must not be empty, among: any, up, down"},
			},
			code: 400,
		},
		"allowed values pass": {
			plan: holiday,
			change: params(TemplateRef{Name: "create", Parameters: map[string]string{"kinds": "Service, Deployment"}},
				TemplateRef{Name: "scaling", Parameters: map[string]string{"direction": "down"}}),
			code: 200,
		},
		"a key with a line break is quoted in the path": {
			plan:   holiday,
			change: params(TemplateRef{Name: "create", Parameters: map[string]string{"a\nb: c": "x"}}),
			want: []fieldErr{{field.ErrorTypeInvalid, `spec.templates[0].parameters["a\nb: c"]`,
				"template create declares no parameter of this name (it declares: kinds)"}},
			code: 400,
		},
	})
}

func TestKeyPath(t *testing.T) {
	fld := field.NewPath("parameters")
	cases := map[string]struct{ key, want string }{
		"a plain key is written as it is":           {"kinds", "parameters[kinds]"},
		"punctuation stays plain":                   {"app.kubernetes.io/name", "parameters[app.kubernetes.io/name]"},
		"a line break is quoted":                    {"a\nb", `parameters["a\nb"]`},
		"a space is quoted":                         {"a b", `parameters["a b"]`},
		"a bracket is quoted, the path stays whole": {"a]b", `parameters["a]b"]`},
		"an empty key is quoted":                    {"", `parameters[""]`},
		"a long key is cut":                         {strings.Repeat("k", 70), `parameters["` + strings.Repeat("k", 64) + `… (70 characters)"]`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := KeyPath(fld, tc.key).String(); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
