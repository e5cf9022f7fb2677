package approval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/telark/protectionplans/plan"
)

// These tests hold approval and the plan lifecycle to their shared
// contract: plan opens requests and records proposers, approval decides.

func TestRequiredPlanWaitsAndNamesItsDeciders(t *testing.T) {
	p := createRequired(t, carol)
	assert.Equal(t, plan.PhasePendingApproval, p.Status.Phase)
	assert.Nil(t, p.Status.NextEdge, "nothing is scheduled while pending")
	assert.Nil(t, p.Status.StartedAt, "nothing was deployed")
	assert.Equal(t, r1, requestID(p))
	assert.Equal(t, []string{"carol"}, p.Status.Proposers)
	assert.Equal(t, []string{"olivia", "oscar"}, Deciders(p, []Caller{carol, olivia, oscar, carl}))
	// Ticking inside the window changes nothing: it still waits.
	assert.Equal(t, plan.PhasePendingApproval, plan.Tick(p, insideWin).Plan.Status.Phase)
}

func TestModeNeverChangesAfterCreation(t *testing.T) {
	t.Run("an edit of the approval mode is refused", func(t *testing.T) {
		p := createRequired(t, carol)
		spec := *p.Spec.DeepCopy()
		spec.ApprovalMode = plan.ApprovalAutomatic
		_, err := plan.Edit(p, spec, "olivia", step)
		assert.Equal(t, 400, plan.CodeOf(err))
	})
	t.Run("an edit may not move an automatic plan into Production", func(t *testing.T) {
		p := holidayFreeze()
		p.Spec.Environment = "Staging"
		md, err := DeriveMode(plan.ApprovalAutomatic, p.Spec.Environment, olivia, Config{})
		require.NoError(t, err)
		p.Spec.ApprovalMode = md.Mode
		res, err := plan.Create(p, "olivia", created)
		require.NoError(t, err)
		spec := *res.Plan.Spec.DeepCopy()
		spec.Environment = "Production"
		_, err = plan.Edit(res.Plan, spec, "olivia", step)
		assert.Equal(t, 400, plan.CodeOf(err))
	})
	t.Run("a duplicate derives its mode again and waits for someone other than the duplicator", func(t *testing.T) {
		src := mustDecide(t, createRequired(t, carol), approved(r1), olivia, approvedAt)
		cp, err := plan.Duplicate(src, "holiday-copy")
		require.NoError(t, err)
		md, err := DeriveMode(cp.Spec.ApprovalMode, cp.Spec.Environment, olivia, Config{})
		require.NoError(t, err)
		assert.Equal(t, plan.ApprovalRequired, md.Mode)
		cp.Spec.ApprovalMode = md.Mode
		res, err := plan.Create(cp, "olivia", step)
		require.NoError(t, err)
		assert.Equal(t, []string{"carol", "oscar"}, Deciders(res.Plan, []Caller{carol, olivia, oscar}))
	})
}

func TestApprovedPlanRefusesMaterialEdits(t *testing.T) {
	p := mustDecide(t, createRequired(t, carol), approved(r1), olivia, approvedAt)
	spec := *p.Spec.DeepCopy()
	spec.Mode = plan.ModeAudit
	_, err := plan.Edit(p, spec, "dave", step)
	assert.Equal(t, 409, plan.CodeOf(err))

	spec = *p.Spec.DeepCopy()
	spec.Description = "a non-material edit is fine"
	res, err := plan.Edit(p, spec, "dave", step)
	require.NoError(t, err)
	assert.Equal(t, plan.PhaseScheduled, res.Plan.Status.Phase)
	assert.Empty(t, Deciders(res.Plan, []Caller{olivia, oscar}), "no request is open")
}

// R-A3 says a material editor "since the last approval" may not decide,
// even when the edit was made while the plan was canceled and someone else
// reactivated it.
func TestEditorOfCanceledPlanMayNotApproveItsReactivation(t *testing.T) {
	p := mustDecide(t, createRequired(t, carol), approved(r1), olivia, approvedAt)
	res, err := plan.Cancel(p, "carol", step)
	require.NoError(t, err)
	p = edited(t, res.Plan, "dave")
	res, err = plan.Reactivate(p, "rita", step)
	require.NoError(t, err)
	assert.Equal(t, 403, plan.CodeOf(MayDecide(res.Plan, dave)))
}
