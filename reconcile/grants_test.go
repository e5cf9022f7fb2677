package reconcile_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

var oncall = approval.Caller{Username: "erin", Groups: []string{"platform-oncall"}, Roles: []approval.Role{approval.Owner()}}

// active is the Christmas freeze, active since start.
func active(t *testing.T, edit func(*plan.ProtectionPlan)) *plan.ProtectionPlan {
	t.Helper()
	p := created(t, "xmas", "olivia", edit)
	p = plan.Tick(p, start).Plan
	if p.Status.Phase != plan.PhaseActive {
		t.Fatalf("phase %s", p.Status.Phase)
	}
	return p
}

func requested(t *testing.T, p *plan.ProtectionPlan, by approval.Caller, at time.Time) *plan.ProtectionPlan {
	t.Helper()
	res, err := reconcile.RequestGrant(reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Plan: p, Caller: by, Now: at},
		Reason: "INC-4711: checkout is down, roll back"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Plan
}

func TestRequestGrant(t *testing.T) {
	now := start.Add(time.Hour)
	cases := map[string]struct {
		plan     func(*testing.T) *plan.ProtectionPlan
		in       reconcile.GrantRequest
		wantCode int
		field    string // the field a 400 names
	}{
		"a Contributor asks for himself with a reason": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: "INC-1: roll back"}},
		"a Contributor asks for two others, for 30 minutes": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Users: []string{"alice", "bob"}, Reason: "INC-1", Duration: 30 * time.Minute}},
		"a Viewer may not ask (403)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: vera}, Reason: "INC-1"}, wantCode: http.StatusForbidden},
		"a request without a reason names reason (400)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: "  "}, wantCode: http.StatusBadRequest, field: "reason"},
		"a reason of 513 characters names reason (400)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: strings.Repeat("x", 513)}, wantCode: http.StatusBadRequest, field: "reason"},
		"a reason that looks like a Kyverno variable names reason (400)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: "{{ request.object }}"}, wantCode: http.StatusBadRequest, field: "reason"},
		"a duration over the plan's maximum names duration (400)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: "INC-1", Duration: 5 * time.Hour}, wantCode: http.StatusBadRequest, field: "duration"},
		"a duration over a lower maximum of the plan names duration (400)": {
			plan: func(t *testing.T) *plan.ProtectionPlan {
				return active(t, func(p *plan.ProtectionPlan) {
					p.Spec.BreakGlass = &plan.BreakGlass{MaxDuration: &metav1.Duration{Duration: 30 * time.Minute}}
				})
			},
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: "INC-1", Duration: 45 * time.Minute}, wantCode: http.StatusBadRequest, field: "duration"},
		"a user name with a Kyverno reference names users[1] (400)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Users: []string{"alice", "$(x)"}, Reason: "INC-1"}, wantCode: http.StatusBadRequest, field: "users[1]"},
		"a service account is not a user of a grant (400)": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Users: []string{"system:serviceaccount:ci:deploy"}, Reason: "INC-1"}, wantCode: http.StatusBadRequest, field: "users[0]"},
		"a grant on a plan that is not active is refused (409)": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return created(t, "xmas", "olivia", nil) },
			in:   reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl}, Reason: "INC-1"}, wantCode: http.StatusConflict},
		"a request based on an older read is 412": {
			in: reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Caller: carl, Version: "6"}, Reason: "INC-1"}, wantCode: http.StatusPreconditionFailed},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := active(t, nil)
			if tc.plan != nil {
				p = tc.plan(t)
			}
			in := tc.in
			in.Plan, in.Now = p, now
			res, err := reconcile.RequestGrant(in)
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if tc.field != "" {
				if ps := plan.ProblemsOf(err); len(ps) != 1 || ps[0].Field != tc.field {
					t.Errorf("problems %v, want one naming %s", ps, tc.field)
				}
			}
			if err != nil {
				return
			}
			gs := res.Plan.Status.Grants
			if len(gs) != 1 || gs[0].ID != "xmas-g1" || gs[0].State(now) != plan.GrantRequested || gs[0].RequestedBy != "carl" {
				t.Fatalf("grants %+v", gs)
			}
			wantUsers, wantD := tc.in.Users, tc.in.Duration
			if wantUsers == nil {
				wantUsers = []string{"carl"}
			}
			if wantD == 0 {
				wantD = plan.DefaultGrantDuration
			}
			if !slices.Equal(gs[0].Users, wantUsers) || gs[0].Duration.Duration != wantD {
				t.Errorf("users %v for %s, want %v for %s", gs[0].Users, gs[0].Duration.Duration, wantUsers, wantD)
			}
			if len(res.Events) != 1 || res.Events[0].Type != plan.EventGrantRequested || p.Status.Grants != nil {
				t.Errorf("events %+v; the input's grants %v", res.Events, p.Status.Grants)
			}
			if users := plan.GrantedUsers(res.Plan, now); len(users) != 0 {
				t.Errorf("a request exempts %v before it is granted", users)
			}
		})
	}
}

