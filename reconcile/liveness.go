package reconcile

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// Knowing that the clock-keeper is alive (issue 20, item 4). The pass
// keeps a plan's phase on time; with the clock at the enforcer the
// policies refuse on time by themselves, but a pass still pre-arms,
// refreshes the occurrences and removes them. Three signals say it runs:
//
//   - the time of the last successful pass, one for the operator (a pass
//     covers every plan: a plan-by-plan series would repeat it), overdue
//     OverdueAfter later;
//   - each plan's next edge, its status.nextEdge as stored: a pass that
//     moves the phase at an edge stores the following edge, so an edge
//     still stored OverdueAfter after it passed means the phase did not
//     follow (EdgeMissed). Per plan, not the earliest of all, so that the
//     alert names the plan and a plan stuck behind an edge is not hidden
//     by the others' later ones;
//   - status.lastReconciled on the plan, for people without the metrics,
//     stamped so that a steady pass still writes nothing (stampReconciled).

// DefaultReconciledEvery is how old status.lastReconciled may grow before
// a pass that changes nothing else stamps it: one status write per plan
// every ten minutes, against a tick of 31 s by default (one pass in about
// twenty), and well under an hour, the age at which a person reading it
// would suspect the operator.
const DefaultReconciledEvery = 10 * time.Minute

// passSlack is how long a pass may take beyond its tick before it is
// overdue: the probes' dry-runs wait up to the API server's 10 s webhook
// timeout each, and a list of many plans takes seconds.
const passSlack = time.Minute

// OverdueAfter is how long after the last successful pass the next one is
// overdue: two ticks (a pass runs every tick, and sooner at an edge, so
// one missed tick is not yet an alarm) plus passSlack.
func OverdueAfter(t Timing) time.Duration {
	tick := t.TickInterval
	if tick <= 0 {
		tick = DefaultTickInterval
	}
	return 2*tick + passSlack
}

// PassOverdue reports whether a pass is overdue at now, the last
// successful one having been at last (zero: none yet).
func PassOverdue(last, now time.Time, t Timing) bool {
	return last.IsZero() || now.Sub(last) > OverdueAfter(t)
}

// NextEdges is each plan's next edge as stored (status.nextEdge), by plan
// name: the plans without one (pending approval, ended, canceled) have
// none.
func NextEdges(plans []*plan.ProtectionPlan) map[string]time.Time {
	edges := make(map[string]time.Time, len(plans))
	for _, p := range plans {
		if p != nil && p.Status.NextEdge != nil {
			edges[p.Name] = p.Status.NextEdge.Time
		}
	}
	return edges
}

// EdgeMissed reports whether the stored plan p has an edge that passed
// more than OverdueAfter before now without its phase following: a pass
// at the edge would have stored the next one.
func EdgeMissed(p *plan.ProtectionPlan, now time.Time, t Timing) bool {
	return p != nil && p.Status.NextEdge != nil && now.Sub(p.Status.NextEdge.Time) > OverdueAfter(t)
}

// stampReconciled sets status.lastReconciled to the pass's Now when the
// pass writes the status anyway (changed), or when the stored stamp is
// missing or at least Settings.ReconciledEvery old. It reports whether
// the status is to be written.
func (d *pass) stampReconciled(changed bool) bool {
	every := d.in.Settings.ReconciledEvery
	if every <= 0 {
		return changed
	}
	last := d.stored.Status.LastReconciled
	if !changed && last != nil && d.in.Now.Sub(last.Time) < every {
		return false
	}
	// Whole seconds: the stamp as stored, so that the next pass compares
	// equal to what it reads back.
	now := metav1.NewTime(d.in.Now.Truncate(time.Second))
	d.p.Status.LastReconciled = &now
	return true
}
