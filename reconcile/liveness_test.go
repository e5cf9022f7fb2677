package reconcile_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// TestLiveness_LastReconciled walks one plan through passes with
// Settings.ReconciledEvery: status.lastReconciled is stamped by the
// passes that write the status anyway, and by a steady pass only once it
// is ReconciledEvery old, so that the steady state still writes nothing.
func TestLiveness_LastReconciled(t *testing.T) {
	every := 10 * time.Minute
	steps := []struct {
		name   string
		at     time.Time
		writes int
		// stamp is the lastReconciled wanted after the pass.
		stamp time.Time
	}{
		{"the pass that adopts the plan stamps it with the status it writes anyway", start.Add(-2 * time.Hour), 1, start.Add(-2 * time.Hour)},
		{"a steady pass a minute later writes nothing and leaves the stamp", start.Add(-119 * time.Minute), 0, start.Add(-2 * time.Hour)},
		{"a steady pass just under the interval later still writes nothing", start.Add(-2*time.Hour + every - time.Second), 0, start.Add(-2 * time.Hour)},
		{"a steady pass once the stamp is the interval old writes the stamp alone", start.Add(-2*time.Hour + every), 1, start.Add(-2*time.Hour + every)},
		{"the start writes its policies and the phase, and stamps it to the second", start.Add(500 * time.Millisecond), 5, start},
		{"a steady pass in the window a minute later writes nothing", start.Add(time.Minute), 0, start},
	}
	w := newWorld("shop", "payments")
	w.settings.ReconciledEvery = every
	w.add(freeze("xmas", "shop", "payments"))
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			w.writes = 0
			w.passPlan("xmas", s.at)
			got := w.plans["xmas"].Status.LastReconciled
			if got == nil || !got.Time.Equal(s.stamp) {
				t.Errorf("lastReconciled %v, want %v", got, s.stamp)
			}
			if w.writes != s.writes {
				t.Errorf("%d writes, want %d", w.writes, s.writes)
			}
		})
	}
}

// TestLiveness_WithoutReconciledEveryNothingIsStamped: the zero Settings
// stamp nothing, so embedders that do not ask see the status they saw.
func TestLiveness_WithoutReconciledEveryNothingIsStamped(t *testing.T) {
	w := newWorld("shop")
	w.add(freeze("xmas", "shop"))
	w.passPlan("xmas", start.Add(-2*time.Hour))
	w.writes = 0
	w.passPlan("xmas", start.Add(-time.Hour))
	if got := w.plans["xmas"].Status.LastReconciled; got != nil || w.writes != 0 {
		t.Errorf("lastReconciled %v, %d writes; want none", got, w.writes)
	}
}

func TestLiveness_Overdue(t *testing.T) {
	tick := reconcile.Timing{TickInterval: 31 * time.Second}
	last := start
	for _, c := range []struct {
		name    string
		timing  reconcile.Timing
		last    time.Time
		now     time.Time
		overdue bool
	}{
		{name: "a pass one tick after the last is not overdue", timing: tick, last: last, now: last.Add(31 * time.Second)},
		{name: "a pass missed once is not yet overdue", timing: tick, last: last, now: last.Add(62 * time.Second)},
		{name: "two ticks and a minute after the last pass it is not yet overdue", timing: tick, last: last, now: last.Add(2*31*time.Second + time.Minute)},
		{name: "a second more and it is overdue", timing: tick, last: last, now: last.Add(2*31*time.Second + time.Minute + time.Second), overdue: true},
		{name: "no successful pass yet is overdue", timing: tick, now: last, overdue: true},
		{name: "a zero timing reads as the default tick", last: last, now: last.Add(2*reconcile.DefaultTickInterval + time.Minute + time.Second), overdue: true},
		{name: "a 2 s tick is overdue 64 s after the last pass", timing: reconcile.Timing{TickInterval: 2 * time.Second}, last: last, now: last.Add(65 * time.Second), overdue: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := reconcile.PassOverdue(c.last, c.now, c.timing); got != c.overdue {
				t.Errorf("PassOverdue = %v, want %v (OverdueAfter %s)", got, c.overdue, reconcile.OverdueAfter(c.timing))
			}
		})
	}
}

func TestLiveness_EdgeMissed(t *testing.T) {
	timing := reconcile.Timing{TickInterval: 31 * time.Second}
	after := reconcile.OverdueAfter(timing)
	at := func(tm time.Time) *metav1.Time { return &metav1.Time{Time: tm} }
	for _, c := range []struct {
		name   string
		edge   *metav1.Time
		now    time.Time
		missed bool
	}{
		{name: "an edge still ahead is not missed", edge: at(start), now: start.Add(-time.Minute)},
		{name: "an edge passed less than OverdueAfter ago is not yet missed: its pass may be on its way", edge: at(start), now: start.Add(after)},
		{name: "an edge passed longer ago and still stored is missed: the phase did not follow", edge: at(start), now: start.Add(after + time.Second), missed: true},
		{name: "a plan without a next edge misses nothing", now: end.Add(24 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := freeze("xmas", "shop")
			p.Status.NextEdge = c.edge
			if got := reconcile.EdgeMissed(p, c.now, timing); got != c.missed {
				t.Errorf("EdgeMissed = %v, want %v", got, c.missed)
			}
		})
	}
}

// TestLiveness_NextEdges: after passes on the way to the start, each plan's
// stored next edge, and none for a plan that has ended.
func TestLiveness_NextEdges(t *testing.T) {
	w := newWorld("shop", "payments")
	w.add(freeze("xmas", "shop"))
	ended := freeze("ended", "payments")
	ended.Spec.Window.StartAt = &metav1.Time{Time: start.Add(-72 * time.Hour)}
	ended.Spec.Window.EndAt = &metav1.Time{Time: start.Add(-50 * time.Hour)}
	ended.CreationTimestamp = metav1.NewTime(start.Add(-96 * time.Hour))
	w.add(ended)
	w.pass(start.Add(-time.Hour))
	got := reconcile.NextEdges([]*plan.ProtectionPlan{w.plans["xmas"], w.plans["ended"], nil})
	if len(got) != 1 || !got["xmas"].Equal(start) {
		t.Errorf("NextEdges = %v, want xmas at its start %v only", got, start)
	}
	if w.plans["ended"].Status.Phase != plan.PhaseTerminated {
		t.Errorf("the ended plan is %s", w.plans["ended"].Status.Phase)
	}
}

// The liveness signals of a pass: when the next is overdue, and whether a
// plan's stored edge was missed.
func ExampleOverdueAfter() {
	timing := reconcile.Timing{TickInterval: 31 * time.Second}
	last := time.Date(2026, 12, 24, 17, 0, 0, 0, time.UTC)
	fmt.Println(reconcile.OverdueAfter(timing))
	fmt.Println(reconcile.PassOverdue(last, last.Add(90*time.Second), timing))
	fmt.Println(reconcile.PassOverdue(last, last.Add(3*time.Minute), timing))
	// Output:
	// 2m2s
	// false
	// true
}
