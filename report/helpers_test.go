package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// at reads a readable UTC time: "Mon Jul 20 2026 20:00:01".
func at(s string) time.Time {
	t, err := time.Parse("Mon Jan 2 2006 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t
}

func mt(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }

// The nightly run: "Nightly image freeze" of the checkout application,
// created by alice on Mon Jul 20 2026, approved by bob, active from 22:00
// to 06:00 Berlin time (20:00 to 04:00 UTC) on the nights of Jul 20 and
// Jul 21, and ended with its validity period. On the second night someone
// deleted a policy by hand at 23:12 UTC; the next tick found it missing
// (unhealthy for 40 s) and re-applied it. A dozen image changes were
// refused or, for objects found by Kyverno's background scan, audited.
var (
	nightlyCreated  = at("Mon Jul 20 2026 12:05:00")
	nightlyApproved = at("Mon Jul 20 2026 13:30:00")
	nightlyNow      = at("Wed Jul 22 2026 04:00:02")
)

// nightlyPlan is the plan as written by alice.
func nightlyPlan() *plan.ProtectionPlan {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	return &plan.ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: "telark.io/v1alpha1", Kind: "ProtectionPlan"},
		ObjectMeta: metav1.ObjectMeta{Name: "nightly-image-freeze"},
		Spec: plan.Spec{
			Name:        "Nightly image freeze",
			Description: "No new checkout images while the nightly settlement batch runs.",
			Scope:       plan.Scope{Applications: []string{"checkout"}},
			Exclusions:  plan.Exclusions{Kinds: []string{"HorizontalPodAutoscaler"}},
			Templates:   []plan.TemplateRef{{Name: "image-change"}},
			Window: window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin",
				StartAt:   mt(time.Date(2026, 7, 20, 0, 0, 0, 0, berlin)),
				EndAt:     mt(time.Date(2026, 7, 22, 12, 0, 0, 0, berlin)),
				Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}},
			Mode:         plan.ModeEnforce,
			ApprovalMode: plan.ApprovalRequired,
			Environment:  "Staging",
			Tags:         []string{"Baseline", "Checkout"},
		},
	}
}

// nightlyRun drives the plan through the real lifecycle: create, approve,
// the window's edges, the health incident, and the end.
func nightlyRun(t testing.TB) *plan.ProtectionPlan {
	t.Helper()
	res, err := plan.Create(nightlyPlan(), "alice@example.com", nightlyCreated)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	bob := approval.Caller{Username: "bob@example.com", Roles: []approval.Role{approval.Owner()}}
	res, err = approval.Approve(res.Plan, res.Plan.Status.ApprovalRequest.ID, bob, nightlyApproved)
	if err != nil {
		t.Fatalf("Approve: %v", err)
	}
	p := res.Plan
	for _, edge := range []string{
		"Mon Jul 20 2026 20:00:00", "Tue Jul 21 2026 04:00:00", "Tue Jul 21 2026 20:00:00",
	} {
		p = plan.Tick(p, at(edge)).Plan
	}
	plan.AppendEvent(p, plan.TimelineEvent{Time: metav1.NewTime(at("Tue Jul 21 2026 23:12:20")), Type: plan.EventHealthChanged,
		Phase: plan.PhaseActive, Message: "PoliciesHealthy False: policy shop-batch/nightly-image-freeze-image-change is missing (deleted outside the plan); re-applied"})
	plan.AppendEvent(p, plan.TimelineEvent{Time: metav1.NewTime(at("Tue Jul 21 2026 23:13:00")), Type: plan.EventHealthChanged,
		Phase: plan.PhaseActive, Message: "PoliciesHealthy True: all 2 policies match the render"})
	p = plan.Tick(p, at("Wed Jul 22 2026 04:00:00")).Plan
	if p.Status.Phase != plan.PhaseTerminated {
		t.Fatalf("the nightly run ends %s, want terminated", p.Status.Phase)
	}
	return p
}

func checkoutApp() plan.Application {
	return plan.Application{Name: "checkout", Namespaces: []string{"shop", "shop-batch"}}
}

func nightlyPolicies() []PolicyInfo {
	return []PolicyInfo{
		{Namespace: "shop-batch", Name: "nightly-image-freeze-image-change", Template: "image-change", Target: "kyverno"},
		{Namespace: "shop", Name: "nightly-image-freeze-image-change", Template: "image-change", Target: "kyverno"},
	}
}

// nightlyHealth is a check at each activation and every hour, and the two
// checks of the incident.
func nightlyHealth() []HealthSample {
	var out []HealthSample
	for _, night := range []string{"Mon Jul 20 2026 20:00:01", "Tue Jul 21 2026 20:00:01"} {
		start := at(night)
		for h := range 8 {
			out = append(out, HealthSample{At: start.Add(time.Duration(h) * time.Hour), Healthy: true, Reason: "AllPoliciesMatch"})
		}
	}
	out = append(out,
		HealthSample{At: at("Tue Jul 21 2026 23:12:20"), Healthy: false, Reason: "PoliciesMissing", Missing: 1,
			Message: "policy shop-batch/nightly-image-freeze-image-change is missing (deleted outside the plan); re-applied"},
		HealthSample{At: at("Tue Jul 21 2026 23:13:00"), Healthy: true, Reason: "AllPoliciesMatch"},
	)
	return out
}

