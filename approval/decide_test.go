package approval

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

const (
	r1 = "holiday-r1-20261201T100000Z" // opened by Create at created
	r2 = "holiday-r2-20261202T100000Z" // opened by an edit or a reactivation at step
)

var (
	step       = at("Wed Dec 2 2026 10:00 UTC") // when plans are edited, canceled, reactivated
	beforeWin  = at("Thu Dec 3 2026 09:00 UTC")
	insideWin  = at("Fri Dec 25 2026 12:00 Europe/Berlin")
	afterWin   = at("Mon Dec 28 2026 09:00 UTC")
	approvedAt = at("Wed Dec 2 2026 09:00 UTC")
)

// edited is p after dave moved its window a day later (a material edit).
func edited(t *testing.T, p *plan.ProtectionPlan, by string) *plan.ProtectionPlan {
	t.Helper()
	spec := *p.Spec.DeepCopy()
	spec.Window = window.Spec{Type: window.TimeRange,
		StartAt: mt("Fri Dec 25 2026 18:00 Europe/Berlin"),
		EndAt:   mt("Sun Dec 27 2026 06:00 Europe/Berlin")}
	res, err := plan.Edit(p, spec, by, step)
	require.NoError(t, err)
	return res.Plan
}

func mustDecide(t *testing.T, p *plan.ProtectionPlan, v Verdict, by Caller, now time.Time) *plan.ProtectionPlan {
	t.Helper()
	res, err := Decide(p, v, by, now)
	require.NoError(t, err)
	return res.Plan
}

func approved(id string) Verdict { return Verdict{RequestID: id, Decision: plan.DecisionApproved} }