func TestApproveGrant(t *testing.T) {
	at := start.Add(time.Hour)
	cases := map[string]struct {
		edit        func(*plan.ProtectionPlan)
		requester   approval.Caller
		granter     approval.Caller
		id          string
		wantCode    int
		wantExpires time.Time
		wantSelf    bool
	}{
		"another Owner grants: in force for its hour": {
			requester: carl, granter: oscar, wantExpires: at.Add(time.Hour)},
		"the requester may not grant his own (403)": {
			requester: olivia, granter: olivia, wantCode: http.StatusForbidden},
		"a member of the plan's self-grant group grants his own, recorded as self-granted": {
			edit: func(p *plan.ProtectionPlan) {
				p.Spec.BreakGlass = &plan.BreakGlass{SelfGrantGroups: []string{"platform-oncall"}}
			},
			requester: oncall, granter: oncall, wantExpires: at.Add(time.Hour), wantSelf: true},
		"a self-grant group of another plan does not count (403)": {
			requester: oncall, granter: oncall, wantCode: http.StatusForbidden},
		"a Contributor may not grant (403)": {
			requester: olivia, granter: carl, wantCode: http.StatusForbidden},
		"an unknown grant is 404": {
			requester: carl, granter: oscar, id: "xmas-g9", wantCode: http.StatusNotFound},
		"a grant is cut at the end of the window": {
			edit: func(p *plan.ProtectionPlan) {
				p.Spec.Window.EndAt = &metav1.Time{Time: start.Add(90 * time.Minute)}
			},
			requester: carl, granter: oscar, wantExpires: start.Add(90 * time.Minute)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := requested(t, active(t, tc.edit), tc.requester, start.Add(30*time.Minute))
			id := tc.id
			if id == "" {
				id = p.Status.Grants[0].ID
			}
			// Granted an hour after the request.
			res, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: p, Caller: tc.granter, Now: at}, Grant: id})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if err != nil {
				return
			}
			g := res.Plan.Status.Grants[0]
			if !g.ExpiresAt.Time.Equal(tc.wantExpires) || g.SelfGranted != tc.wantSelf || g.GrantedBy != tc.granter.Username {
				t.Errorf("expires %s self %t by %s, want %s %t %s", g.ExpiresAt, g.SelfGranted, g.GrantedBy, tc.wantExpires, tc.wantSelf, tc.granter.Username)
			}
			if res.NextEdge == nil || !res.NextEdge.Equal(tc.wantExpires) {
				t.Errorf("next edge %v, want the expiry", res.NextEdge)
			}
			// Granting it again is 409.
			if _, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: res.Plan, Caller: oscar, Now: at}, Grant: id}); codeOf(err) != http.StatusConflict {
				t.Errorf("a second grant: %v, want 409", err)
			}
		})
	}
}

