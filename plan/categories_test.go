package plan

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestCategories_BuiltIns(t *testing.T) {
	var c Categories
	if got, want := c.Names(KindEnvironment), []string{"Production", "Staging", "Development"}; !cmp.Equal(got, want) {
		t.Errorf("environments = %v, want %v", got, want)
	}
	if got, want := c.Names(KindTag), []string{"Compliance", "Security", "Baseline"}; !cmp.Equal(got, want) {
		t.Errorf("tags = %v, want %v", got, want)
	}
	for env, want := range map[string]bool{"Production": true, " production ": true, "Staging": false, "": false} {
		if IsProduction(env) != want {
			t.Errorf("IsProduction(%q) = %v", env, !want)
		}
	}
}

func TestCategories_Changes(t *testing.T) {
	base, err := NewCategories([]Category{{Kind: KindEnvironment, Name: "Sandbox"}, {Kind: KindTag, Name: "PCI"}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		do    func(Categories) (Categories, error)
		names []string // environments then tags, after the change
		code  int
		errs  []fieldErr
	}{
		"an environment can be added": {
			do:    func(c Categories) (Categories, error) { return c.Add(Category{Kind: KindEnvironment, Name: "QA"}) },
			names: []string{"Production", "Staging", "Development", "Sandbox", "QA", "|", "Compliance", "Security", "Baseline", "PCI"},
			code:  200,
		},
		"a name taken ignoring case is a conflict (409)": {
			do:   func(c Categories) (Categories, error) { return c.Add(Category{Kind: KindTag, Name: "security"}) },
			code: 409,
			errs: []fieldErr{{field.ErrorTypeDuplicate, "category.name", `tag "Security" already exists (names ignore case)`}},
		},
		"the same name may be an environment and a tag": {
			do:    func(c Categories) (Categories, error) { return c.Add(Category{Kind: KindTag, Name: "Sandbox"}) },
			names: []string{"Production", "Staging", "Development", "Sandbox", "|", "Compliance", "Security", "Baseline", "PCI", "Sandbox"},
			code:  200,
		},
		"a bad name is refused": {
			do:   func(c Categories) (Categories, error) { return c.Add(Category{Kind: KindTag, Name: " {{x}}"}) },
			code: 400,
			errs: []fieldErr{{field.ErrorTypeInvalid, "category.name", "must not start or end with a space"}},
		},
		"a name with template delimiters is refused": {
			do:   func(c Categories) (Categories, error) { return c.Add(Category{Kind: KindTag, Name: "{{x}}"}) },
			code: 400,
			errs: []fieldErr{{field.ErrorTypeInvalid, "category.name", `must contain only letters, digits, spaces and -_.&/ (found '{')`}},
		},
		"an over-long name is refused": {
			do: func(c Categories) (Categories, error) {
				return c.Add(Category{Kind: KindTag, Name: strings.Repeat("a", 41)})
			},
			code: 400,
			errs: []fieldErr{{field.ErrorTypeTooLong, "category.name", "may not be more than 40 characters"}},
		},
		"an unknown kind is refused": {
			do:   func(c Categories) (Categories, error) { return c.Add(Category{Kind: "label", Name: "x"}) },
			code: 400,
			errs: []fieldErr{{field.ErrorTypeNotSupported, "category.kind", `supported values: "environment", "tag"`}},
		},
		"a custom category can be renamed": {
			do: func(c Categories) (Categories, error) {
				return c.Update(KindEnvironment, "sandbox", Category{Name: "Playground", Description: "try things"})
			},
			names: []string{"Production", "Staging", "Development", "Playground", "|", "Compliance", "Security", "Baseline", "PCI"},
			code:  200,
		},
		"a custom category can change the case of its own name": {
			do:    func(c Categories) (Categories, error) { return c.Update(KindTag, "PCI", Category{Name: "pci"}) },
			names: []string{"Production", "Staging", "Development", "Sandbox", "|", "Compliance", "Security", "Baseline", "pci"},
			code:  200,
		},
		"renaming onto another category's name is a conflict": {
			do:   func(c Categories) (Categories, error) { return c.Update(KindTag, "PCI", Category{Name: "Baseline"}) },
			code: 409,
			errs: []fieldErr{{field.ErrorTypeDuplicate, "category.name", `tag "Baseline" already exists (names ignore case)`}},
		},
		"a built-in cannot be renamed": {
			do: func(c Categories) (Categories, error) {
				return c.Update(KindEnvironment, "Production", Category{Name: "Prod"})
			},
			code: 400,
			errs: []fieldErr{{field.ErrorTypeForbidden, "category.name",
				`"Production" is a built-in environment; built-ins cannot be renamed, changed or deleted`}},
		},
		"a built-in cannot be deleted": {
			do:   func(c Categories) (Categories, error) { return c.Delete(KindTag, "baseline") },
			code: 400,
			errs: []fieldErr{{field.ErrorTypeForbidden, "category.name",
				`"baseline" is a built-in tag; built-ins cannot be renamed, changed or deleted`}},
		},
		"a custom category can be deleted": {
			do:    func(c Categories) (Categories, error) { return c.Delete(KindTag, "pci") },
			names: []string{"Production", "Staging", "Development", "Sandbox", "|", "Compliance", "Security", "Baseline"},
			code:  200,
		},
		"deleting an unknown category is not found (404)": {
			do:   func(c Categories) (Categories, error) { return c.Delete(KindTag, "Nope") },
			code: 404,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := base.Custom()
			got, err := tc.do(base)
			if CodeOf(err) != tc.code {
				t.Fatalf("code = %d, want %d (err %v)", CodeOf(err), tc.code, err)
			}
			if diff := cmp.Diff(before, base.Custom()); diff != "" {
				t.Errorf("the change altered the original value:\n%s", diff)
			}
			var verr *ValidationError
			if errors.As(err, &verr) {
				if diff := cmp.Diff(tc.errs, fieldErrs(verr.Errs)); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
			}
			if tc.names != nil {
				names := append(append(got.Names(KindEnvironment), "|"), got.Names(KindTag)...)
				if diff := cmp.Diff(tc.names, names); diff != "" {
					t.Errorf("names (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCategories_Limits(t *testing.T) {
	var c Categories
	var err error
	for i := range MaxCustomEnvironments {
		if c, err = c.Add(Category{Kind: KindEnvironment, Name: fmt.Sprintf("env %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.Add(Category{Kind: KindEnvironment, Name: "one more"})
	var verr *ValidationError
	if !errors.As(err, &verr) || verr.Errs[0].Type != field.ErrorTypeTooMany || CodeOf(err) != 400 {
		t.Fatalf("err = %v, want too many (400)", err)
	}
}

func TestNewCategories_RestoresWhatCustomReturned(t *testing.T) {
	c, _ := Categories{}.Add(Category{Kind: KindTag, Name: "PCI", Description: "card data"})
	restored, err := NewCategories(c.Custom())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Custom(), restored.Custom()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
