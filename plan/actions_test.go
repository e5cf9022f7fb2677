package plan

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

var (
	dec1    = at("Tue Dec 1 2026 10:00 UTC")
	dec2    = at("Wed Dec 2 2026 10:00 UTC")
	xmasEve = at("Thu Dec 24 2026 20:00 Europe/Berlin")
	dec28   = at("Mon Dec 28 2026 09:00 Europe/Berlin")
)

// inPhase builds a plan in a phase the way the lifecycle would.
func inPhase(t *testing.T, phase Phase, approval ApprovalMode) *ProtectionPlan {
	t.Helper()
	p := holiday()
	p.Spec.ApprovalMode = approval
	switch phase {
	case PhaseScheduled:
		p = mustCreate(t, p, "alice", dec1)
	case PhaseActive:
		p = mustCreate(t, p, "alice", xmasEve)
	case PhasePendingApproval:
		p.Spec.ApprovalMode = ApprovalRequired
		p = mustCreate(t, p, "alice", dec1)
	case PhaseTerminated:
		p = Tick(mustCreate(t, p, "alice", xmasEve), dec28).Plan
	case PhaseCanceled:
		p = must(Cancel(mustCreate(t, p, "alice", dec1), "alice", dec2)).Plan
	case PhaseFailed:
		p = must(Fail(mustCreate(t, p, "alice", xmasEve), ReasonPoliciesRefused, "denied", xmasEve)).Plan
	}
	if approval == ApprovalRequired && phase != PhasePendingApproval && p.Status.ApprovalRequest != nil {
		p = approve(p, "bob", p.Status.ApprovalRequest.RequestedAt.Time)
	}
	if p.Status.Phase != phase {
		t.Fatalf("setup: phase = %s, want %s", p.Status.Phase, phase)
	}
	return p
}

func must(r Result, err error) Result {
	if err != nil {
		panic(err)
	}
	return r
}