// TestGrantInForce: what a grant exempts, instant by instant: from its
// grant to its expiry, exclusive, and only its users.
func TestGrantInForce(t *testing.T) {
	granted := start.Add(time.Hour)
	p := requested(t, active(t, nil), carl, start.Add(30*time.Minute))
	res, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: p, Caller: oscar, Now: granted}, Grant: "xmas-g1"})
	if err != nil {
		t.Fatal(err)
	}
	p = res.Plan
	expiry := granted.Add(plan.DefaultGrantDuration)
	cases := map[string]struct {
		at   time.Time
		user string
		want bool
	}{
		"before the grant, carl is not exempt":                     {at: granted.Add(-time.Nanosecond), user: "carl"},
		"at the grant, carl is exempt":                             {at: granted, user: "carl", want: true},
		"a nanosecond before the expiry, carl is exempt":           {at: expiry.Add(-time.Nanosecond), user: "carl", want: true},
		"at the exact expiry instant, carl is not (end exclusive)": {at: expiry, user: "carl"},
		"a grant for carl never exempts bob":                       {at: granted.Add(time.Minute), user: "bob"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, got := plan.GrantedBy(p, tc.user, tc.at)
			if got != tc.want {
				t.Errorf("exempt %t, want %t", got, tc.want)
			}
			rendered := plan.WithGrants(p, tc.at)
			in := rendered.Spec.Requesters != nil && slices.Contains(rendered.Spec.Requesters.Exclude.Users, tc.user)
			if in != tc.want {
				t.Errorf("rendered as excluded %t, want %t", in, tc.want)
			}
		})
	}
	if end, ok := plan.NextGrantEnd(p, granted); !ok || !end.Equal(expiry) {
		t.Errorf("next grant end %s %t, want %s", end, ok, expiry)
	}
	if p.Spec.Requesters != nil {
		t.Error("WithGrants changed the stored spec")
	}
}

func TestRevokeGrant(t *testing.T) {
	granted := start.Add(time.Hour)
	inForce := func(t *testing.T) *plan.ProtectionPlan {
		p := requested(t, active(t, nil), carl, start.Add(30*time.Minute))
		res, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: p, Caller: oscar, Now: granted}, Grant: "xmas-g1"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Plan
	}
	cases := map[string]struct {
		plan     func(*testing.T) *plan.ProtectionPlan
		caller   approval.Caller
		at       time.Time
		wantCode int
	}{
		"an Owner revokes a grant in force": {plan: inForce, caller: oscar, at: granted.Add(time.Minute)},
		"the requester ends his own grant":  {plan: inForce, caller: carl, at: granted.Add(time.Minute)},
		"the requester withdraws his request": {
			plan: func(t *testing.T) *plan.ProtectionPlan {
				return requested(t, active(t, nil), carl, start.Add(30*time.Minute))
			},
			caller: carl, at: granted},
		"a Contributor may not revoke another's grant (403)": {plan: inForce, caller: approval.Caller{Username: "cora", Roles: []approval.Role{approval.Contributor()}}, at: granted.Add(time.Minute), wantCode: http.StatusForbidden},
		"an expired grant cannot be revoked (409)":           {plan: inForce, caller: oscar, at: granted.Add(2 * time.Hour), wantCode: http.StatusConflict},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := reconcile.RevokeGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: tc.plan(t), Caller: tc.caller, Now: tc.at}, Grant: "xmas-g1"})
			if codeOf(err) != tc.wantCode || (tc.wantCode == 0 && err != nil) {
				t.Fatalf("err = %v (code %d), want %d", err, codeOf(err), tc.wantCode)
			}
			if err != nil {
				return
			}
			if st := res.Plan.Status.Grants[0].State(tc.at); st != plan.GrantRevoked {
				t.Errorf("state %s", st)
			}
			if users := plan.GrantedUsers(res.Plan, tc.at); len(users) != 0 {
				t.Errorf("still exempt: %v", users)
			}
			// Revoking again is 409.
			if _, err := reconcile.RevokeGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: res.Plan, Caller: oscar, Now: tc.at}, Grant: "xmas-g1"}); codeOf(err) != http.StatusConflict {
				t.Errorf("a second revoke: %v, want 409", err)
			}
		})
	}
}

