package overview_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

var (
	start = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	end   = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

	olivia = approval.Caller{Username: "olivia", Roles: []approval.Role{approval.Owner()}}
	oscar  = approval.Caller{Username: "oscar", Roles: []approval.Role{approval.Owner()}}
	carl   = approval.Caller{Username: "carl", Roles: []approval.Role{approval.Contributor()}}
	vera   = approval.Caller{Username: "vera", Roles: []approval.Role{approval.Viewer()}}
)

// blackFriday is a plan on two namespaces, enforcing, in Production.
func blackFriday() *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "bf", Generation: 1},
		Spec: plan.Spec{
			Name: "Black Friday", Description: "No changes to the shop.", Environment: "Production", Tags: []string{"Baseline"},
			Scope:     plan.Scope{Namespaces: []string{"shop", "payments"}},
			Templates: []plan.TemplateRef{{Name: "scaling"}, {Name: "image-change", Parameters: map[string]string{"b": "2", "a": "1"}}, {Name: "teleport"}},
			Window:    window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}},
			Mode:      plan.ModeEnforce, ApprovalMode: plan.ApprovalAutomatic,
		},
	}
}

// lifecycle is blackFriday created by carl a day before its window with
// approval, then moved by each step.
func lifecycle(t *testing.T, approvalMode plan.ApprovalMode, steps ...func(*plan.ProtectionPlan) (plan.Result, error)) *plan.ProtectionPlan {
	t.Helper()
	p := blackFriday()
	p.Spec.ApprovalMode = approvalMode
	res, err := plan.Create(p, "carl", start.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	p = res.Plan
	for _, step := range steps {
		if res, err = step(p); err != nil {
			t.Fatal(err)
		}
		p = res.Plan
	}
	return p
}

func tick(at time.Time) func(*plan.ProtectionPlan) (plan.Result, error) {
	return func(p *plan.ProtectionPlan) (plan.Result, error) { return plan.Tick(p, at), nil }
}

func cancel(p *plan.ProtectionPlan) (plan.Result, error) {
	return plan.Cancel(p, "olivia", start.Add(time.Hour))
}

func withHealth(status metav1.ConditionStatus, reason, msg string) *plan.ProtectionPlan {
	p := blackFriday()
	p.Status.Conditions = []metav1.Condition{{Type: plan.ConditionReady, Status: metav1.ConditionTrue, Reason: "Active"},
		{Type: plan.ConditionPoliciesHealthy, Status: status, Reason: reason, Message: msg}}
	return p
}

func TestHealthOf(t *testing.T) {
	cases := map[string]struct {
		plan *plan.ProtectionPlan
		want overview.HealthLabel
	}{
		"a plan never checked": {
			plan: blackFriday(), want: overview.HealthLabel{Label: "Not checked", Tone: overview.ToneMuted, Detail: "health has not been checked yet"},
		},
		"a check that could not say": {
			plan: withHealth(metav1.ConditionUnknown, "NotChecked", "x"),
			want: overview.HealthLabel{Label: "Not checked", Tone: overview.ToneMuted, Detail: "health has not been checked yet"},
		},
		"policies in place are healthy": {
			plan: withHealth(metav1.ConditionTrue, health.ReasonInPlace, "4 policies in place"),
			want: overview.HealthLabel{Label: "Healthy", Tone: overview.ToneOK, Detail: "4 policies in place"},
		},
		"a plan that is not active has nothing deployed": {
			plan: withHealth(metav1.ConditionTrue, health.ReasonNothingDeployed, "scheduled: nothing deployed"),
			want: overview.HealthLabel{Label: "Nothing deployed", Tone: overview.ToneMuted, Detail: "scheduled: nothing deployed"},
		},
		"an unhealthy plan shows its reason in words": {
			plan: withHealth(metav1.ConditionFalse, "PoliciesMissing", "1 policy missing"),
			want: overview.HealthLabel{Label: "Policies missing", Tone: overview.ToneBad, Detail: "1 policy missing"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := overview.HealthOf(tc.plan); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRowOf(t *testing.T) {
	apps := blackFriday()
	apps.Spec.Scope = plan.Scope{Applications: []string{"checkout", "cart"}}
	scheduled := lifecycle(t, plan.ApprovalAutomatic)
	edge := start
	cases := map[string]struct {
		plan *plan.ProtectionPlan
		want overview.Row
	}{
		"a scheduled plan on namespaces, with its next edge": {
			plan: scheduled,
			want: overview.Row{ID: "bf", Name: "Black Friday", Description: "No changes to the shop.", Phase: plan.PhaseScheduled,
				Mode: plan.ModeEnforce, Approval: plan.ApprovalAutomatic, Environment: "Production", Tags: []string{"Baseline"},
				Window: scheduled.Status.Window, NextEdge: &edge, Scope: "namespaces shop, payments",
				Health:      overview.HealthLabel{Label: "Not checked", Tone: overview.ToneMuted, Detail: "health has not been checked yet"},
				Enforcement: overview.HealthLabel{Label: "Not checked", Tone: overview.ToneMuted, Detail: "the enforcement has not been checked yet"}},
		},
		"a plan on applications, never created": {
			plan: apps,
			want: overview.Row{ID: "bf", Name: "Black Friday", Description: "No changes to the shop.", Mode: plan.ModeEnforce,
				Approval: plan.ApprovalAutomatic, Environment: "Production", Tags: []string{"Baseline"}, Scope: "applications checkout, cart",
				Health:      overview.HealthLabel{Label: "Not checked", Tone: overview.ToneMuted, Detail: "health has not been checked yet"},
				Enforcement: overview.HealthLabel{Label: "Not checked", Tone: overview.ToneMuted, Detail: "the enforcement has not been checked yet"}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, overview.RowOf(tc.plan)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestLabels(t *testing.T) {
	cases := map[string]struct{ got, want string }{
		"pending approval in words":           {overview.PhaseLabel(plan.PhasePendingApproval), "pending approval"},
		"other phases as they are spelled":    {overview.PhaseLabel(plan.PhaseActive), "active"},
		"approval requested in words":         {overview.EventLabel(plan.EventApprovalRequired), "Approval requested"},
		"a phase change in words":             {overview.EventLabel(plan.EventPhaseChanged), "Phase changed"},
		"a health change in words":            {overview.EventLabel(plan.EventHealthChanged), "Health changed"},
		"other events as they are spelled":    {overview.EventLabel(plan.EventCreated), "Created"},
		"an approval confirmed":               {overview.Notice(overview.DoneApproved), "Approved. The plan follows its window now."},
		"a rejection confirmed":               {overview.Notice(overview.DoneRejected), "Rejected. The plan is canceled."},
		"a cancel confirmed":                  {overview.Notice(overview.DoneCanceled), "Canceled. Its policies are withdrawn on the operator's next tick."},
		"a report confirmed":                  {overview.Notice(overview.DoneReport), "Report generated."},
		"an action the page does not know":    {overview.Notice("exploded"), ""},
		"a CamelCase reason in words":         {overview.SplitCamel("PoliciesActionChanged"), "Policies action changed"},
		"a reason of one word stays as it is": {overview.SplitCamel("Unknown"), "Unknown"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestAt(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	cases := map[string]struct {
		t    time.Time
		want overview.When
	}{
		"within a minute is now": {t: now.Add(59 * time.Second),
			want: overview.When{Abs: "Wed 25 Nov 2026 12:00 UTC", Rel: "now", ISO: "2026-11-25T12:00:59Z"}},
		"minutes ahead": {t: now.Add(5*time.Minute + 30*time.Second),
			want: overview.When{Abs: "Wed 25 Nov 2026 12:05 UTC", Rel: "in 5m", ISO: "2026-11-25T12:05:30Z"}},
		"hours and minutes ago, shown in UTC": {t: time.Date(2026, 11, 25, 10, 40, 0, 0, berlin),
			want: overview.When{Abs: "Wed 25 Nov 2026 09:40 UTC", Rel: "2h 20m ago", ISO: "2026-11-25T09:40:00Z"}},
		"up to two days in hours": {t: now.Add(47 * time.Hour),
			want: overview.When{Abs: "Fri 27 Nov 2026 11:00 UTC", Rel: "in 47h 0m", ISO: "2026-11-27T11:00:00Z"}},
		"beyond, in days and hours": {t: now.Add(-(3*24 + 5) * time.Hour),
			want: overview.When{Abs: "Sun 22 Nov 2026 07:00 UTC", Rel: "3d 5h ago", ISO: "2026-11-22T07:00:00Z"}},
		"the zero instant shows nothing": {},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := overview.At(tc.t, now); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPageDetails(t *testing.T) {
	p := lifecycle(t, plan.ApprovalAutomatic, tick(start), cancel)
	p.Spec.Exclusions = plan.Exclusions{Kinds: []string{"ConfigMap", "Secret"},
		Resources: []plan.ResourceRef{{Kind: "Deployment", Namespace: "shop", Name: "cart"}}}
	cases := map[string]struct{ got, want any }{
		"templates with their titles and sorted parameters; an unknown one without a title": {
			got: overview.Templates(p),
			want: []overview.TemplateRow{{Name: "scaling", Title: "Scaling"}, {Name: "image-change", Title: "Image changes", Params: "a=1, b=2"},
				{Name: "teleport"}},
		},
		"exclusions in lines": {
			got: overview.Exclusions(p), want: []string{"kinds: ConfigMap, Secret", "Deployment shop/cart"},
		},
		"the timeline newest first": {
			got: func() []plan.EventType {
				var out []plan.EventType
				for _, ev := range overview.Timeline(p) {
					out = append(out, ev.Type)
				}
				return out
			}(),
			want: []plan.EventType{plan.EventCanceled, plan.EventPhaseChanged, plan.EventCreated},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	if p.Status.Timeline[0].Type != plan.EventCreated {
		t.Error("Timeline changed the plan's")
	}
}

func TestOffersFor(t *testing.T) {
	now := start.Add(2 * time.Hour)
	cases := map[string]struct {
		plan         func(t *testing.T) *plan.ProtectionPlan
		caller       approval.Caller
		keepsReports bool
		want         overview.Offers
	}{
		"a Contributor on an active plan: everything": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalAutomatic, tick(start)) }, caller: carl, keepsReports: true,
			want: overview.Offers{Cancel: true, Health: true, Violations: true, Reports: true, Generate: true},
		},
		"a Viewer may read but not cancel": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalAutomatic, tick(start)) }, caller: vera, keepsReports: true,
			want: overview.Offers{Health: true, Violations: true, Reports: true, Generate: true},
		},
		"no report is made where none are kept": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalAutomatic, tick(start)) }, caller: carl,
			want: overview.Offers{Cancel: true, Health: true, Violations: true, Reports: true, GenerateWhy: "this server keeps no reports"},
		},
		"a plan waiting for its window has nothing to report yet": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalAutomatic) }, caller: carl, keepsReports: true,
			want: overview.Offers{Cancel: true, Health: true, Violations: true, Reports: true,
				GenerateWhy: "the plan is waiting for its window and has not started; a report is available once it has been active"},
		},
		"a canceled plan cannot be canceled, but its run can be reported": {
			plan: func(t *testing.T) *plan.ProtectionPlan {
				return lifecycle(t, plan.ApprovalAutomatic, tick(start), cancel)
			}, caller: olivia, keepsReports: true,
			want: overview.Offers{Health: true, Violations: true, Reports: true, Generate: true},
		},
		"a caller without roles is offered nothing": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalAutomatic, tick(start)) }, caller: approval.Caller{Username: "x"},
			keepsReports: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := overview.OffersFor(tc.caller, tc.plan(t), tc.keepsReports, now); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestApprovalOf(t *testing.T) {
	candidates := []approval.Caller{olivia, oscar, carl}
	cases := map[string]struct {
		plan   func(t *testing.T) *plan.ProtectionPlan
		caller approval.Caller
		check  func(t *testing.T, a overview.Approval)
	}{
		"an Owner who did not propose may decide the open request": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalRequired) }, caller: oscar,
			check: func(t *testing.T, a overview.Approval) {
				if !a.MayDecide || a.Reason != "" || a.Request == nil || !cmp.Equal(a.Deciders, []string{"olivia", "oscar"}) ||
					!cmp.Equal(a.Proposers, []string{"carl"}) || a.Generation != 1 || a.ApprovalMode != plan.ApprovalRequired {
					t.Errorf("%+v", a)
				}
			},
		},
		"a Contributor may not, and is told why": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalRequired) }, caller: carl,
			check: func(t *testing.T, a overview.Approval) {
				if a.MayDecide || a.Reason != "carl may not approve: none of your roles (Contributor) grants protection-plans.approve; it comes with the role Owner" {
					t.Errorf("%+v", a)
				}
			},
		},
		"without a request, the lists are empty, not null": {
			plan: func(t *testing.T) *plan.ProtectionPlan { return lifecycle(t, plan.ApprovalAutomatic) }, caller: oscar,
			check: func(t *testing.T, a overview.Approval) {
				if a.MayDecide || a.Request != nil || a.Deciders == nil || a.Proposers == nil || len(a.Deciders) != 0 {
					t.Errorf("%+v", a)
				}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.check(t, overview.ApprovalOf(tc.plan(t), tc.caller, candidates))
		})
	}
}

