//go:build e2e

package faults

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// TestKyvernoRestart stops Kyverno's admission controller during an
// enforce plan's window and starts it again: the plan must refuse again
// once Kyverno is back, with nothing done by hand; a plan whose window
// opens while Kyverno is down must be put in place once it is back. It
// logs what the API server answered meanwhile, and the times.
func TestKyvernoRestart(t *testing.T) {
	ctx := t.Context()
	id, ns := "kyverno-restart", "kyverno-restart"
	late, lateNS := "kyverno-restart-late", "kyverno-restart-late"
	free := "kyverno-restart-free" // in no plan's scope
	for _, n := range []string{ns, lateNS, free} {
		createNamespace(t, n)
	}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "operator.log")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("operator log: %s\n%s", logPath, tailFile(logPath, 40))
			t.Logf("kyverno log: %s\n%s", env.LogPath("kyverno"), env.LogTail("kyverno", 40))
		}
	})
	op := startCommand(t, filepath.Join(dir, "reports"), logPath)
	if err := c.Create(ctx, newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.Permanent})); err != nil {
		t.Fatal(err)
	}
	enforced := waitFor(t, time.Minute, "the scale refused", func() (string, bool) {
		err := scale(ctx, ns, 5, true)
		return errText(err), refused(err)
	})
	t.Logf("before: the enforce plan refuses a scale %s after it was created", enforced.Round(time.Millisecond))

	stopAt := time.Now()
	if err := env.StopKyverno(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Kyverno's admission controller stopped (by its PID) in %s", time.Since(stopAt).Round(time.Millisecond))

	// While it is down.
	inScope := scale(ctx, ns, 5, true)
	outOfScope := scale(ctx, free, 5, true)
	t.Logf("while down, a scale in scope: %s", describe(inScope))
	t.Logf("while down, a scale in no plan's scope: %s", describe(outOfScope))
	if inScope == nil {
		t.Errorf("a scale in the scope of an enforce plan was admitted while Kyverno was down")
	}
	windowOpens := time.Now().Truncate(time.Second)
	lp := newPlan(late, lateNS, plan.ModeEnforce, window.Spec{Type: window.TimeRange,
		StartAt: &metav1.Time{Time: windowOpens}, EndAt: &metav1.Time{Time: windowOpens.Add(time.Hour)}})
	if err := c.Create(ctx, lp); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * tick)
	lateDown := getPlan(t, late)
	t.Logf("while down, a plan whose window opened: phase %s, Ready %s, PoliciesHealthy %s, %d policies",
		lateDown.Status.Phase, conditionOf(lateDown, plan.ConditionReady), conditionOf(lateDown, plan.ConditionPoliciesHealthy), len(planPolicies(t, late)))

	// Back.
	startAt := time.Now()
	if err := env.StartKyverno(ctx); err != nil {
		t.Fatal(err)
	}
	ready := time.Since(startAt)
	again := waitFor(t, 2*time.Minute, "the enforce plan refusing again", func() (string, bool) {
		err := scale(ctx, ns, 5, true)
		return errText(err), refused(err)
	})
	lateIn := waitFor(t, 2*time.Minute, "the late plan refusing", func() (string, bool) {
		err := scale(ctx, lateNS, 5, true)
		return errText(err), refused(err)
	})
	freeOK := waitFor(t, time.Minute, "a scale out of scope admitted", func() (string, bool) {
		err := scale(ctx, free, 5, true)
		return errText(err), err == nil
	})
	t.Logf("back: Kyverno ready %s after its start; the enforce plan refuses again %s after the start; the late plan refuses %s after the start; out of scope admitted again %s after the start",
		ready.Round(time.Millisecond), (ready + again).Round(time.Millisecond), (ready + again + lateIn).Round(time.Millisecond),
		(ready + again + lateIn + freeOK).Round(time.Millisecond))
	for _, pid := range []string{id, late} {
		p := getPlan(t, pid)
		if p.Status.Phase != plan.PhaseActive || conditionOf(p, plan.ConditionPoliciesHealthy) != "True/InPlace" {
			waitFor(t, 3*tick, pid+" active and healthy", func() (string, bool) {
				p := getPlan(t, pid)
				h := conditionOf(p, plan.ConditionPoliciesHealthy)
				return string(p.Status.Phase) + " " + h, p.Status.Phase == plan.PhaseActive && h == "True/InPlace"
			})
		}
	}

	// Withdraw both plans; the operator sweeps their policies.
	for _, pid := range []string{id, late} {
		if err := c.Delete(ctx, getPlan(t, pid)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 3*tick, "the policies swept", func() (string, bool) {
		return "", len(planPolicies(t, id))+len(planPolicies(t, late)) == 0
	})
	op.stop(t)
}

// conditionOf formats a plan's condition as "<status>/<reason>".
func conditionOf(p *plan.ProtectionPlan, typ string) string {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return string(c.Status) + "/" + c.Reason
		}
	}
	return "none"
}

// describe says what became of a request.
func describe(err error) string {
	switch {
	case err == nil:
		return "admitted"
	case refused(err):
		return "refused: " + err.Error()
	default:
		return "failed: " + err.Error()
	}
}

func errText(err error) string {
	if err == nil {
		return "admitted"
	}
	return strings.TrimSpace(err.Error())
}