func TestDecide(t *testing.T) {
	approvedByOlivia := func(t *testing.T) *plan.ProtectionPlan {
		return mustDecide(t, createRequired(t, carol), approved(r1), olivia, approvedAt)
	}
	reactivatedByRita := func(t *testing.T) *plan.ProtectionPlan {
		res, err := plan.Cancel(approvedByOlivia(t), "carol", step)
		require.NoError(t, err)
		res, err = plan.Reactivate(res.Plan, "rita", step)
		require.NoError(t, err)
		return res.Plan
	}
	tests := []struct {
		name    string
		plan    func(t *testing.T) *plan.ProtectionPlan
		caller  Caller
		verdict Verdict
		now     time.Time

		wantPhase plan.Phase
		wantCode  int
		wantErr   string
	}{
		{
			name:   "an approval before the window makes the plan scheduled",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: approved(r1), now: beforeWin, wantPhase: plan.PhaseScheduled,
		},
		{
			name:   "an approval inside the window makes the plan active",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: approved(r1), now: insideWin, wantPhase: plan.PhaseActive,
		},
		{
			name:   "an approval after the window ended makes the plan terminated",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: approved(r1), now: afterWin, wantPhase: plan.PhaseTerminated,
		},
		{
			name:   "a rejection with a comment cancels the plan",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: Verdict{RequestID: r1, Decision: plan.DecisionRejected, Comment: "not during the sale"},
			now: beforeWin, wantPhase: plan.PhaseCanceled,
		},
		{
			name:   "a rejection without a comment is refused",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: Verdict{RequestID: r1, Decision: plan.DecisionRejected}, now: beforeWin,
			wantCode: 400, wantErr: "cannot reject a pending_approval plan: comment: a rejection needs a comment saying why",
		},
		{
			name:   "a rejection whose comment is only spaces is refused",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: Verdict{RequestID: r1, Decision: plan.DecisionRejected, Comment: " \n\t "}, now: beforeWin,
			wantCode: 400, wantErr: "cannot reject a pending_approval plan: comment: a rejection needs a comment saying why",
		},
		{
			name:   "a comment over 1024 characters is refused",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: Verdict{RequestID: r1, Decision: plan.DecisionApproved, Comment: strings.Repeat("é", 1025)}, now: beforeWin,
			wantCode: 400, wantErr: "cannot approve a pending_approval plan: comment: the comment has 1025 characters; at most 1024 are allowed",
		},
		{
			name:   "an unknown decision is refused",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: Verdict{RequestID: r1, Decision: "maybe"}, now: beforeWin,
			wantCode: 400, wantErr: `cannot decide a pending_approval plan: decision: unknown decision "maybe"; use "approved" or "rejected"`,
		},
		{
			name:   "a decision that names no request is refused",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: olivia, verdict: approved(""), now: beforeWin,
			wantCode: 400, wantErr: "cannot approve a pending_approval plan: requestID: a decision must name the approval request it answers (status.approvalRequest.id)",
		},
		{
			name:   "the creator may not approve their own plan",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: carol, verdict: approved(r1), now: beforeWin,
			wantCode: 403, wantErr: "carol may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide",
		},
		{
			name:   "the creator may not reject their own plan either",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: carol, verdict: Verdict{RequestID: r1, Decision: plan.DecisionRejected, Comment: "changed my mind"}, now: beforeWin,
			wantCode: 403, wantErr: "carol may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide",
		},
		{
			name:   "a Contributor may not decide",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: carl, verdict: approved(r1), now: beforeWin,
			wantCode: 403, wantErr: "carl may not approve: none of your roles (Contributor) grants protection-plans.approve; it comes with the role Owner",
		},
		{
			name:   "an Owner whose role withholds approve may not decide",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return createRequired(t, carol) },
			caller: owner("nina", Role{Name: "no-approve", Deny: []Action{ActionApprove}}), verdict: approved(r1), now: beforeWin,
			wantCode: 403, wantErr: `nina may not approve: role "no-approve" withholds approve (protection-plans.approve.deny), and a deny wins over every grant; ask whoever manages roles to lift it`,
		},
		{
			name:   "a decision on a request replaced by a material edit is stale",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return edited(t, createRequired(t, carol), "dave") },
			caller: olivia, verdict: approved(r1), now: beforeWin,
			wantCode: 409, wantErr: `stale decision: request "holiday-r1-20261201T100000Z" was replaced by "holiday-r2-20261202T100000Z"; re-read the plan and decide "holiday-r2-20261202T100000Z"`,
		},
		{
			name:   "the editor who opened the new request may not decide it",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return edited(t, createRequired(t, carol), "dave") },
			caller: dave, verdict: approved(r2), now: beforeWin,
			wantCode: 403, wantErr: "dave may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide",
		},
		{
			name:   "the creator still may not decide after someone else's edit",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return edited(t, createRequired(t, carol), "dave") },
			caller: carol, verdict: approved(r2), now: beforeWin,
			wantCode: 403, wantErr: "carol may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide",
		},
		{
			name:   "another approver decides the edited version",
			plan:   func(t *testing.T) *plan.ProtectionPlan { return edited(t, createRequired(t, carol), "dave") },
			caller: olivia, verdict: approved(r2), now: beforeWin, wantPhase: plan.PhaseScheduled,
		},
		{
			name: "a non-material edit keeps the request and does not make the editor a proposer",
			plan: func(t *testing.T) *plan.ProtectionPlan {
				p := createRequired(t, carol)
				spec := *p.Spec.DeepCopy()
				spec.Description = "the shop is closed"
				res, err := plan.Edit(p, spec, "dave", step)
				require.NoError(t, err)
				return res.Plan
			},
			caller: dave, verdict: approved(r1), now: beforeWin, wantPhase: plan.PhaseScheduled,
		},
		{
			name: "a decision on an already decided request is stale",
			plan: approvedByOlivia, caller: oscar, verdict: approved(r1), now: beforeWin,
			wantCode: 409, wantErr: `stale decision: request "holiday-r1-20261201T100000Z" was already approved by olivia at 2026-12-02T09:00:00Z`,
		},
		{
			name: "a decision on a request decided and since replaced by a reactivation is stale and names the new request",
			plan: reactivatedByRita, caller: oscar, verdict: approved(r1), now: beforeWin,
			wantCode: 409, wantErr: `stale decision: request "holiday-r1-20261201T100000Z" was already approved by olivia at 2026-12-02T09:00:00Z; request "holiday-r2-20261202T100000Z" is open now: re-read the plan and decide that one`,
		},
		{
			name: "the reactivator may not decide",
			plan: reactivatedByRita, caller: rita, verdict: approved(r2), now: beforeWin,
			wantCode: 403, wantErr: "rita may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide",
		},
		{
			name: "the creator may decide a reactivation by someone else once the first version was decided",
			plan: reactivatedByRita, caller: carol, verdict: approved(r2), now: beforeWin, wantPhase: plan.PhaseScheduled,
		},
		{
			name: "a pending plan canceled before a decision cannot be decided",
			plan: func(t *testing.T) *plan.ProtectionPlan {
				res, err := plan.Cancel(createRequired(t, carol), "carol", step)
				require.NoError(t, err)
				return res.Plan
			},
			caller: olivia, verdict: approved(r1), now: beforeWin,
			wantCode: 409, wantErr: "cannot approve a canceled plan: no approval request is open; only a plan in pending_approval can be decided",
		},
		{
			name: "an automatic plan has no request to decide",
			plan: func(t *testing.T) *plan.ProtectionPlan {
				p := holidayFreeze()
				p.Spec.Environment, p.Spec.ApprovalMode = "Staging", plan.ApprovalAutomatic
				res, err := plan.Create(p, "carol", created)
				require.NoError(t, err)
				return res.Plan
			},
			caller: olivia, verdict: approved(r1), now: beforeWin,
			wantCode: 409, wantErr: "cannot approve a scheduled plan: no approval request is open; only a plan in pending_approval can be decided",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.plan(t)
			before := p.DeepCopy()
			res, err := Decide(p, tt.verdict, tt.caller, tt.now)
			assert.Equal(t, before, p, "Decide must not change its input")
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.Equal(t, tt.wantCode, plan.CodeOf(err))
				assert.Nil(t, res.Plan)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantPhase, res.Plan.Status.Phase)
			assert.Nil(t, res.Plan.Status.ApprovalRequest)
			assert.Empty(t, res.Plan.Status.Proposers)
			require.NotNil(t, res.Plan.Status.LastDecision)
			assert.Equal(t, tt.verdict.RequestID, res.Plan.Status.LastDecision.RequestID)
			assert.Equal(t, tt.caller.Username, res.Plan.Status.LastDecision.DecidedBy)
		})
	}
}

