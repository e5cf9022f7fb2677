package operator

import (
	"context"
	"sync/atomic"
	"time"

	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/telark/protectionplans/plan"
)

// kickDebounce is how long the loop waits after a plan changed before it
// reconciles, so that a burst of changes (a kubectl apply of ten plans, the
// operator's own status writes) makes one pass.
const kickDebounce = 150 * time.Millisecond

// edgeSlack is added to a window edge before the timer fires, so that the
// pass runs at or after the edge whatever the timer's rounding.
const edgeSlack = 20 * time.Millisecond

// loop is the operator's only goroutine that moves plans. It runs on the
// leader only (NeedLeaderElection), and reconciles every plan:
//
//   - on the tick (Config.Timing.TickInterval, 31 s by default);
//   - at the earliest next window edge of any plan (Status.NextEdge), so
//     that a window opens and closes on time rather than up to a tick late;
//   - soon after a plan is created, changed or deleted (a watch through the
//     manager's cache), so that a cancel or an approval stored by someone
//     else takes effect at once rather than on the next tick.
type loop struct {
	r      *reconciler
	cache  cache.Cache
	kick   chan struct{}
	passes atomic.Int64
}

var (
	_ manager.Runnable               = (*loop)(nil)
	_ manager.LeaderElectionRunnable = (*loop)(nil)
)

func newLoop(r *reconciler, c cache.Cache) *loop {
	return &loop{r: r, cache: c, kick: make(chan struct{}, 1)}
}

// NeedLeaderElection is true: only the leader moves plans.
func (l *loop) NeedLeaderElection() bool { return true }

// poke asks for a pass soon; it never blocks.
func (l *loop) poke() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Start runs the loop until ctx ends.
func (l *loop) Start(ctx context.Context) error {
	log := l.r.log.WithName("loop")
	if l.cache != nil {
		inf, err := l.cache.GetInformer(ctx, &plan.ProtectionPlan{})
		if err != nil {
			return err
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { l.poke() },
			UpdateFunc: func(any, any) { l.poke() },
			DeleteFunc: func(any) { l.poke() },
		}); err != nil {
			return err
		}
		if !l.cache.WaitForCacheSync(ctx) {
			return ctx.Err()
		}
	}
	clk := l.r.cfg.Clock
	ticker := clk.NewTicker(l.r.cfg.Timing.TickInterval)
	defer ticker.Stop()
	var edge clock.Timer
	defer func() {
		if edge != nil {
			edge.Stop()
		}
	}()
	log.Info("leading: reconciling plans", "tick", l.r.cfg.Timing.TickInterval, "checkpoint", l.r.cfg.Timing.ReportCheckpoint)
	for {
		next := l.r.reconcileAll(ctx)
		if edge != nil {
			edge.Stop()
			edge = nil
		}
		var edgeC <-chan time.Time
		// An edge at or before now was handled by this pass (Tick returns
		// edges strictly after the instant it is given).
		if now := clk.Now(); next != nil && next.After(now) {
			edge = clk.NewTimer(next.Sub(now) + edgeSlack)
			edgeC = edge.C()
		}
		l.passes.Add(1)
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
		case <-edgeC:
			log.V(1).Info("window edge", "at", next)
		case <-l.kick:
			select {
			case <-ctx.Done():
				return nil
			case <-clk.After(kickDebounce):
			}
			// Changes that arrived during the debounce are covered by the
			// pass about to run.
			select {
			case <-l.kick:
			default:
			}
		}
	}
}
