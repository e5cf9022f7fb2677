package reconcile_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

var (
	olivia = approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}
	oscar  = approval.Caller{Username: "oscar", Roles: []approval.Role{approval.Owner()}}
	carl   = approval.Caller{Username: "carl", Roles: []approval.Role{approval.Contributor()}}
	vera   = approval.Caller{Username: "vera", Roles: []approval.Role{approval.Viewer()}}
)

// created is freeze(id, "shop") created by actor an hour before the
// window, with a resourceVersion and generation as a store gives them.
func created(t *testing.T, id, actor string, edit func(*plan.ProtectionPlan)) *plan.ProtectionPlan {
	t.Helper()
	p := freeze(id, "shop")
	if edit != nil {
		edit(p)
	}
	res, err := plan.Create(p, actor, start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	res.Plan.ResourceVersion, res.Plan.Generation = "7", 1
	return res.Plan
}

func canceled(t *testing.T, p *plan.ProtectionPlan) *plan.ProtectionPlan {
	t.Helper()
	res, err := plan.Cancel(p, "olivia", start.Add(-30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return res.Plan
}

func TestCancelAndReactivate(t *testing.T) {
	now := start.Add(-10 * time.Minute)
	cases := map[string]struct {
		pipeline  func(reconcile.ActionInput) (plan.Result, error)
		plan      func(t *testing.T) *plan.ProtectionPlan
		version   string
		caller    approval.Caller
		wantCode  int
		wantPhase plan.Phase
	}{
		"a Contributor cancels a scheduled plan": {
			pipeline: reconcile.Cancel, caller: carl, wantPhase: plan.PhaseCanceled,
			plan: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "olivia", nil) },
		},
		"If-Match with the stored resourceVersion, or *, passes": {
			pipeline: reconcile.Cancel, caller: carl, version: "*", wantPhase: plan.PhaseCanceled,
			plan: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "olivia", nil) },
		},
		"a cancel based on an older read is 412 (If-Match), before the permission is checked": {
			pipeline: reconcile.Cancel, caller: vera, version: "6", wantCode: http.StatusPreconditionFailed,
			plan: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "olivia", nil) },
		},
		"a Viewer may not cancel (403)": {
			pipeline: reconcile.Cancel, caller: vera, wantCode: http.StatusForbidden,
			plan: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "olivia", nil) },
		},
		"a canceled plan cannot be canceled again (409)": {
			pipeline: reconcile.Cancel, caller: olivia, wantCode: http.StatusConflict,
			plan: func(t *testing.T) *plan.ProtectionPlan { return canceled(t, created(t, "xmas", "olivia", nil)) },
		},
		"an Owner reactivates a canceled plan, which waits for its window again": {
			pipeline: reconcile.Reactivate, caller: olivia, wantPhase: plan.PhaseScheduled,
			plan: func(t *testing.T) *plan.ProtectionPlan { return canceled(t, created(t, "xmas", "olivia", nil)) },
		},
		"a Contributor may not reactivate a plan that enforces a namespace scope (403)": {
			pipeline: reconcile.Reactivate, caller: carl, wantCode: http.StatusForbidden,
			plan: func(t *testing.T) *plan.ProtectionPlan { return canceled(t, created(t, "xmas", "olivia", nil)) },
		},
		"a scheduled plan cannot be reactivated (409)": {
			pipeline: reconcile.Reactivate, caller: olivia, wantCode: http.StatusConflict,
			plan: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "olivia", nil) },
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := tc.plan(t)
			before := p.DeepCopy()
			res, err := tc.pipeline(reconcile.ActionInput{Plan: p, Version: tc.version, Caller: tc.caller, Now: now})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if err == nil && res.Plan.Status.Phase != tc.wantPhase {
				t.Errorf("phase %s, want %s", res.Plan.Status.Phase, tc.wantPhase)
			}
			if p.Status.Phase != before.Status.Phase {
				t.Error("the pipeline changed its input")
			}
		})
	}
}

func TestDelete(t *testing.T) {
	cases := map[string]struct {
		version  string
		caller   approval.Caller
		wantCode int
		wantText string
	}{
		"a Contributor may delete": {caller: carl},
		"a Viewer may not (403)":   {caller: vera, wantCode: http.StatusForbidden},
		"a delete based on an older read is refused with 412": {
			caller: olivia, version: "6", wantCode: http.StatusPreconditionFailed,
			wantText: `plan "xmas" was changed by someone else since it was read (resourceVersion "6", now "7"); nothing was written: re-read it and try again`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := reconcile.Delete(reconcile.ActionInput{Plan: created(t, "xmas", "olivia", nil), Version: tc.version, Caller: tc.caller})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if tc.wantText != "" && err.Error() != tc.wantText {
				t.Errorf("error:\n%s\nwant:\n%s", err, tc.wantText)
			}
		})
	}
}

