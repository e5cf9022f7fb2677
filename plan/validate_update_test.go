package plan

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/edge"
)

func TestValidateUpdate(t *testing.T) {
	cases := map[string]struct {
		old    func() *ProtectionPlan
		change func(p *ProtectionPlan)
		now    string
		want   []fieldErr
		code   int
	}{
		"a plan keeps its own name, whatever its case": {
			old: func() *ProtectionPlan {
				p := holiday()
				p.Name, p.Spec.Name = "xmas", "Christmas freeze"
				return p
			},
			change: func(p *ProtectionPlan) { p.Spec.Name = "CHRISTMAS freeze" },
			code:   200,
		},
		"renaming a plan to another plan's name is a conflict (409)": {
			old:    holiday,
			change: func(p *ProtectionPlan) { p.Spec.Name = "Christmas Freeze " },
			want: []fieldErr{{field.ErrorTypeDuplicate, "spec.name",
				`plan "xmas" already has this name (names ignore case and surrounding spaces)`}},
			code: 409,
		},
		"the scope type cannot change": {
			old: nightly,
			change: func(p *ProtectionPlan) {
				p.Spec.Scope = Scope{Namespaces: []string{"shop"}}
				p.Spec.Templates[0].Name = "delete"
			},
			want: []fieldErr{{field.ErrorTypeForbidden, "spec.scope",
				"the scope type cannot change after creation (from applications to namespaces); create a new plan with a namespaces scope instead"}},
			code: 400,
		},
		"the approval mode cannot change": {
			old:    holiday,
			change: func(p *ProtectionPlan) { p.Spec.ApprovalMode = ApprovalRequired },
			want: []fieldErr{{field.ErrorTypeForbidden, "spec.approvalMode",
				"the approval mode is fixed when the plan is created (it is automatic); duplicate the plan to get a new one"}},
			code: 400,
		},
		"the spec cannot change while edge-action restores are pending": {
			old: func() *ProtectionPlan {
				p := holiday()
				p.Finalizers = []string{edge.Finalizer}
				return p
			},
			change: func(p *ProtectionPlan) { p.Spec.Description = "moved" },
			want: []fieldErr{{field.ErrorTypeForbidden, "spec",
				"the plan's edge actions have restores pending (finalizer protectionplans.telark.io/edge-restores): its spec cannot change until they are done or abandoned"}},
			code: 400,
		},
		"a plan holding the restore finalizer may keep its spec as it is": {
			old: func() *ProtectionPlan {
				p := holiday()
				p.Finalizers = []string{edge.Finalizer}
				return p
			},
			change: func(p *ProtectionPlan) { p.Labels = map[string]string{"team": "shop"} },
			code:   200,
		},
		"an empty approval mode means unchanged": {
			old:    holiday,
			change: func(p *ProtectionPlan) { p.Spec.ApprovalMode = "" },
			code:   200,
		},
		"an automatic plan cannot move into Production": {
			old:    holiday,
			change: func(p *ProtectionPlan) { p.Spec.Environment = EnvironmentProduction },
			want: []fieldErr{{field.ErrorTypeForbidden, "spec.environment",
				"an automatic plan cannot move into Production, where every plan requires approval; duplicate it into Production instead"}},
			code: 400,
		},
		"a required plan may move into Production": {
			old:    func() *ProtectionPlan { return required(holiday()) },
			change: func(p *ProtectionPlan) { p.Spec.Environment = EnvironmentProduction },
			code:   200,
		},
		"the plan ID cannot change": {
			old:    holiday,
			change: func(p *ProtectionPlan) { p.Name = "holiday-2" },
			want:   []fieldErr{{field.ErrorTypeForbidden, "metadata.name", `the plan ID cannot change (it is "holiday")`}},
			code:   400,
		},
		"a terminated plan's description can be edited although its window ended": {
			old:    holiday,
			change: func(p *ProtectionPlan) { p.Spec.Description = "over" },
			now:    "Mon Dec 28 2026 09:00 Europe/Berlin",
			code:   200,
		},
		"a new window that already ended is refused": {
			old: holiday,
			change: func(p *ProtectionPlan) {
				p.Spec.Window.EndAt = mt("Sat Dec 26 2026 06:00 Europe/Berlin")
			},
			now: "Mon Dec 28 2026 09:00 Europe/Berlin",
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.window.endAt",
				"the window has already ended; give it an end in the future"}},
			code: 400,
		},
		"a category the plan already carried is accepted after its deletion, a new one is not": {
			old: func() *ProtectionPlan {
				p := holiday()
				p.Spec.Environment, p.Spec.Tags = "Sandbox", []string{"Retired"}
				return p
			},
			change: func(p *ProtectionPlan) { p.Spec.Tags = []string{"Retired", "Unknown"} },
			want: []fieldErr{{field.ErrorTypeNotSupported, "spec.tags[1]",
				`supported values: "Compliance", "Security", "Baseline"`}},
			code: 400,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			old := tc.old()
			upd := old.DeepCopy()
			tc.change(upd)
			now := "Tue Dec 1 2026 10:00 UTC"
			if tc.now != "" {
				now = tc.now
			}
			err := ValidateUpdate(old, upd, testEnv(at(now)))
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
