package reconcile_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

type coded interface{ HTTPCode() int }

func codeOf(err error) int {
	var c coded
	if errors.As(err, &c) {
		return c.HTTPCode()
	}
	return 0
}

func env(now time.Time) plan.ValidationEnv {
	snap := plantest.Cluster{Namespaces: []string{"shop", "payments", "kube-system", "telark-system"},
		ReleaseNamespace: "telark-system", ExcludedNamespaces: []string{"kube-system"},
		Plans: []plantest.PlanName{{ID: "old", Name: "Freeze taken"}}}
	return plan.ValidationEnv{Now: now, Catalog: render.DefaultCatalog, Cluster: snap, Names: snap, Applications: snap}
}

func TestAdmit(t *testing.T) {
	owner := approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}
	contributor := approval.Caller{Username: "carl", Roles: []approval.Role{approval.Contributor()}}
	now := start.Add(-time.Hour)
	cases := map[string]struct {
		caller   approval.Caller
		edit     func(p *plan.ProtectionPlan)
		wantCode int
		wantMode plan.ApprovalMode
		ignored  bool
	}{
		"an Owner creates an automatic plan, recorded as its creator": {caller: owner, wantMode: plan.ApprovalAutomatic},
		"automatic from a Contributor is ignored, not refused": {
			caller: contributor, edit: func(p *plan.ProtectionPlan) { p.Spec.Mode = plan.ModeAudit },
			wantMode: plan.ApprovalAutomatic, ignored: true,
		},
		"a Production plan always requires approval": {
			caller: owner, edit: func(p *plan.ProtectionPlan) { p.Spec.Environment = "Production" },
			wantMode: plan.ApprovalRequired, ignored: true,
		},
		"a plan in an excluded namespace is refused with 400": {
			caller: owner, edit: func(p *plan.ProtectionPlan) { p.Spec.Scope.Namespaces = []string{"kube-system"} }, wantCode: http.StatusBadRequest,
		},
		"a name another plan uses is refused with 409": {
			caller: owner, edit: func(p *plan.ProtectionPlan) { p.Spec.Name = "freeze TAKEN" }, wantCode: http.StatusConflict,
		},
		"enforcing a namespaces scope needs an Owner (403)": {caller: contributor, wantCode: http.StatusForbidden},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := freeze("new", "shop")
			p.Spec.ApprovalMode = plan.ApprovalAutomatic
			if tc.edit != nil {
				tc.edit(p)
			}
			before := p.DeepCopy()
			got, err := reconcile.Admit(reconcile.AdmitInput{Plan: p, Caller: tc.caller, Action: approval.ActionCreate, Env: env(now), Now: now})
			if tc.wantCode != 0 {
				if codeOf(err) != tc.wantCode {
					t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Plan.Spec.ApprovalMode != tc.wantMode || got.Mode.Ignored != tc.ignored ||
				got.Plan.Annotations[plan.CreatedByAnnotation] != tc.caller.Username || got.Plan.Status.Phase != "" {
				t.Errorf("admitted %+v annotations %v, mode %+v", got.Plan.Spec.ApprovalMode, got.Plan.Annotations, got.Mode)
			}
			if p.Spec.ApprovalMode != before.Spec.ApprovalMode || p.Annotations != nil {
				t.Error("Admit changed its input")
			}
		})
	}
}

func TestEdit(t *testing.T) {
	owner := approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}
	now := start.Add(-time.Hour)
	created, err := plan.Create(freeze("xmas", "shop"), "olivia", now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	old := created.Plan
	cases := map[string]struct {
		edit        func(s *plan.Spec)
		name        string
		wantCode    int
		wantChanged bool
	}{
		"an edit that changes nothing stores nothing": {edit: func(*plan.Spec) {}},
		"a new description is stored":                 {edit: func(s *plan.Spec) { s.Description = "shop only" }, wantChanged: true},
		"the scope type cannot change (400)": {
			edit: func(s *plan.Spec) { s.Scope = plan.Scope{Applications: []string{"checkout"}} }, wantCode: http.StatusBadRequest,
		},
		"the ID cannot change (400)": {edit: func(*plan.Spec) {}, name: "other", wantCode: http.StatusBadRequest},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := *old.Spec.DeepCopy()
			tc.edit(&spec)
			res, changed, err := reconcile.Edit(reconcile.EditInput{Old: old, Spec: spec, Name: tc.name, Caller: owner, Env: env(now), Now: now})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if err == nil && (changed != tc.wantChanged || res.Plan == nil) {
				t.Errorf("changed = %v, want %v", changed, tc.wantChanged)
			}
			if err == nil && changed && res.Plan.Status.ValidatedGeneration != old.Generation+1 {
				t.Errorf("validated generation %d, want the one storing the spec makes (%d)", res.Plan.Status.ValidatedGeneration, old.Generation+1)
			}
		})
	}
}
