package render_test

import (
	"fmt"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// The advance warning a write in scope reads 20 minutes before a plan's
// start: with the time left on a target that reads the clock, with the
// instants only on vap, whose text the pass swaps at NextWarningEdge.
func ExampleWarningAt() {
	p := examplePlan()
	p.Status.Phase = plan.PhaseScheduled
	now := time.Date(2026, 11, 26, 23, 40, 0, 0, time.UTC)
	for _, in := range []render.Input{
		{Plan: p, Now: now, Target: render.TargetKyvernoCEL, Clock: true, Warnings: true},
		{Plan: p, Now: now, Target: render.TargetVAP, Warnings: true},
	} {
		w, _ := render.WarningAt(in)
		fmt.Println(in.Target, w.Phase+":", w.Message)
	}
	next, _ := render.NextWarningEdge(render.Input{Plan: p, Now: now, Target: render.TargetVAP, Warnings: true})
	fmt.Println("vap swaps the text at", next.Format(time.RFC3339))
	// Output:
	// kyverno-cel BeforeStart: freeze Black Friday starts in 20m0s (2026-11-27 00:00 UTC, until 2026-11-30 06:00 UTC)
	// vap BeforeStart: freeze Black Friday starts at 2026-11-27 00:00 UTC (until 2026-11-30 06:00 UTC)
	// vap swaps the text at 2026-11-27T00:00:00Z
}
