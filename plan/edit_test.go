package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/window"
)

func TestEdit(t *testing.T) {
	cases := map[string]struct {
		phase     Phase
		approval  ApprovalMode
		change    func(*Spec)
		now       string
		wantPhase Phase
		events    []string
		request   string // ID of the open request after the edit, "" for none
		proposers []string
	}{
		"a material edit of a pending plan opens a new request, and the editor joins the proposers": {
			phase: PhasePendingApproval, change: func(s *Spec) { s.Mode = ModeEnforce },
			now: "Wed Dec 2 2026 10:00 UTC", wantPhase: PhasePendingApproval,
			events: []string{
				"Edited carol changed mode",
				"ApprovalRequested carol approval request holiday-r2-20261202T100000Z opened (edited); it replaces request holiday-r1-20261201T100000Z",
			},
			request: "holiday-r2-20261202T100000Z", proposers: []string{"alice", "carol"},
		},
		"a non-material edit of a pending plan keeps its request": {
			phase: PhasePendingApproval, change: func(s *Spec) { s.Description = "the quiet days"; s.Tags = []string{"Baseline"} },
			now: "Wed Dec 2 2026 10:00 UTC", wantPhase: PhasePendingApproval,
			events:  []string{"Edited carol changed description, tags"},
			request: "holiday-r1-20261201T100000Z", proposers: []string{"alice"},
		},
		"a non-material edit of an approved plan is allowed": {
			phase: PhaseScheduled, approval: ApprovalRequired, change: func(s *Spec) { s.Name = "Holiday freeze 2026" },
			now: "Wed Dec 2 2026 10:00 UTC", wantPhase: PhaseScheduled,
			events: []string{"Edited carol changed name"},
		},
		"an active plan given a future start goes back to scheduled, withdrawing its policies": {
			phase: PhaseActive,
			change: func(s *Spec) {
				s.Window.StartAt = mt("Sat Dec 26 2026 00:00 Europe/Berlin")
			},
			now: "Thu Dec 24 2026 21:00 Europe/Berlin", wantPhase: PhaseScheduled,
			events: []string{
				"Edited carol changed window",
				"PhaseChanged carol active → scheduled: the window closed; it opens again at 2026-12-25T23:00:00Z",
			},
		},
		"a scheduled plan whose window now includes the present becomes active": {
			phase: PhaseScheduled,
			change: func(s *Spec) {
				s.Window.StartAt = mt("Tue Dec 1 2026 00:00 UTC")
			},
			now: "Wed Dec 2 2026 10:00 UTC", wantPhase: PhaseActive,
			events: []string{
				"Edited carol changed window",
				"PhaseChanged carol scheduled → active: the window is open until 2026-12-27T05:00:00Z",
			},
		},
		"an edit of a canceled plan is stored and takes effect on reactivation": {
			phase: PhaseCanceled,
			change: func(s *Spec) {
				s.Window = window.Spec{Type: window.Permanent, StartAt: mt("Tue Dec 1 2026 00:00 UTC")}
			},
			now: "Wed Dec 2 2026 10:00 UTC", wantPhase: PhaseCanceled,
			events: []string{"Edited carol changed window; the changes take effect when the plan is reactivated"},
		},
		"an edit of a terminated plan is stored and takes effect on reactivation": {
			phase: PhaseTerminated, change: func(s *Spec) { s.Templates = []TemplateRef{{Name: "delete"}} },
			now: "Mon Dec 28 2026 10:00 UTC", wantPhase: PhaseTerminated,
			events: []string{"Edited carol changed templates; the changes take effect when the plan is reactivated"},
		},
		"an edit that changes nothing records nothing": {
			phase: PhaseScheduled, change: func(s *Spec) { s.Scope.Namespaces = []string{"payments", "shop"} },
			now: "Wed Dec 2 2026 10:00 UTC", wantPhase: PhaseScheduled,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := inPhase(t, tc.phase, tc.approval)
			before := p.DeepCopy()
			spec := *p.Spec.DeepCopy()
			tc.change(&spec)
			res, err := Edit(p, spec, "carol", at(tc.now))
			if err != nil {
				t.Fatal(err)
			}
			st := res.Plan.Status
			if st.Phase != tc.wantPhase {
				t.Errorf("phase = %s, want %s", st.Phase, tc.wantPhase)
			}
			var got []string
			for _, e := range res.Events {
				got = append(got, string(e.Type)+" "+e.Actor+" "+e.Message)
			}
			if diff := cmp.Diff(tc.events, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			var req string
			if st.ApprovalRequest != nil {
				req = st.ApprovalRequest.ID
			}
			if req != tc.request {
				t.Errorf("open request = %q, want %q", req, tc.request)
			}
			if diff := cmp.Diff(tc.proposers, st.Proposers); diff != "" {
				t.Errorf("proposers (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, p); diff != "" {
				t.Errorf("Edit changed its input:\n%s", diff)
			}
		})
	}
}

func TestEdit_KeepsTheApprovalModeWhenTheNewSpecOmitsIt(t *testing.T) {
	p := inPhase(t, PhaseScheduled, ApprovalRequired)
	spec := *p.Spec.DeepCopy()
	spec.ApprovalMode, spec.Description = "", "now with a description"
	res, err := Edit(p, spec, "carol", dec2)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Spec.ApprovalMode != ApprovalRequired {
		t.Errorf("approvalMode = %q, want required", res.Plan.Spec.ApprovalMode)
	}
}

func TestIsMaterialEdit(t *testing.T) {
	cases := map[string]struct {
		change func(*Spec)
		want   bool
	}{
		"a new namespace is material":             {func(s *Spec) { s.Scope.Namespaces = append(s.Scope.Namespaces, "monitoring") }, true},
		"an excluded kind is material":            {func(s *Spec) { s.Exclusions.Kinds = []string{"ConfigMap"} }, true},
		"a template parameter is material":        {func(s *Spec) { s.Templates[0].Parameters = map[string]string{"x": "1"} }, true},
		"a new template is material":              {func(s *Spec) { s.Templates = append(s.Templates, TemplateRef{Name: "delete"}) }, true},
		"the mode is material":                    {func(s *Spec) { s.Mode = ModeEnforce }, true},
		"the window is material":                  {func(s *Spec) { s.Window.EndAt = mt("Mon Dec 28 2026 06:00 Europe/Berlin") }, true},
		"the same instant in another zone is not": {func(s *Spec) { s.Window.StartAt = mt("Thu Dec 24 2026 17:00 UTC") }, false},
		"the name is not material":                {func(s *Spec) { s.Name = "renamed" }, false},
		"the description is not material":         {func(s *Spec) { s.Description = "why" }, false},
		"the environment and tags are not":        {func(s *Spec) { s.Environment = "Staging"; s.Tags = []string{"Security"} }, false},
		"reordering the namespaces is not":        {func(s *Spec) { s.Scope.Namespaces = []string{"payments", "shop"} }, false},
		"an empty list instead of none is not":    {func(s *Spec) { s.Exclusions.Kinds = []string{} }, false},
		"an exempt user is material": {func(s *Spec) {
			s.Requesters = &Requesters{Exclude: RequesterSet{Users: []string{"release-bot"}}}
		}, true},
		"an exempt service account is material": {func(s *Spec) {
			s.Requesters = &Requesters{Exclude: RequesterSet{ServiceAccounts: []string{"ci:release"}}}
		}, true},
		"limiting the plan to a group is material": {func(s *Spec) {
			s.Requesters = &Requesters{Include: RequesterSet{Groups: []string{"developers"}}}
		}, true},
		"requesters naming nobody are not": {func(s *Spec) {
			s.Requesters = &Requesters{Include: RequesterSet{Users: []string{}}}
		}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			old := holiday().Spec
			upd := *old.DeepCopy()
			tc.change(&upd)
			if got := IsMaterialEdit(old, upd); got != tc.want {
				t.Errorf("IsMaterialEdit = %v, want %v (changed: %v)", got, tc.want, ChangedFields(old, upd))
			}
		})
	}
}