// TestDecide_GrantInForce: a pass renders the users of a grant in force
// exempt, and wakes at its expiry; the pass after it renders them frozen
// again.
func TestDecide_GrantInForce(t *testing.T) {
	w := newWorld("shop")
	granted := start.Add(time.Hour)
	p := requested(t, active(t, nil), carl, start.Add(30*time.Minute))
	res, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: p, Caller: oscar, Now: granted}, Grant: "xmas-g1"})
	if err != nil {
		t.Fatal(err)
	}
	w.add(res.Plan)
	expiry := granted.Add(plan.DefaultGrantDuration)
	out := w.passPlan("xmas", granted.Add(time.Second))
	if out.NextEdge == nil || !out.NextEdge.Equal(expiry) {
		t.Fatalf("next edge %v, want the grant's expiry %s", out.NextEdge, expiry)
	}
	if !mentions(w.live("xmas"), "carl") {
		t.Fatal("no policy exempts carl while his grant is in force")
	}
	if len(out.Repairs) > 0 {
		t.Errorf("putting the grant in place counted as repairs: %+v", out.Repairs)
	}
	out = w.passPlan("xmas", expiry)
	if mentions(w.live("xmas"), "carl") {
		t.Error("a policy still exempts carl after his grant expired")
	}
	if len(out.Repairs) > 0 {
		t.Errorf("taking the grant out counted as repairs: %+v", out.Repairs)
	}
	tl := w.plans["xmas"].Status.Timeline
	if last := tl[len(tl)-1]; last.Type != plan.EventGrantExpired || !last.Time.Time.Equal(expiry) {
		t.Errorf("the timeline ends with %+v, want the grant's expiry", last)
	}
	for _, ev := range tl {
		if ev.Type == plan.EventHealthChanged && strings.Contains(ev.Message, "outdated") {
			t.Errorf("a grant recorded as drift: %s", ev.Message)
		}
	}
}

// mentions reports whether any object's JSON holds s.
func mentions(objs []*unstructured.Unstructured, s string) bool {
	for _, o := range objs {
		b, err := json.Marshal(o.Object)
		if err == nil && strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}

// TestDecide_GrantEndingWithTheRun: a grant cut at the end of its window
// interval ends with the run; the next night's activation does not record
// it as expired (its users were taken out with everything else).
func TestDecide_GrantEndingWithTheRun(t *testing.T) {
	w := newWorld("shop")
	p := freeze("nightly", "shop")
	p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: "UTC",
		Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "2h"}}}
	night := time.Date(2026, 12, 1, 22, 0, 0, 0, time.UTC)
	res, err := plan.Create(p, "olivia", night.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	w.add(res.Plan)
	w.passPlan("nightly", night)
	req, err := reconcile.RequestGrant(reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Plan: w.plans["nightly"], Caller: carl, Now: night.Add(30 * time.Minute)},
		Reason: "INC-1", Duration: 4 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ok, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: req.Plan, Caller: oscar, Now: night.Add(30 * time.Minute)}, Grant: "nightly-g1"})
	if err != nil {
		t.Fatal(err)
	}
	if g := ok.Plan.Status.Grants[0]; !g.ExpiresAt.Time.Equal(night.Add(2 * time.Hour)) {
		t.Fatalf("the grant expires %s, want at the window's end", g.ExpiresAt)
	}
	w.plans["nightly"] = ok.Plan
	w.passPlan("nightly", night.Add(31*time.Minute))
	w.passPlan("nightly", night.Add(2*time.Hour))  // the run ends with the grant
	w.passPlan("nightly", night.Add(24*time.Hour)) // the next night
	for _, ev := range w.plans["nightly"].Status.Timeline {
		if ev.Type == plan.EventGrantExpired {
			t.Errorf("the next night records the grant as expired: %+v", ev)
		}
	}
	if mentions(w.live("nightly"), "carl") {
		t.Error("the next night's policies exempt carl")
	}
}