func TestCheckVersion(t *testing.T) {
	p := created(t, "xmas", "olivia", nil) // resourceVersion "7"
	cases := map[string]struct {
		check    func(*plan.ProtectionPlan, string) error
		read     string
		wantCode int
	}{
		"an If-Match of the stored version passes":                     {check: reconcile.CheckVersion, read: "7"},
		"an If-Match of * passes":                                      {check: reconcile.CheckVersion, read: "*"},
		"no If-Match checks nothing":                                   {check: reconcile.CheckVersion},
		"an If-Match of an older version is 412":                       {check: reconcile.CheckVersion, read: "6", wantCode: http.StatusPreconditionFailed},
		"a body of the stored version passes":                          {check: reconcile.CheckBodyVersion, read: "7"},
		"a body of an older version is 409, as the API server answers": {check: reconcile.CheckBodyVersion, read: "6", wantCode: http.StatusConflict},
		"a body resourceVersion of * is not a wildcard":                {check: reconcile.CheckBodyVersion, read: "*", wantCode: http.StatusConflict},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if err := tc.check(p, tc.read); codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
		})
	}
}

func TestApplyVerdict(t *testing.T) {
	pending := func(t *testing.T) *plan.ProtectionPlan {
		return created(t, "xmas", "olivia", func(p *plan.ProtectionPlan) { p.Spec.ApprovalMode = plan.ApprovalRequired })
	}
	now := start.Add(-10 * time.Minute)
	cases := map[string]struct {
		verdict    func(p *plan.ProtectionPlan) approval.Verdict
		generation int64
		caller     approval.Caller
		wantCode   int
		wantPhase  plan.Phase
	}{
		"another Owner approves the open request": {
			caller: oscar, wantPhase: plan.PhaseScheduled,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}
			},
		},
		"an approver who read the current generation approves": {
			caller: oscar, generation: 1, wantPhase: plan.PhaseScheduled,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}
			},
		},
		"a rejection with a comment cancels the plan": {
			caller: oscar, wantPhase: plan.PhaseCanceled,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionRejected, Comment: "too wide"}
			},
		},
		"an approver who read an older generation is refused (409)": {
			caller: oscar, generation: 2, wantCode: http.StatusConflict,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}
			},
		},
		"a Contributor may not decide (403)": {
			caller: carl, wantCode: http.StatusForbidden,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}
			},
		},
		"the creator may not decide (403)": {
			caller: olivia, wantCode: http.StatusForbidden,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}
			},
		},
		"a stale request ID is refused (409)": {
			caller: oscar, wantCode: http.StatusConflict,
			verdict: func(*plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: "old", Decision: plan.DecisionApproved}
			},
		},
		"a rejection without a comment is refused (400)": {
			caller: oscar, wantCode: http.StatusBadRequest,
			verdict: func(p *plan.ProtectionPlan) approval.Verdict {
				return approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionRejected}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := pending(t)
			res, err := reconcile.ApplyVerdict(reconcile.VerdictInput{Plan: p, Verdict: tc.verdict(p), Generation: tc.generation, Caller: tc.caller, Now: now})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if err == nil && res.Plan.Status.Phase != tc.wantPhase {
				t.Errorf("phase %s, want %s", res.Plan.Status.Phase, tc.wantPhase)
			}
		})
	}
	var stale *reconcile.StaleGenerationError
	_, err := reconcile.ApplyVerdict(reconcile.VerdictInput{Plan: pending(t), Generation: 2, Caller: oscar, Now: now})
	if !errors.As(err, &stale) || err.Error() != `plan "xmas" was edited since you read it (generation 2, now 1); re-read it before deciding` {
		t.Errorf("err = %v", err)
	}
}

func TestDuplicate(t *testing.T) {
	now := start.Add(-10 * time.Minute)
	newWindow := &window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: end}, EndAt: &metav1.Time{Time: end.Add(24 * time.Hour)}}
	cases := map[string]struct {
		request  reconcile.DuplicateRequest
		caller   approval.Caller
		wantCode int
		check    func(t *testing.T, cp *plan.ProtectionPlan)
	}{
		"a copy with the ID and name asked for, recorded as duplicated": {
			request: reconcile.DuplicateRequest{ID: "xmas-2027", Name: "Christmas 2027"}, caller: olivia,
			check: func(t *testing.T, cp *plan.ProtectionPlan) {
				if cp.Name != "xmas-2027" || cp.Spec.Name != "Christmas 2027" || cp.Annotations[plan.DuplicatedFromAnnotation] != "xmas" ||
					cp.Annotations[plan.CreatedByAnnotation] != "olivia" || cp.Status.Phase != "" {
					t.Errorf("copy %s %q annotations %v phase %q", cp.Name, cp.Spec.Name, cp.Annotations, cp.Status.Phase)
				}
			},
		},
		"without an ID, one is made from the source's ID and the entropy": {
			caller: olivia,
			check: func(t *testing.T, cp *plan.ProtectionPlan) {
				if cp.Name != "xmas-abcde" || cp.Spec.Name != "Copy of Freeze xmas" {
					t.Errorf("copy %s %q", cp.Name, cp.Spec.Name)
				}
			},
		},
		"a window asked for replaces the source's": {
			request: reconcile.DuplicateRequest{ID: "boxing", Window: newWindow}, caller: olivia,
			check: func(t *testing.T, cp *plan.ProtectionPlan) {
				if !cp.Spec.Window.StartAt.Time.Equal(end) {
					t.Errorf("window %+v", cp.Spec.Window)
				}
			},
		},
		"required approval asked for is kept": {
			request: reconcile.DuplicateRequest{ID: "boxing", ApprovalMode: plan.ApprovalRequired}, caller: olivia,
			check: func(t *testing.T, cp *plan.ProtectionPlan) {
				if cp.Spec.ApprovalMode != plan.ApprovalRequired {
					t.Errorf("approval %s", cp.Spec.ApprovalMode)
				}
			},
		},
		"an ID that is not a DNS label is refused on metadata.name (400)": {
			request: reconcile.DuplicateRequest{ID: "Not_An_ID"}, caller: olivia, wantCode: http.StatusBadRequest,
		},
		"a Contributor may not copy a plan that enforces a namespace scope (403)": {
			request: reconcile.DuplicateRequest{ID: "boxing"}, caller: carl, wantCode: http.StatusForbidden,
		},
		"a display name another plan uses is refused (409)": {
			request: reconcile.DuplicateRequest{ID: "boxing", Name: "Freeze taken"}, caller: olivia, wantCode: http.StatusConflict,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			src := created(t, "xmas", "olivia", nil)
			adm, err := reconcile.Duplicate(reconcile.DuplicateInput{Source: src, Request: tc.request, Entropy: []byte{0, 1, 2, 3, 4},
				Caller: tc.caller, Env: env(now), Now: now})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if tc.check != nil {
				tc.check(t, adm.Plan)
			}
		})
	}
}