// TestRefusedActions: every refused action says why, with a code.
func TestRefusedActions(t *testing.T) {
	edit := func(change func(*Spec)) func(*ProtectionPlan) (Result, error) {
		return func(p *ProtectionPlan) (Result, error) {
			s := *p.Spec.DeepCopy()
			change(&s)
			return Edit(p, s, "carol", dec2)
		}
	}
	cases := map[string]struct {
		phase    Phase
		approval ApprovalMode
		act      func(*ProtectionPlan) (Result, error)
		want     ActionError
	}{
		"canceling a terminated plan is a conflict: nothing is left to cancel": {
			phase: PhaseTerminated,
			act:   func(p *ProtectionPlan) (Result, error) { return Cancel(p, "alice", dec28) },
			want: ActionError{Action: "cancel", Phase: PhaseTerminated, Code: 409,
				Reason: "the plan already terminated when its window ended; nothing is left to cancel (reactivate it to run it again)"},
		},
		"canceling a canceled plan is a conflict": {
			phase: PhaseCanceled,
			act:   func(p *ProtectionPlan) (Result, error) { return Cancel(p, "alice", dec2) },
			want: ActionError{Action: "cancel", Phase: PhaseCanceled, Code: 409,
				Reason: "the plan is already canceled; reactivate it to run it again"},
		},
		"canceling a plan that was never created is a conflict": {
			act:  func(p *ProtectionPlan) (Result, error) { return Cancel(holiday(), "alice", dec2) },
			want: ActionError{Action: "cancel", Code: 409, Reason: "the plan has not been created yet"},
		},
		"reactivating an active plan is a conflict": {
			phase: PhaseActive,
			act:   func(p *ProtectionPlan) (Result, error) { return Reactivate(p, "alice", xmasEve) },
			want: ActionError{Action: "reactivate", Phase: PhaseActive, Code: 409,
				Reason: "the plan is already active; there is nothing to reactivate"},
		},
		"reactivating a scheduled plan is a conflict": {
			phase: PhaseScheduled,
			act:   func(p *ProtectionPlan) (Result, error) { return Reactivate(p, "alice", dec2) },
			want: ActionError{Action: "reactivate", Phase: PhaseScheduled, Code: 409,
				Reason: "the plan is already scheduled and waits for its window; there is nothing to reactivate"},
		},
		"reactivating a pending plan is a conflict": {
			phase: PhasePendingApproval,
			act:   func(p *ProtectionPlan) (Result, error) { return Reactivate(p, "alice", dec2) },
			want: ActionError{Action: "reactivate", Phase: PhasePendingApproval, Code: 409,
				Reason: "the plan is already waiting for approval; there is nothing to reactivate"},
		},
		"reactivating a plan whose window ended is a bad request on spec.window: edit the window first": {
			phase: PhaseTerminated,
			act:   func(p *ProtectionPlan) (Result, error) { return Reactivate(p, "alice", dec28) },
			want: ActionError{Action: "reactivate", Phase: PhaseTerminated, Code: 400, Field: fieldPath("spec.window"),
				Reason: "the window (from 2026-12-24 17:00 to 2026-12-27 05:00 UTC) has ended; edit the window first, then reactivate the plan"},
		},
		"changing the scope type in an edit is a bad request on spec.scope": {
			phase: PhaseScheduled,
			act:   edit(func(s *Spec) { s.Scope = Scope{Applications: []string{"checkout"}} }),
			want: ActionError{Action: "edit", Phase: PhaseScheduled, Code: 400, Field: fieldPath("spec.scope"),
				Reason: "the scope type cannot change after creation (from namespaces to applications); create a new plan with an applications scope instead"},
		},
		"changing the approval mode in an edit is a bad request on spec.approvalMode": {
			phase: PhaseScheduled,
			act:   edit(func(s *Spec) { s.ApprovalMode = ApprovalRequired }),
			want: ActionError{Action: "edit", Phase: PhaseScheduled, Code: 400, Field: fieldPath("spec.approvalMode"),
				Reason: "the approval mode is fixed when the plan is created (it is automatic); duplicate the plan to get a new one"},
		},
		"moving an automatic plan into Production is a bad request on spec.environment": {
			phase: PhaseScheduled,
			act:   edit(func(s *Spec) { s.Environment = EnvironmentProduction }),
			want: ActionError{Action: "edit", Phase: PhaseScheduled, Code: 400, Field: fieldPath("spec.environment"),
				Reason: "an automatic plan cannot move into Production, where every plan requires approval; duplicate it into Production instead"},
		},
		"a material edit of an approved plan is a conflict: duplicate it, or cancel and reactivate it": {
			phase: PhaseScheduled, approval: ApprovalRequired,
			act: edit(func(s *Spec) { s.Mode = ModeEnforce; s.Templates = append(s.Templates, TemplateRef{Name: "delete"}) }),
			want: ActionError{Action: "edit", Phase: PhaseScheduled, Code: 409,
				Reason: "the plan was approved by bob (request holiday-r1-20261201T100000Z) and templates, mode would be a material change; " +
					"duplicate the plan, or cancel and reactivate it, to ask for a new approval"},
		},
		"a material edit of an approved active plan is a conflict too": {
			phase: PhaseActive, approval: ApprovalRequired,
			act: edit(func(s *Spec) { s.Window.EndAt = mt("Mon Dec 28 2026 06:00 Europe/Berlin") }),
			want: ActionError{Action: "edit", Phase: PhaseActive, Code: 409,
				Reason: "the plan was approved by bob (request holiday-r1-20261224T190000Z) and window would be a material change; " +
					"duplicate the plan, or cancel and reactivate it, to ask for a new approval"},
		},
		"editing a plan that was never created is a conflict": {
			act:  func(*ProtectionPlan) (Result, error) { return Edit(holiday(), holiday().Spec, "carol", dec2) },
			want: ActionError{Action: "edit", Code: 409, Reason: "the plan has not been created yet"},
		},
		"creating a plan twice is a conflict": {
			phase: PhaseScheduled,
			act:   func(p *ProtectionPlan) (Result, error) { return Create(p, "alice", dec2) },
			want: ActionError{Action: "create", Phase: PhaseScheduled, Code: 409,
				Reason: "the plan was already created; edit it instead"},
		},
		"creating a Production plan without an approval mode is a bad request on spec.approvalMode": {
			act: func(*ProtectionPlan) (Result, error) {
				p := holiday()
				p.Spec.ApprovalMode, p.Spec.Environment = "", EnvironmentProduction
				return Create(p, "alice", dec1)
			},
			want: ActionError{Action: "create", Code: 400, Field: fieldPath("spec.approvalMode"),
				Reason: "a plan in Production requires approval, but approvalMode is not set; derive it before creating the plan"},
		},
		"failing a plan that waits for approval is a conflict": {
			phase: PhasePendingApproval,
			act:   func(p *ProtectionPlan) (Result, error) { return Fail(p, ReasonPoliciesRefused, "x", dec2) },
			want: ActionError{Action: "fail", Phase: PhasePendingApproval, Code: 409,
				Reason: "a pending_approval plan has nothing in place that could fail"},
		},
		"duplicating into an ID that is not a DNS label is a bad request on metadata.name": {
			phase: PhaseScheduled,
			act: func(p *ProtectionPlan) (Result, error) {
				_, err := Duplicate(p, "Holiday Copy")
				return Result{}, err
			},
			want: ActionError{Action: "duplicate", Phase: PhaseScheduled, Code: 400, Field: fieldPath("metadata.name"),
				Reason: `the new plan ID "Holiday Copy" is invalid: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var p *ProtectionPlan
			if tc.phase != "" {
				p = inPhase(t, tc.phase, tc.approval)
			}
			before := p.DeepCopy()
			_, err := tc.act(p)
			var got *ActionError
			if !errors.As(err, &got) {
				t.Fatalf("err = %v, want an *ActionError", err)
			}
			if diff := cmp.Diff(&tc.want, got, cmp.Comparer(samePath)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if CodeOf(err) != tc.want.Code {
				t.Errorf("CodeOf = %d, want %d", CodeOf(err), tc.want.Code)
			}
			if diff := cmp.Diff(before, p); diff != "" {
				t.Errorf("a refused action changed its input:\n%s", diff)
			}
		})
	}
}

func TestActionError_Message(t *testing.T) {
	p := inPhase(t, PhaseTerminated, ApprovalAutomatic)
	_, err := Reactivate(p, "alice", dec28)
	want := "cannot reactivate a terminated plan: spec.window: the window (from 2026-12-24 17:00 to 2026-12-27 05:00 UTC) has ended; edit the window first, then reactivate the plan"
	if err.Error() != want {
		t.Errorf("message = %q\nwant      %q", err.Error(), want)
	}
}

func TestCancel(t *testing.T) {
	cases := map[string]struct {
		phase   Phase
		now     time.Time
		message string
		started bool
	}{
		"canceling an active plan keeps its start for the final report": {
			phase: PhaseActive, now: at("Fri Dec 25 2026 08:00 Europe/Berlin"),
			message: "canceled (was active)", started: true,
		},
		"canceling a scheduled plan": {phase: PhaseScheduled, now: dec2, message: "canceled (was scheduled)"},
		"canceling a pending plan withdraws its request": {
			phase: PhasePendingApproval, now: dec2,
			message: "canceled (was pending_approval); approval request holiday-r1-20261201T100000Z withdrawn",
		},
		"canceling a failed plan": {phase: PhaseFailed, now: xmasEve.Add(time.Hour), message: "canceled (was failed)", started: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res, err := Cancel(inPhase(t, tc.phase, ""), "dave", tc.now)
			if err != nil {
				t.Fatal(err)
			}
			st := res.Plan.Status
			want := []TimelineEvent{{Time: metav1.NewTime(tc.now), Type: EventCanceled, Actor: "dave", Phase: PhaseCanceled, Message: tc.message}}
			if diff := cmp.Diff(want, res.Events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if st.Phase != PhaseCanceled || st.ApprovalRequest != nil || st.NextEdge != nil || res.NextEdge != nil {
				t.Errorf("status = %s request %v next %v", st.Phase, st.ApprovalRequest, st.NextEdge)
			}
			if (st.StartedAt != nil) != tc.started {
				t.Errorf("StartedAt = %v, want set: %v", st.StartedAt, tc.started)
			}
		})
	}
}

func TestReactivate(t *testing.T) {
	nextYear := func(p *ProtectionPlan) *ProtectionPlan {
		p = p.DeepCopy()
		p.Spec.Window = window.Spec{Type: window.TimeRange,
			StartAt: mt("Fri Dec 24 2027 18:00 Europe/Berlin"), EndAt: mt("Mon Dec 27 2027 06:00 Europe/Berlin")}
		return p
	}
	t.Run("a terminated plan given a new window is scheduled again, its start cleared", func(t *testing.T) {
		p := nextYear(inPhase(t, PhaseTerminated, ApprovalAutomatic))
		res, err := Reactivate(p, "erin", dec28)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Plan.Status
		if st.Phase != PhaseScheduled || st.StartedAt != nil || !res.NextEdge.Equal(at("Fri Dec 24 2027 18:00 Europe/Berlin")) {
			t.Errorf("phase %s, started %v, next %v", st.Phase, st.StartedAt, res.NextEdge)
		}
		if got := eventTypes(res.Events); !cmp.Equal(got, []EventType{EventReactivated}) {
			t.Errorf("events = %v", got)
		}
	})
	t.Run("a canceled plan inside its window is active again, with a new start", func(t *testing.T) {
		res, err := Reactivate(inPhase(t, PhaseCanceled, ApprovalAutomatic), "erin", xmasEve)
		if err != nil {
			t.Fatal(err)
		}
		if st := res.Plan.Status; st.Phase != PhaseActive || !st.StartedAt.Time.Equal(xmasEve) {
			t.Errorf("phase %s, started %v", st.Phase, st.StartedAt)
		}
	})
	t.Run("a plan that requires approval asks again, and the reactivator joins the proposers", func(t *testing.T) {
		p := inPhase(t, PhaseCanceled, ApprovalRequired)
		p.Status.Proposers = []string{"alice"}
		res, err := Reactivate(p, "erin", dec2)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Plan.Status
		if st.Phase != PhasePendingApproval || st.ApprovalRequest.Reason != "reactivated" ||
			st.ApprovalRequest.ID != "holiday-r2-20261202T100000Z" {
			t.Errorf("phase %s, request %+v", st.Phase, st.ApprovalRequest)
		}
		if diff := cmp.Diff([]string{"alice", "erin"}, st.Proposers); diff != "" {
			t.Errorf("proposers (-want +got):\n%s", diff)
		}
		if got := eventTypes(res.Events); !cmp.Equal(got, []EventType{EventReactivated, EventApprovalRequired}) {
			t.Errorf("events = %v", got)
		}
	})
	t.Run("a failed plan can be reactivated", func(t *testing.T) {
		res, err := Reactivate(inPhase(t, PhaseFailed, ApprovalAutomatic), "erin", xmasEve.Add(time.Hour))
		if err != nil || res.Plan.Status.Phase != PhaseActive {
			t.Fatalf("err %v, phase %s", err, res.Plan.Status.Phase)
		}
	})
}

// fieldPath builds a path such as "spec.window".
func fieldPath(s string) *field.Path {
	parts := strings.Split(s, ".")
	return field.NewPath(parts[0], parts[1:]...)
}

func samePath(a, b *field.Path) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
}
