package reconcile_test

import (
	"testing"
	"time"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestClock_PreArmed follows a plan through its window with Settings.Clock
// on the kyverno target (issue 20): its policies are put in place within
// the lead before the start, the start itself writes no policy (the
// policies already refuse from the start instant), and the end removes
// them.
func TestClock_PreArmed(t *testing.T) {
	steps := []struct {
		name     string
		at       time.Time
		phase    plan.Phase
		policies int
		check    func(t *testing.T, w *world, out pass)
	}{
		{"two hours before the start nothing is in place and the next pass is due at the lead", start.Add(-2 * time.Hour), plan.PhaseScheduled, 0,
			func(t *testing.T, w *world, out pass) {
				if out.nextEdge == nil || !out.nextEdge.Equal(start.Add(-render.DefaultLead)) {
					t.Errorf("next edge %v, want the lead before the start %v", out.nextEdge, start.Add(-render.DefaultLead))
				}
			}},
		{"within the lead the policies are put in place, and health checked after the writes expects them", start.Add(-30 * time.Minute), plan.PhaseScheduled, 4,
			func(t *testing.T, w *world, out pass) {
				if out.healthReason != health.ReasonPreArmed {
					t.Errorf("PoliciesHealthy reason %q, want %q", out.healthReason, health.ReasonPreArmed)
				}
			}},
		{"a pass within the lead in the steady state writes nothing", start.Add(-29 * time.Minute), plan.PhaseScheduled, 4,
			func(t *testing.T, w *world, out pass) {
				if w.writes != 0 {
					t.Errorf("%d writes", w.writes)
				}
			}},
		{"the start writes the phase and no policy: the policies already refuse", start.Add(time.Second), plan.PhaseActive, 4,
			func(t *testing.T, w *world, out pass) {
				if w.writes != 1 {
					t.Errorf("%d writes, want the status only", w.writes)
				}
			}},
		{"after the end the policies are removed", end.Add(time.Minute), plan.PhaseTerminated, 0, nil},
	}
	w := newWorld("shop", "payments")
	w.settings.Clock = true
	w.add(freeze("xmas", "shop", "payments"))
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			w.writes = 0
			out := w.passPlan("xmas", s.at)
			if p := w.plans["xmas"]; p.Status.Phase != s.phase || len(w.live("xmas")) != s.policies {
				t.Fatalf("phase %s with %d policies, want %s with %d", p.Status.Phase, len(w.live("xmas")), s.phase, s.policies)
			}
			if s.check != nil {
				got := pass{nextEdge: out.NextEdge}
				if out.Health != nil {
					for _, c := range out.Health.Conditions {
						if c.Type == plan.ConditionPoliciesHealthy {
							got.healthReason = c.Reason
						}
					}
				}
				s.check(t, w, got)
			}
		})
	}
}

// TestClock_WithoutClockNothingIsPreArmed: without Settings.Clock, and
// on vap whatever it says, the policies wait for the start's pass.
func TestClock_WithoutClockNothingIsPreArmed(t *testing.T) {
	for _, s := range []struct {
		name   string
		clock  bool
		target render.Target
	}{
		{"without Settings.Clock a plan within the lead has no policy", false, render.TargetKyverno},
		{"on vap a plan within the lead has no policy", true, render.TargetVAP},
	} {
		t.Run(s.name, func(t *testing.T) {
			w := newWorld("shop")
			w.settings.Clock, w.settings.Target = s.clock, s.target
			w.add(freeze("xmas", "shop"))
			w.passPlan("xmas", start.Add(-30*time.Minute))
			if n := len(w.live("xmas")); n != 0 {
				t.Errorf("%d policies in place before the start", n)
			}
		})
	}
}

// pass is what the steps check of an Output.
type pass struct {
	nextEdge     *time.Time
	healthReason string
}
