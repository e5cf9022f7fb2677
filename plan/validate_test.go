package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

type validateCase struct {
	plan   func() *ProtectionPlan
	change func(p *ProtectionPlan, env *ValidationEnv)
	want   []fieldErr
	code   int
}

func runValidateCases(t *testing.T, cases map[string]validateCase) {
	t.Helper()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := tc.plan()
			env := testEnv(at("Tue Dec 1 2026 10:00 UTC"))
			if tc.change != nil {
				tc.change(p, &env)
			}
			err := Validate(p, env)
			if got := CodeOf(err); got != tc.code {
				t.Errorf("code = %d, want %d (err: %v)", got, tc.code, err)
			}
			var got []fieldErr
			var verr *ValidationError
			if errors.As(err, &verr) {
				got = fieldErrs(verr.Errs)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate_Text(t *testing.T) {
	runValidateCases(t, map[string]validateCase{
		"a valid applications plan passes": {plan: nightly, code: 200},
		"a valid namespaces plan passes":   {plan: holiday, code: 200},
		"a name taken by another plan, ignoring case and surrounding spaces, is a conflict (409)": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = "  christmas FREEZE " },
			want: []fieldErr{{field.ErrorTypeDuplicate, "spec.name",
				`plan "xmas" already has this name (names ignore case and surrounding spaces)`}},
			code: 409,
		},
		"a name containing {{ is refused (400)": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = "freeze {{ request.object }}" },
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.name", "must not contain {{ or }}"}},
			code:   400,
		},
		"a description containing }} is refused (400)": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Description = "see }}" },
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.description", "must not contain {{ or }}"}},
			code:   400,
		},
		"a name of 65 characters is too long, counting characters rather than bytes": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = strings.Repeat("é", 65) },
			want:   []fieldErr{{field.ErrorTypeTooLong, "spec.name", "may not be more than 64 characters"}},
			code:   400,
		},
		"a name of 64 two-byte characters passes": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = strings.Repeat("é", 64) },
			code:   200,
		},
		"a description of 513 characters is too long": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Description = strings.Repeat("x", 513) },
			want:   []fieldErr{{field.ErrorTypeTooLong, "spec.description", "may not be more than 512 characters"}},
			code:   400,
		},
		"a blank name is required": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = "   " },
			want:   []fieldErr{{field.ErrorTypeRequired, "spec.name", "a plan needs a display name"}},
			code:   400,
		},
		"a name on two lines is refused": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = "freeze\nnow" },
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.name", "must be one line without control characters"}},
			code:   400,
		},
		"a plan ID that is not a DNS label is refused": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Name = "Nightly_Freeze" },
			want: []fieldErr{{field.ErrorTypeInvalid, "metadata.name",
				"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
			code: 400,
		},
		"the names of other plans that cannot be read are a 503": {
			plan: nightly,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				env.Names = PlanNamesFunc(func(string) ([]string, error) { return nil, errors.New("etcd timeout") })
			},
			want: []fieldErr{{field.ErrorTypeInternal, "spec.name", "cannot read the names of other plans: etcd timeout"}},
			code: 503,
		},
	})
}

func TestValidate_Window(t *testing.T) {
	runValidateCases(t, map[string]validateCase{
		"a time range that ended before now is refused (400)": {
			plan: holiday,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				env.Now = at("Mon Dec 28 2026 09:00 Europe/Berlin")
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.window.endAt",
				"the window has already ended; give it an end in the future"}},
			code: 400,
		},
		"a time range that ends exactly now has ended (ends are exclusive)": {
			plan: holiday,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				env.Now = at("Sun Dec 27 2026 06:00 Europe/Berlin")
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.window.endAt",
				"the window has already ended; give it an end in the future"}},
			code: 400,
		},
		"a time range still running passes": {
			plan: holiday,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				env.Now = at("Sat Dec 26 2026 12:00 Europe/Berlin")
			},
			code: 200,
		},
		"a recurring window whose cron can never fire has ended": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Window.Schedules[0].Cron = "0 0 30 2 *"
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.window",
				"the window has already ended; give it an end in the future"}},
			code: 400,
		},
		"a window the window package refuses reports its field path": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Window.Schedules[0].Duration = "0s"
			},
			want: windowValidate(func(p *ProtectionPlan) { p.Spec.Window.Schedules[0].Duration = "0s" }),
			code: 400,
		},
	})
}

// windowValidate is what window.Validate says about nightly after change.
func windowValidate(change func(*ProtectionPlan)) []fieldErr {
	p := nightly()
	change(p)
	return fieldErrs(window.Validate(p.Spec.Window, field.NewPath("spec", "window")))
}

func TestValidate_WindowFieldPathOfDuration(t *testing.T) {
	got := windowValidate(func(p *ProtectionPlan) { p.Spec.Window.Schedules[0].Duration = "0s" })
	if len(got) != 1 || got[0].Field != "spec.window.schedules[0].duration" {
		t.Fatalf("window errors = %+v, want one on spec.window.schedules[0].duration", got)
	}
}

func TestValidate_DoesNotChangeItsInput(t *testing.T) {
	p := nightly()
	p.Spec.Window = window.Spec{Type: window.Permanent}
	p.Spec.Name = " {{ bad }} "
	before := p.DeepCopy()
	_ = Validate(p, testEnv(at("Tue Dec 1 2026 10:00 UTC")))
	if diff := cmp.Diff(before, p); diff != "" {
		t.Fatalf("Validate changed the plan (-before +after):\n%s", diff)
	}
}

func TestValidate_EveryProblemAtOnce(t *testing.T) {
	p := holiday()
	p.Spec.Name = "Christmas freeze"
	p.Spec.Description = "{{x}}"
	p.Spec.Scope.Namespaces = []string{"shop", "telark-system", "nope"}
	p.Spec.Templates = []TemplateRef{{Name: "all-writes"}, {Name: "scaling", Parameters: map[string]string{"maxReplica": "3"}}}
	p.Spec.Mode = "block"
	err := Validate(p, testEnv(at("Tue Dec 1 2026 10:00 UTC")))
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	var fields []string
	for _, e := range verr.Errs {
		fields = append(fields, e.Field)
	}
	want := []string{"spec.name", "spec.description", "spec.scope.namespaces[1]", "spec.scope.namespaces[2]",
		"spec.templates[1].parameters[maxReplica]", "spec.mode"}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if CodeOf(err) != 400 {
		t.Errorf("a taken name among other problems is 400, got %d", CodeOf(err))
	}
}
