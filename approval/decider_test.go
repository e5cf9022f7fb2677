package approval

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// pendingPlan is a required plan waiting for request "r-2", created by
// carol and materially edited by dave since.
func pendingPlan() *plan.ProtectionPlan {
	p := planWith(plan.ScopeApplications, plan.ModeEnforce)
	p.Name = "checkout-freeze"
	p.Spec.ApprovalMode = plan.ApprovalRequired
	p.Status.Phase = plan.PhasePendingApproval
	p.Status.RequestSeq = 2
	p.Status.ApprovalRequest = &plan.ApprovalRequest{ID: "r-2", Reason: "edited", RequestedBy: "dave",
		RequestedAt: metav1.NewTime(time.Date(2026, 7, 9, 15, 0, 0, 0, time.UTC))}
	p.Status.Proposers = []string{"carol", "dave"}
	return p
}

func owner(name string, extra ...Role) Caller {
	return Caller{Username: name, Roles: append([]Role{Owner()}, extra...)}
}

func TestMayDecide(t *testing.T) {
	noApprove, err := ParseRole("no-approve", "protection-plans.approve.deny")
	require.NoError(t, err)
	decided := pendingPlan()
	decided.Status.ApprovalRequest = nil
	decided.Status.Phase = plan.PhaseScheduled

	tests := []struct {
		name     string
		plan     *plan.ProtectionPlan
		caller   Caller
		wantCode int
		wantErr  string
	}{
		{name: "an Owner who did not put the version up may decide", plan: pendingPlan(), caller: owner("olivia"), wantCode: 200},
		{name: "the creator may not decide", plan: pendingPlan(), caller: owner("carol"), wantCode: 403,
			wantErr: "carol may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide"},
		{name: "the editor who opened the request may not decide", plan: pendingPlan(), caller: owner("dave"), wantCode: 403,
			wantErr: "dave may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide"},
		{name: "whoever opened the request may not decide even if missing from proposers", plan: func() *plan.ProtectionPlan {
			p := pendingPlan()
			p.Status.Proposers = nil
			return p
		}(), caller: owner("dave"), wantCode: 403,
			wantErr: "dave may not approve: you created, reactivated or materially edited this version since the last decision; another approver must decide"},
		{name: "a Contributor is not an approver", plan: pendingPlan(), caller: Caller{Username: "carl", Roles: []Role{Contributor()}}, wantCode: 403,
			wantErr: "carl may not approve: none of your roles (Contributor) grants protection-plans.approve; it comes with the role Owner"},
		{name: "an Owner with a deny on approve is not an approver", plan: pendingPlan(), caller: owner("olivia", noApprove), wantCode: 403,
			wantErr: `olivia may not approve: role "no-approve" withholds approve (protection-plans.approve.deny), and a deny wins over every grant; ask whoever manages roles to lift it`},
		{name: "a caller without a username may not decide", plan: pendingPlan(), caller: owner(""), wantCode: 403,
			wantErr: "the caller may not approve: the caller has no username; a decision must record who made it"},
		{name: "a plan with no open request cannot be decided", plan: decided, caller: owner("olivia"), wantCode: 409,
			wantErr: "cannot approve a scheduled plan: no approval request is open; only a plan in pending_approval can be decided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.plan.DeepCopy()
			err := MayDecide(tt.plan, tt.caller)
			assert.Equal(t, tt.wantCode, plan.CodeOf(err))
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
			assert.Equal(t, before, tt.plan, "MayDecide must not change the plan")
		})
	}
}

func TestMayDecideErrorTypes(t *testing.T) {
	var fe *ForbiddenError
	require.True(t, errors.As(MayDecide(pendingPlan(), owner("carol")), &fe))
	assert.Equal(t, ActionApprove, fe.Action)

	p := pendingPlan()
	p.Status.ApprovalRequest = nil
	var ae *plan.ActionError
	require.True(t, errors.As(MayDecide(p, owner("olivia")), &ae))
	assert.Equal(t, "approve", ae.Action)
}

func TestDeciders(t *testing.T) {
	noApprove, err := ParseRole("no-approve", "protection-plans.approve.deny")
	require.NoError(t, err)
	candidates := []Caller{
		owner("zoe"),
		owner("carol"), // creator
		owner("dave"),  // editor, opened the request
		owner("olivia"),
		owner("olivia"), // listed twice (two role bindings)
		owner("nina", noApprove),
		{Username: "carl", Roles: []Role{Contributor()}},
		{Username: "vera", Roles: []Role{Viewer()}},
		owner(""),
	}
	t.Run("every Owner who may decide, minus the proposers, sorted and unique", func(t *testing.T) {
		assert.Equal(t, []string{"olivia", "zoe"}, Deciders(pendingPlan(), candidates))
	})
	t.Run("nobody when no request is open", func(t *testing.T) {
		p := pendingPlan()
		p.Status.ApprovalRequest = nil
		assert.Empty(t, Deciders(p, candidates))
	})
	t.Run("nobody when every Owner proposed the version", func(t *testing.T) {
		assert.Empty(t, Deciders(pendingPlan(), []Caller{owner("carol"), owner("dave")}))
	})
}