func TestApproveRecordsTheDecision(t *testing.T) {
	p := createRequired(t, carol)
	res, err := Approve(p, r1, olivia, beforeWin)
	require.NoError(t, err)
	st := res.Plan.Status

	assert.Equal(t, &plan.ApprovalDecision{RequestID: r1, Decision: plan.DecisionApproved, DecidedBy: "olivia",
		DecidedAt: metav1.NewTime(beforeWin)}, st.LastDecision)
	assert.Equal(t, []plan.EventType{plan.EventApproved, plan.EventPhaseChanged}, eventTypes(res.Events))
	assert.Equal(t, plan.TimelineEvent{Time: metav1.NewTime(beforeWin), Type: plan.EventApproved, Actor: "olivia",
		Phase: plan.PhasePendingApproval, Message: "approval request " + r1 + " approved"}, res.Events[0])
	assert.Equal(t, []plan.EventType{plan.EventCreated, plan.EventApprovalRequired, plan.EventApproved, plan.EventPhaseChanged},
		eventTypes(st.Timeline))
	assert.Equal(t, plan.PhaseScheduled, st.Timeline[3].Phase)

	c := meta.FindStatusCondition(st.Conditions, plan.ConditionApproved)
	require.NotNil(t, c)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, "Approved", c.Reason)
	require.NotNil(t, res.NextEdge)
	assert.True(t, res.NextEdge.Equal(at("Thu Dec 24 2026 18:00 Europe/Berlin")), "next edge %s", res.NextEdge)
}

func TestRejectRecordsTheTrimmedComment(t *testing.T) {
	p := createRequired(t, carol)
	res, err := Reject(p, r1, olivia, "  not during the sale \n", beforeWin)
	require.NoError(t, err)
	st := res.Plan.Status

	assert.Equal(t, plan.PhaseCanceled, st.Phase)
	assert.Equal(t, "not during the sale", st.LastDecision.Comment)
	assert.Equal(t, plan.DecisionRejected, st.LastDecision.Decision)
	assert.Equal(t, []plan.EventType{plan.EventRejected, plan.EventPhaseChanged}, eventTypes(res.Events))
	assert.Equal(t, "approval request "+r1+" rejected: not during the sale", res.Events[0].Message)
	assert.Nil(t, res.NextEdge)

	c := meta.FindStatusCondition(st.Conditions, plan.ConditionApproved)
	require.NotNil(t, c)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, "Rejected", c.Reason)
	assert.Equal(t, "rejected by olivia: not during the sale", c.Message)
	ready := meta.FindStatusCondition(st.Conditions, plan.ConditionReady)
	require.NotNil(t, ready)
	assert.Equal(t, metav1.ConditionFalse, ready.Status)

	// A rejected plan can be reactivated, which asks again.
	again, err := plan.Reactivate(res.Plan, "carol", step)
	require.NoError(t, err)
	assert.Equal(t, plan.PhasePendingApproval, again.Plan.Status.Phase)
	assert.Equal(t, []string{"olivia", "oscar"}, Deciders(again.Plan, []Caller{carol, olivia, oscar}))
}

func TestStaleDecisionErrorIsTyped(t *testing.T) {
	p := mustDecide(t, createRequired(t, carol), approved(r1), olivia, approvedAt)
	_, err := Reject(p, r1, oscar, "too late", beforeWin)
	var stale *StaleRequestError
	require.True(t, errors.As(err, &stale))
	assert.Equal(t, r1, stale.RequestID)
	assert.Equal(t, "", stale.Open)
	require.NotNil(t, stale.Decided)
	assert.Equal(t, "olivia", stale.Decided.DecidedBy)
	assert.Equal(t, 409, plan.CodeOf(err))
}