// nightlyViolations are 12 decisions: 9 refused changes (events) and 3
// objects found by Kyverno's background scan (policy report results:
// recorded, not refused).
func nightlyViolations() []violations.Violation {
	const (
		web  = "Deployment"
		msgN = "changing container images is frozen by protection plan Nightly image freeze until "
	)
	v := func(ts string, blocked bool, count int32, kind, ns, name, until string) violations.Violation {
		src, result := violations.SourceEvent, violations.ResultFail
		if !blocked {
			src = violations.SourcePolicyReport
		}
		rule := "template-images"
		if kind == "CronJob" {
			rule = "cronjob-images"
		}
		return violations.Violation{
			Key: fmt.Sprintf("%s/%s/%s/%d", src, ns, name, at(ts).Unix()), Plan: "nightly-image-freeze", Template: "image-change",
			Policy: "nightly-image-freeze-image-change", PolicyNamespace: ns, Rule: rule,
			Resource: violations.Resource{APIVersion: "apps/v1", Kind: kind, Namespace: ns, Name: name},
			Result:   result, Blocked: blocked, Message: msgN + until, Timestamp: at(ts), Count: count, Source: src,
		}
	}
	night1, night2 := "2026-07-21 06:00 CEST", "2026-07-22 06:00 CEST"
	out := []violations.Violation{
		v("Mon Jul 20 2026 20:41:07", true, 3, web, "shop", "checkout-web", night1),
		v("Mon Jul 20 2026 21:15:44", true, 1, "StatefulSet", "shop", "checkout-cache", night1),
		v("Mon Jul 20 2026 22:02:10", false, 1, web, "shop", "checkout-api", night1),
		v("Tue Jul 21 2026 01:30:00", true, 2, "CronJob", "shop-batch", "settlement-export", night1),
		v("Tue Jul 21 2026 02:47:19", true, 1, web, "shop", "checkout-api", night1),
		v("Tue Jul 21 2026 20:05:33", true, 5, web, "shop", "checkout-web", night2),
		v("Tue Jul 21 2026 20:06:10", false, 1, web, "shop", "checkout-web", night2),
		v("Tue Jul 21 2026 21:40:02", true, 1, web, "shop", "checkout-worker", night2),
		v("Tue Jul 21 2026 23:13:30", true, 1, "CronJob", "shop-batch", "settlement-export", night2),
		v("Wed Jul 22 2026 00:58:12", false, 1, "CronJob", "shop-batch", "settlement-export", night2),
		v("Wed Jul 22 2026 02:20:45", true, 2, web, "shop", "checkout-api", night2),
		v("Wed Jul 22 2026 03:31:09", true, 1, "Job", "shop-batch", "settlement-backfill", night2),
	}
	for i := range out {
		if out[i].Resource.Kind == "CronJob" || out[i].Resource.Kind == "Job" {
			out[i].Resource.APIVersion = "batch/v1"
		}
		out[i].FirstSeen = out[i].Timestamp.Add(-time.Duration(out[i].Count-1) * 20 * time.Second)
	}
	return out
}

// nightlyInput is the input of the nightly run's final report.
func nightlyInput(t testing.TB) Input {
	return Input{
		Plan:         nightlyRun(t),
		Applications: []plan.Application{checkoutApp()},
		Policies:     nightlyPolicies(),
		Health:       nightlyHealth(),
		Violations:   nightlyViolations(),
		Trigger:      TriggerEnd,
		Now:          nightlyNow,
	}
}

func mustBuild(t testing.TB, in Input) Report {
	t.Helper()
	r, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return r
}

func mustRender(t testing.TB, r Report, f Format) []byte {
	t.Helper()
	b, err := Render(r, f)
	if err != nil {
		t.Fatalf("Render %s: %v", f, err)
	}
	return b
}

// checkGolden compares got with testdata/<name>, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// activeNamespacesPlan is an automatic audit plan on two namespaces,
// active since Thu Jul 23 2026 08:00 UTC.
func activeNamespacesPlan() *plan.ProtectionPlan {
	start := at("Thu Jul 23 2026 08:00:00")
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "summer-freeze"},
		Spec: plan.Spec{
			Name:      "Summer freeze",
			Scope:     plan.Scope{Namespaces: []string{"shop", "payments"}},
			Templates: []plan.TemplateRef{{Name: "delete"}, {Name: "scaling", Parameters: map[string]string{"direction": "down"}}},
			Window:    window.Spec{Type: window.TimeRange, StartAt: mt(start), EndAt: mt(start.Add(48 * time.Hour))},
			Mode:      plan.ModeAudit, ApprovalMode: plan.ApprovalAutomatic,
		},
		Status: plan.Status{Phase: plan.PhaseActive, StartedAt: mt(start)},
	}
	plan.AppendEvent(p, plan.TimelineEvent{Time: metav1.NewTime(start), Type: plan.EventCreated, Actor: "carol", Phase: plan.PhaseActive, Message: "created"})
	return p
}