func TestCreatedStatus(t *testing.T) {
	now := start.Add(-time.Hour)
	cases := map[string]struct {
		stored      func(t *testing.T) *plan.ProtectionPlan
		wantStarted bool
		wantPhase   plan.Phase
	}{
		"a stored plan without a status gets plan.Create's": {
			stored: func(*testing.T) *plan.ProtectionPlan { return freeze("xmas", "shop") }, wantPhase: plan.PhaseScheduled,
		},
		"a plan whose lifecycle someone else started keeps theirs": {
			stored: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "kubectl", nil) }, wantStarted: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, started, err := reconcile.CreatedStatus(tc.stored(t), "olivia", now, nil)
			if err != nil {
				t.Fatal(err)
			}
			if started != tc.wantStarted || (!started && res.Plan.Status.Phase != tc.wantPhase) {
				t.Errorf("started %v, result %+v", started, res.Plan)
			}
		})
	}
}

func TestEditedStatus(t *testing.T) {
	now := start.Add(-10 * time.Minute)
	pending := created(t, "xmas", "olivia", func(p *plan.ProtectionPlan) { p.Spec.ApprovalMode = plan.ApprovalRequired })
	edited := *pending.Spec.DeepCopy()
	edited.Mode = plan.ModeAudit
	cases := map[string]struct {
		generation int64
		wantCode   int
	}{
		"a material edit of a pending plan opens a new request on the fresh status": {generation: 1},
		"a spec edited again by someone else in between is 409":                     {generation: 2, wantCode: http.StatusConflict},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			fresh := pending.DeepCopy()
			fresh.Spec = edited
			res, err := reconcile.EditedStatus(reconcile.EditedStatusInput{Fresh: fresh, Before: pending.Spec, Generation: tc.generation,
				Spec: edited, Caller: oscar, Now: now})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if err == nil {
				r := res.Plan.Status.ApprovalRequest
				if r == nil || r.Reason != "edited" || r.ID == pending.Status.ApprovalRequest.ID {
					t.Errorf("request %+v", r)
				}
			}
		})
	}
}

func TestRefresh(t *testing.T) {
	cases := map[string]struct {
		enforcement *plan.EnforcementStatus
		settings    reconcile.Settings
		want        reconcile.Settings
	}{
		"a plan put in place is checked as it was put in place": {
			enforcement: &plan.EnforcementStatus{Target: string(render.TargetVAP), Compact: true},
			settings:    reconcile.Settings{Target: render.TargetKyverno, Repair: true},
			want:        reconcile.Settings{Target: render.TargetVAP, Compact: true},
		},
		"a plan never put in place is checked with the embedder's settings, without repairs": {
			settings: reconcile.Settings{Target: render.TargetKyvernoCEL, Compact: true, Repair: true},
			want:     reconcile.Settings{Target: render.TargetKyvernoCEL, Compact: true},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := freeze("xmas", "shop")
			p.Status.Enforcement = tc.enforcement
			if got := reconcile.RefreshSettings(p, tc.settings); got.Target != tc.want.Target || got.Compact != tc.want.Compact || got.Repair {
				t.Errorf("settings %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("a deleted policy is reported missing, not repaired", func(t *testing.T) {
		w := inPlace(t)
		delete(w.policies, w.keys()[0])
		out := reconcile.Refresh(w.input("xmas", start.Add(time.Minute)))
		if len(out.Actions) != 0 || out.Health == nil || out.Health.Summary.Missing != 1 {
			t.Errorf("actions %v, health %+v", out.Actions, out.Health)
		}
	})
}
