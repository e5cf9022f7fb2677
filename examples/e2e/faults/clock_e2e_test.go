//go:build e2e

package faults

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// The clock at the enforcer, end to end (issue 20, "Done when"): how far
// ahead of the start the window is, how long before it the operator is
// stopped, and how long it lasts. The window starts a little ahead of real
// now, so the test waits about clockAhead+clockWindow per target.
const (
	clockAhead   = 40 * time.Second
	clockStopped = 30 * time.Second
	clockWindow  = 6 * time.Second
)

// TestClockWhileStopped runs, on each target with a clock, the operator
// command with --clock over an enforce plan freezing creation in a window
// that starts clockAhead from now. The operator pre-arms the policy (it is
// within the lead), and is killed by its PID clockStopped before the start:
// no pass runs at the start or at the end. Writes in scope (server dry-run
// creates, sent every 100 ms around each edge) must be refused from the
// start instant and admitted from the end instant, each within a second;
// the plan's phase stays Scheduled, proof that no pass ran. Restarted after
// the end, the operator removes the policy.
func TestClockWhileStopped(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target render.Target
		gvk    schema.GroupVersionKind
	}{
		{name: "a kyverno policy refuses from the start and admits from the end with the operator stopped", target: render.TargetKyverno, gvk: harness.PolicyGVK},
		{name: "a kyverno-cel policy refuses from the start and admits from the end with the operator stopped", target: render.TargetKyvernoCEL, gvk: harness.NamespacedValidatingPolicyGVK},
	} {
		t.Run(tc.name, func(t *testing.T) { clockWhileStopped(t, tc.target, tc.gvk) })
	}
}

func clockWhileStopped(t *testing.T, target render.Target, gvk schema.GroupVersionKind) {
	ctx := t.Context()
	id := "clock-" + string(target)
	ns := id
	createNamespace(t, ns)
	dir := t.TempDir()
	reportsDir, logPath := filepath.Join(dir, "reports"), filepath.Join(dir, "operator.log")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("operator log: %s\n%s", logPath, tailFile(logPath, 60))
		}
	})
	// The operator's defaults: --clock and --warnings on (the other tests
	// of this package turn them off, see startCommandArgs).
	args := []string{"--target=" + string(target), "--clock=true", "--warnings=true", "--lead=10m"}
	op := startCommandArgs(t, reportsDir, logPath, args)

	start := time.Now().Add(clockAhead).Truncate(time.Second)
	end := start.Add(clockWindow)
	p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.TimeRange,
		StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}})
	p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	// policies are the plan's refusing policies; warning counts its
	// warning policies (template warn), in place from the lead too.
	var warning int
	policies := func() []unstructured.Unstructured {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list, client.MatchingLabels{render.LabelPlan: id}); err != nil {
			t.Fatal(err)
		}
		var out []unstructured.Unstructured
		warning = 0
		for _, u := range list.Items {
			if u.GetLabels()[render.LabelTemplate] == render.WarnTemplate {
				warning++
				continue
			}
			out = append(out, u)
		}
		return out
	}
	// Pre-armed: the policy is in place and ready before the operator stops.
	waitFor(t, start.Sub(time.Now())-clockStopped, "the pre-armed policy and its warning policy", func() (string, bool) {
		n := len(policies())
		return fmt.Sprintf("%d policies, %d warning policies", n, warning), n == 1 && warning == 1
	})
	pol := policies()[0]
	if err := env.WaitPolicyReady(ctx, ns, pol.GetName()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s pre-armed and ready %s after the plan was created, %s before the start",
		pol.GetName(), time.Since(created).Round(time.Millisecond), time.Until(start).Round(time.Millisecond))
	if ph := getPlan(t, id).Status.Phase; ph != plan.PhaseScheduled {
		t.Fatalf("phase %s before the start, want %s", ph, plan.PhaseScheduled)
	}
	if err := createDeployment(ctx, ns, "in-scope"); err != nil {
		t.Fatalf("a create in scope was not admitted before the start: %s", errText(err))
	}

	// The operator stopped by its PID, clockStopped before the start.
	if d := time.Until(start.Add(-clockStopped)); d > 0 {
		time.Sleep(d)
	} else {
		t.Fatalf("setup took too long: %s short of stopping the operator %s before the start", -d, clockStopped)
	}
	if err := op.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, ok := op.exited(5 * time.Second); !ok {
		t.Fatalf("the operator (pid %d) did not end on SIGKILL", op.cmd.Process.Pid)
	}
	t.Logf("operator (pid %d) killed %s before the start", op.cmd.Process.Pid, time.Until(start).Round(time.Millisecond))

	// The start: refused from the start instant, with no pass.
	first := writesAround(t, ns, start, true)
	t.Logf("start %s: %s", start.Format(time.RFC3339), first)
	if ph := getPlan(t, id).Status.Phase; ph != plan.PhaseScheduled {
		t.Errorf("phase %s after the start with the operator stopped: a pass ran", ph)
	}

	// The end, the operator still stopped: admitted from the end instant.
	last := writesAround(t, ns, end, false)
	t.Logf("end %s: %s", end.Format(time.RFC3339), last)
	if n := len(policies()); n != 1 || warning != 1 {
		t.Errorf("%d policies and %d warning policies after the end with the operator stopped, want the pre-armed ones", n, warning)
	}

	// Restarted: it removes the policy.
	restarted := time.Now()
	op = startCommandArgs(t, reportsDir, logPath, args)
	d := waitFor(t, 30*time.Second, "the policy and the warning policy removed", func() (string, bool) {
		n := len(policies())
		return fmt.Sprintf("%d policies, %d warning policies", n, warning), n == 0 && warning == 0
	})
	ended := waitFor(t, 30*time.Second, "the plan terminated", func() (string, bool) {
		ph := getPlan(t, id).Status.Phase
		return string(ph), ph == plan.PhaseTerminated
	})
	t.Logf("restarted %s after the end: the policy removed %s after the restart, the phase terminated %s later",
		restarted.Sub(end).Round(time.Millisecond), d.Round(time.Millisecond), ended.Round(time.Millisecond))
	if err := c.Delete(ctx, getPlan(t, id)); err != nil {
		t.Fatal(err)
	}
	op.stop(t)
}

