package operator

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// waitPasses waits (in real time) until the loop has made n passes (it
// counts a pass once its timers are set).
func waitPasses(t *testing.T, f *fixture, l *loop, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for l.passes.Load() < n || !f.clock.HasWaiters() {
		if time.Now().After(deadline) {
			t.Fatalf("%d passes, want %d", l.passes.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLoop_ReconcilesAtTheWindowEdgeAndWhenPoked(t *testing.T) {
	p := kubectlPlan("later", plan.ModeEnforce, []string{"shop"}, "scaling")
	start := t0.Add(10 * time.Second)
	p.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: start.Add(time.Hour)}}
	f := newFixture(t, []client.Object{namespace("shop"), p})
	f.r.cfg.Timing.TickInterval = time.Hour // only the edge and the poke wake the loop
	l := newLoop(f.r, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Start(ctx) }()
	defer func() {
		cancel()
		<-done
	}()

	waitPasses(t, f, l, 1)
	if ph := f.plan("later").Status.Phase; ph != plan.PhaseScheduled {
		t.Fatalf("phase %s before the start", ph)
	}
	f.clock.Step(10*time.Second + edgeSlack) // the edge, an hour before the next tick
	waitPasses(t, f, l, 2)
	if ph := f.plan("later").Status.Phase; ph != plan.PhaseActive || len(f.policies("shop")) != 1 {
		t.Fatalf("at the edge: phase %s, %d policies", ph, len(f.policies("shop")))
	}

	waiting := f.clock.Waiters() // the ticker and the next edge's timer
	l.poke()
	l.poke() // coalesced
	for f.clock.Waiters() != waiting+1 {
		time.Sleep(time.Millisecond) // until the loop waits out the debounce
	}
	f.clock.Step(kickDebounce)
	waitPasses(t, f, l, 3)
	time.Sleep(20 * time.Millisecond)
	if n := l.passes.Load(); n != 3 {
		t.Errorf("%d passes after two pokes, want one more pass", n)
	}
}