func TestHealthCheckOf(t *testing.T) {
	now := start.Add(time.Hour)
	stored := lifecycle(t, plan.ApprovalAutomatic, tick(start))
	checked := &health.Result{
		Policies:   []health.PolicyHealth{{Target: render.TargetKyverno, Template: "scaling", Namespace: "shop", Name: "bf-scaling", State: health.StateMissing, Detail: "not found"}},
		Summary:    health.Summary{Rendered: 2, OK: 1, Missing: 1},
		Conditions: []metav1.Condition{{Type: plan.ConditionPoliciesHealthy, Status: metav1.ConditionFalse, Reason: "PoliciesMissing"}},
	}
	cases := map[string]struct {
		out  reconcile.Output
		want overview.HealthCheck
	}{
		"a check with a missing policy": {
			out: reconcile.Output{Plan: stored, Health: checked},
			want: overview.HealthCheck{Plan: "bf", Phase: plan.PhaseActive, CheckedAt: now, Summary: overview.HealthSummary{Rendered: 2, OK: 1, Missing: 1},
				Policies:   []overview.PolicyHealth{{Namespace: "shop", Name: "bf-scaling", Template: "scaling", Target: "kyverno", State: health.StateMissing, Detail: "not found"}},
				Conditions: checked.Conditions},
		},
		"a plan that could not be rendered says why, with no policies": {
			out: reconcile.Output{Plan: stored, Failure: &reconcile.Failure{Reason: plan.ReasonApplicationNotFound, Message: `application "cart": not found`}},
			want: overview.HealthCheck{Plan: "bf", Phase: plan.PhaseActive, CheckedAt: now, Policies: []overview.PolicyHealth{},
				RenderError: `application "cart": not found`},
		},
		"a plan without a decided status keeps the stored phase": {
			out:  reconcile.Output{},
			want: overview.HealthCheck{Plan: "bf", Phase: plan.PhaseActive, CheckedAt: now, Policies: []overview.PolicyHealth{}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, overview.HealthCheckOf(stored, tc.out, now)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	checked.Conditions[0].Status, checked.Conditions[0].Message = metav1.ConditionTrue, "4 policies in place"
	if v := overview.HealthCheckOf(stored, reconcile.Output{Plan: stored, Health: checked}, now); !v.Healthy || v.Verdict != "4 policies in place" {
		t.Errorf("a true PoliciesHealthy: healthy %v, verdict %q", v.Healthy, v.Verdict)
	}
}

func TestFeedOf(t *testing.T) {
	stored := violations.NewLedger("bf")
	stored.Violations = make([]violations.Violation, 3)
	stored.Truncated, stored.Dropped = true, 12
	cases := map[string]struct {
		page violations.Page
		want overview.Feed
	}{
		"an empty page has an empty list, not null": {
			want: overview.Feed{Items: []violations.Violation{}, Ledger: overview.LedgerState{Violations: 3, Truncated: true, Dropped: 12}},
		},
		"a page with a next cursor": {
			page: violations.Page{Items: []violations.Violation{{Key: "k1"}}, NextCursor: "c"},
			want: overview.Feed{Items: []violations.Violation{{Key: "k1"}}, NextCursor: "c", Ledger: overview.LedgerState{Violations: 3, Truncated: true, Dropped: 12}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, overview.FeedOf(tc.page, stored)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestBreakGlassOf(t *testing.T) {
	at := time.Date(2026, 12, 24, 20, 0, 0, 0, time.UTC)
	ts := func(d time.Duration) *metav1.Time { x := metav1.NewTime(at.Add(d)); return &x }
	p := &plan.ProtectionPlan{}
	p.Status.Grants = []plan.Grant{
		{ID: "p-g1", Users: []string{"carol"}, Reason: "INC-1", RequestedBy: "carol", GrantedBy: "alice", GrantedAt: ts(-time.Hour), ExpiresAt: ts(-time.Minute)},
		{ID: "p-g2", Users: []string{"carol", "dave"}, Reason: "INC-2", RequestedBy: "carol", GrantedBy: "alice", GrantedAt: ts(-time.Minute), ExpiresAt: ts(time.Hour)},
		{ID: "p-g3", Users: []string{"erin"}, Reason: "INC-3", RequestedBy: "erin", Duration: metav1.Duration{Duration: 30 * time.Minute}},
		{ID: "p-g4", Users: []string{"frank"}, Reason: "INC-4", RequestedBy: "frank", RevokedBy: "frank", RevokedAt: ts(-time.Second)},
	}
	b := overview.BreakGlassOf(p, at)
	if len(b.InForce) != 1 || b.InForce[0].ID != "p-g2" || b.InForce[0].Users != "carol, dave" || !b.InForce[0].Until.Equal(at.Add(time.Hour)) {
		t.Errorf("in force %+v: want only p-g2 (p-g1 expired)", b.InForce)
	}
	if len(b.Waiting) != 1 || b.Waiting[0].ID != "p-g3" || b.Waiting[0].Duration != 30*time.Minute {
		t.Errorf("waiting %+v: want only p-g3 (p-g4 withdrawn)", b.Waiting)
	}
	if !b.Any() || (overview.BreakGlass{}).Any() {
		t.Error("Any")
	}
}

func TestRowOf_NamespaceSelectorsScope(t *testing.T) {
	for name, tc := range map[string]struct {
		scope    plan.Scope
		coverage []plan.Coverage
		want     string
	}{
		"selectors, with the namespaces covered now": {
			scope: plan.Scope{NamespaceSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{"env": "prod"}},
				{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpIn, Values: []string{"pay"}}}},
			}},
			coverage: []plan.Coverage{{Namespace: "ledger"}, {Namespace: "shop"}},
			want:     "namespaces selected by env=prod or team in (pay) (now: ledger, shop)",
		},
		"the whole cluster, nothing covered yet": {
			scope: plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{}}},
			want:  "the whole cluster (now: none)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := blackFriday()
			p.Spec.Scope, p.Status.Coverage = tc.scope, tc.coverage
			if got := overview.RowOf(p).Scope; got != tc.want {
				t.Errorf("Scope = %q, want %q", got, tc.want)
			}
		})
	}
}
