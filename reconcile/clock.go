package reconcile

import (
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// The clock at the enforcer (issue 20): with Settings.Clock on a target
// with a clock, a scheduled plan's policies are put in place up to the
// lead before its start, and the policies themselves refuse only from
// the start instant to the end instant. The pass is then the clock's
// helper, not its keeper: it pre-arms, refreshes the occurrences the
// policies carry, and removes them after the end.

// renderInput is the render of the plan for this pass's settings.
func (d *pass) renderInput(p *plan.ProtectionPlan, apps []plan.Application) render.Input {
	s := d.in.Settings
	return render.Input{Plan: p, Applications: apps, Now: d.in.Now, Target: s.target(), Compact: s.Compact,
		Clock: s.Clock, Lead: s.Lead, Warnings: s.Warnings,
		ReleaseNamespace: d.in.Cluster.ReleaseNamespace, ExcludedNamespaces: d.in.Cluster.Excluded, Kinds: d.in.Cluster.Kinds,
		EdgeExecutor: s.EdgeExecutor, WindowOptions: d.cals.opts, Grants: p.Status.Grants}
}

// preArmEdge brings the next pass forward to the instant a scheduled
// plan's policies are due in place: the lead before its start.
func (d *pass) preArmEdge() {
	s := d.in.Settings
	if !s.Clock || !render.HasClock(s.target()) || d.p.Status.Phase != plan.PhaseScheduled || d.out.NextEdge == nil {
		return
	}
	if at := d.out.NextEdge.Add(-render.Lead(d.renderInput(d.p, nil))); at.After(d.in.Now) {
		d.out.NextEdge = &at
	}
}

// warningEdge brings the next pass forward to the next instant the
// plan's warning policy changes (render.NextWarningEdge): the lead
// before the start, when it is put in place; and, where its text is
// static (vap, or without Clock), each change of phase, when the pass
// swaps the text (issue 20).
func (d *pass) warningEdge() {
	if !d.in.Settings.Warnings {
		return
	}
	at, ok := render.NextWarningEdge(d.renderInput(d.p, nil))
	if ok && at.After(d.in.Now) && (d.out.NextEdge == nil || at.Before(*d.out.NextEdge)) {
		d.out.NextEdge = &at
	}
}

// preArmed is true when a scheduled plan's policies are put in place
// ahead of its start: its writes deploy, they repair nothing.
func (d *pass) preArmed() bool {
	return d.p.Status.Phase == plan.PhaseScheduled && len(d.render.Policies) > 0
}