// write is one dry-run create sent around an edge: when it was sent, when
// its answer came, and whether it was refused.
type write struct {
	sent, answered time.Time
	refused        bool
}

// edgeSummary is what writesAround measured at one edge.
type edgeSummary struct {
	at                 time.Time // the edge
	n                  int
	lastBefore, change write // the last write with the old answer, the first with the new one
}

func (s edgeSummary) String() string {
	return fmt.Sprintf("%d writes; the last answered the old way sent at edge%+v, the first answered the new way sent at edge%+v and answered at edge%+v",
		s.n, s.lastBefore.sent.Sub(s.at).Round(time.Millisecond), s.change.sent.Sub(s.at).Round(time.Millisecond), s.change.answered.Sub(s.at).Round(time.Millisecond))
}

// writesAround sends a dry-run create in scope every 100 ms from 2 s
// before edge to 3 s after it. With refuseFrom, writes must be admitted
// before the edge and refused from it; otherwise the reverse. A write
// answered before the edge must have the old answer (the clock is not
// early), and one sent a second or more after it the new one (not late by
// more than a second; Kyverno's JMESPath clock is truncated to the second).
func writesAround(t *testing.T, ns string, edge time.Time, refuseFrom bool) edgeSummary {
	t.Helper()
	time.Sleep(time.Until(edge.Add(-2 * time.Second)))
	var ws []write
	for time.Now().Before(edge.Add(3 * time.Second)) {
		w := write{sent: time.Now()}
		err := createDeployment(t.Context(), ns, "in-scope")
		w.answered = time.Now()
		switch {
		case err == nil:
		case refused(err):
			w.refused = true
		default:
			t.Fatalf("a create in scope neither admitted nor refused: %s", errText(err))
		}
		ws = append(ws, w)
		time.Sleep(100 * time.Millisecond)
	}
	s := edgeSummary{at: edge, n: len(ws)}
	changed := false
	for _, w := range ws {
		isNew := w.refused == refuseFrom
		switch {
		case isNew && w.answered.Before(edge):
			t.Errorf("a write answered %s before the edge already had the new answer (refused: %v)", edge.Sub(w.answered).Round(time.Millisecond), w.refused)
		case !isNew && !w.sent.Before(edge.Add(time.Second)):
			t.Errorf("a write sent %s after the edge still had the old answer (refused: %v)", w.sent.Sub(edge).Round(time.Millisecond), w.refused)
		}
		if isNew && !changed {
			changed, s.change = true, w
		}
		if !isNew {
			s.lastBefore = w
		}
	}
	if !changed {
		t.Errorf("no write had the new answer within 3 s of the edge")
	}
	return s
}