func TestIsMaterialEdit_TemplateOrderDoesNotMatter(t *testing.T) {
	old := holiday().Spec
	old.Templates = []TemplateRef{{Name: "create"}, {Name: "scaling", Parameters: map[string]string{"maxReplicas": "3"}}}
	upd := *old.DeepCopy()
	upd.Templates[0], upd.Templates[1] = upd.Templates[1], upd.Templates[0]
	if IsMaterialEdit(old, upd) {
		t.Errorf("reordering templates is not material (changed: %v)", ChangedFields(old, upd))
	}
}

func TestIsMaterialEdit_Requesters(t *testing.T) {
	withExempt := func(users ...string) Spec {
		s := holiday().Spec
		s.Requesters = &Requesters{Exclude: RequesterSet{Users: users, Groups: []string{"oncall"}}}
		return s
	}
	cases := map[string]struct {
		old, new Spec
		want     bool
	}{
		"reordering exempt users is not material":    {withExempt("a", "b"), withExempt("b", "a"), false},
		"removing an exempt user is material":        {withExempt("a", "b"), withExempt("a"), true},
		"removing every requester is material":       {withExempt("a"), holiday().Spec, true},
		"an exempt user renamed in case is material": {withExempt("alice"), withExempt("Alice"), true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsMaterialEdit(tc.old, tc.new); got != tc.want {
				t.Errorf("IsMaterialEdit = %v, want %v (changed: %v)", got, tc.want, ChangedFields(tc.old, tc.new))
			}
		})
	}
}

func TestEdit_ExemptingARequesterOfAnApprovedPlanIsRefused(t *testing.T) {
	p := inPhase(t, PhaseScheduled, ApprovalRequired)
	spec := *p.Spec.DeepCopy()
	spec.Requesters = &Requesters{Exclude: RequesterSet{Groups: []string{"platform-oncall"}}}
	_, err := Edit(p, spec, "carol", dec2)
	if CodeOf(err) != 409 || !strings.Contains(err.Error(), "requesters would be a material change") {
		t.Fatalf("err = %v (code %d), want a 409 naming requesters", err, CodeOf(err))
	}
}

func TestEdit_ExemptingARequesterOfAPendingPlanOpensANewRequest(t *testing.T) {
	p := inPhase(t, PhasePendingApproval, ApprovalRequired)
	spec := *p.Spec.DeepCopy()
	spec.Requesters = &Requesters{Exclude: RequesterSet{Users: []string{"carol"}}}
	res, err := Edit(p, spec, "carol", dec2)
	if err != nil {
		t.Fatal(err)
	}
	req := res.Plan.Status.ApprovalRequest
	if req == nil || req.Reason != "edited" || req.ID == p.Status.ApprovalRequest.ID {
		t.Fatalf("request after the edit = %+v, want a new one opened by the edit", req)
	}
	if !slices.Contains(res.Plan.Status.Proposers, "carol") {
		t.Errorf("proposers = %v: carol exempted herself and must not decide", res.Plan.Status.Proposers)
	}
}