// bigInput is the nightly run with n violations spread over its two
// nights: every third audited, on 50 resources in two namespaces.
func bigInput(t testing.TB, n int) Input {
	in := nightlyInput(t)
	in.Violations = make([]violations.Violation, n)
	nights := []time.Time{at("Mon Jul 20 2026 20:00:00"), at("Tue Jul 21 2026 20:00:00")}
	per := 2 * 8 * time.Hour / time.Duration(max(n, 1))
	for i := range n {
		night := nights[i%2]
		ts := night.Add(time.Duration(i/2) * per)
		ns := []string{"shop", "shop-batch"}[i%2]
		name := fmt.Sprintf("checkout-%02d", i%50)
		in.Violations[i] = violations.Violation{
			Key: fmt.Sprintf("event/%s/%s/%d", ns, name, i), Plan: "nightly-image-freeze", Template: "image-change",
			Policy: "nightly-image-freeze-image-change", PolicyNamespace: ns, Rule: "template-images",
			Resource: violations.Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: name},
			Result:   violations.ResultFail, Blocked: i%3 != 0, Timestamp: ts, Count: int32(1 + i%4), Source: violations.SourceEvent,
			Message: "changing container images is frozen by protection plan Nightly image freeze until 2026-07-22 06:00 CEST",
		}
	}
	return in
}

// canceledInput is the nightly run canceled by carol during its second
// night, at Tue Jul 21 2026 23:30 UTC.
func canceledInput(t testing.TB) Input {
	in := nightlyInput(t)
	p := nightlyPlan()
	res, err := plan.Create(p, "alice@example.com", nightlyCreated)
	if err != nil {
		t.Fatal(err)
	}
	bob := approval.Caller{Username: "bob@example.com", Roles: []approval.Role{approval.Owner()}}
	res, err = approval.Approve(res.Plan, res.Plan.Status.ApprovalRequest.ID, bob, nightlyApproved)
	if err != nil {
		t.Fatal(err)
	}
	q := res.Plan
	for _, edge := range []string{"Mon Jul 20 2026 20:00:00", "Tue Jul 21 2026 04:00:00", "Tue Jul 21 2026 20:00:00"} {
		q = plan.Tick(q, at(edge)).Plan
	}
	res, err = plan.Cancel(q, "carol@example.com", at("Tue Jul 21 2026 23:30:00"))
	if err != nil {
		t.Fatal(err)
	}
	in.Plan = res.Plan
	in.Trigger = TriggerCancel
	in.Now = at("Tue Jul 21 2026 23:30:01")
	var vs []violations.Violation
	for _, v := range in.Violations {
		if v.Timestamp.Before(at("Tue Jul 21 2026 23:30:00")) {
			vs = append(vs, v)
		}
	}
	in.Violations = vs
	return in
}

// longRunInput is an on-demand report of a permanent plan active for 90
// days, with a health incident every ten days and a violation a day.
func longRunInput(t testing.TB) Input {
	start := at("Mon Apr 20 2026 09:00:00")
	now := start.Add(90 * 24 * time.Hour)
	p := activeNamespacesPlan()
	p.Spec.Window = window.Spec{Type: window.Permanent, StartAt: mt(start)}
	p.Status.StartedAt = mt(start)
	p.Status.Timeline = nil
	plan.AppendEvent(p, plan.TimelineEvent{Time: metav1.NewTime(start), Type: plan.EventCreated, Actor: "carol", Phase: plan.PhaseActive, Message: "created: permanent"})
	var health []HealthSample
	var vs []violations.Violation
	for d := range 90 {
		day := start.Add(time.Duration(d) * 24 * time.Hour)
		health = append(health, HealthSample{At: day, Healthy: true, Reason: "AllPoliciesMatch"})
		if d%10 == 5 {
			health = append(health, HealthSample{At: day.Add(time.Hour), Healthy: false, Reason: "PoliciesOutdated", Outdated: 1, Message: "edited by hand"},
				HealthSample{At: day.Add(time.Hour + 31*time.Second), Healthy: true, Reason: "AllPoliciesMatch"})
		}
		vs = append(vs, violations.Violation{Key: fmt.Sprint(d), Plan: p.Name, Policy: "summer-freeze-delete", PolicyNamespace: "shop",
			Resource: violations.Resource{Kind: "Deployment", Namespace: "shop", Name: "web"}, Result: violations.ResultFail,
			Message: "would be blocked by protection plan Summer freeze: deleting", Timestamp: day.Add(3 * time.Hour), Source: violations.SourcePolicyReport})
	}
	return Input{Plan: p, Health: health, Violations: vs, Trigger: TriggerManual, Now: now,
		Policies: []PolicyInfo{{Namespace: "shop", Name: "summer-freeze-delete", Template: "delete", Target: "vap"}}}
}
