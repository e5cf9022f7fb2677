//go:build e2e

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
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

// clockTargets are the targets whose engine reads the clock, with the
// kind of their namespaced policy.
var clockTargets = []struct {
	target render.Target
	gvk    schema.GroupVersionKind
}{
	{render.TargetKyverno, harness.PolicyGVK},
	{render.TargetKyvernoCEL, harness.NamespacedValidatingPolicyGVK},
}

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
	for _, tc := range clockTargets {
		t.Run(fmt.Sprintf("a %s policy refuses from the start and admits from the end with the operator stopped", tc.target),
			func(t *testing.T) { clockWhileStopped(t, tc.target, tc.gvk) })
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
	return writesAroundWith(t, edge, refuseFrom, func(ctx context.Context) error { return createDeployment(ctx, ns, "in-scope") })
}

// writesAroundWith is writesAround with the write given: create sends
// one dry-run create in scope.
func writesAroundWith(t *testing.T, edge time.Time, refuseFrom bool, create func(context.Context) error) edgeSummary {
	t.Helper()
	time.Sleep(time.Until(edge.Add(-2 * time.Second)))
	var ws []write
	for time.Now().Before(edge.Add(3 * time.Second)) {
		w := write{sent: time.Now()}
		err := create(t.Context())
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

// TestClockGrantWhileStopped runs, on each target with a clock, the
// operator command with --clock over an active enforce plan freezing
// creation, and writes a break-glass grant for bob into the plan's
// status ending grantAhead from then. Once the pass has put the grant's
// instants in the policy, the operator is killed by its PID: no pass runs
// at the grant's end. bob's writes (server dry-run creates as bob, every
// 100 ms around the end) must be admitted before the end instant and
// refused from it, within a second; another user's are refused
// throughout; the plan's status still lists bob among the users the
// policies were put in place with, proof that no pass ran. Restarted, the
// operator takes the spent grant out of the policy and records its expiry.
func TestClockGrantWhileStopped(t *testing.T) {
	for _, tc := range clockTargets {
		t.Run(fmt.Sprintf("a %s policy stops honouring a grant at its end with the operator stopped", tc.target),
			func(t *testing.T) { clockGrantWhileStopped(t, tc.target, tc.gvk) })
	}
}

// grantAhead is how long after it is written the grant ends: time for a
// pass to put it in place and for the operator to be stopped.
const grantAhead = 30 * time.Second

func clockGrantWhileStopped(t *testing.T, target render.Target, gvk schema.GroupVersionKind) {
	ctx := t.Context()
	id := "grant-clock-" + string(target)
	ns := id
	createNamespace(t, ns)
	dir := t.TempDir()
	reportsDir, logPath := filepath.Join(dir, "reports"), filepath.Join(dir, "operator.log")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("operator log: %s\n%s", logPath, tailFile(logPath, 60))
		}
	})
	args := []string{"--target=" + string(target), "--clock", "--lead=10m"}
	op := startCommandArgs(t, reportsDir, logPath, args)

	start := time.Now().Add(3 * time.Second).Truncate(time.Second)
	p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.TimeRange,
		StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: start.Add(time.Hour)}})
	p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
	if err := c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	policyText := func() string {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, list, client.MatchingLabels{render.LabelPlan: id}); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, it := range list.Items {
			j, _ := json.Marshal(it.Object)
			b.Write(j)
		}
		return b.String()
	}
	waitFor(t, 60*time.Second, "the plan active", func() (string, bool) {
		ph := getPlan(t, id).Status.Phase
		return string(ph), ph == plan.PhaseActive
	})

	// The grant, as the API server's grant endpoint writes it.
	granted := time.Now().Truncate(time.Second)
	grantEnd := granted.Add(grantAhead)
	for attempt := 0; ; attempt++ {
		cur := getPlan(t, id)
		ga, ex := metav1.NewTime(granted), metav1.NewTime(grantEnd)
		cur.Status.Grants = []plan.Grant{{ID: id + "-g1", Users: []string{"bob"}, Reason: "INC-4711: roll back",
			Duration: metav1.Duration{Duration: grantAhead}, RequestedBy: "bob", RequestedAt: ga,
			GrantedBy: "alice", GrantedAt: &ga, ExpiresAt: &ex}}
		cur.Status.GrantSeq = 1
		err := c.Status().Update(ctx, cur)
		if err == nil {
			break
		}
		if !apierrors.IsConflict(err) || attempt > 10 {
			t.Fatal(err)
		}
	}
	endText := grantEnd.UTC().Format(time.RFC3339)
	d := waitFor(t, 15*time.Second, "the grant's end in the policy", func() (string, bool) {
		return "not yet", strings.Contains(policyText(), endText)
	})
	pols := &unstructured.UnstructuredList{}
	pols.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := c.List(ctx, pols, client.MatchingLabels{render.LabelPlan: id}); err != nil {
		t.Fatal(err)
	}
	for _, pol := range pols.Items {
		if err := env.WaitPolicyReady(ctx, ns, pol.GetName()); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("the grant in the policies %s after it was written, %s before its end", d.Round(time.Millisecond), time.Until(grantEnd).Round(time.Millisecond))

	bob := impersonating(t, "bob")
	asBob := func(ctx context.Context) error { return createDeploymentWith(ctx, bob, ns, "in-scope") }
	if err := asBob(ctx); err != nil {
		t.Fatalf("bob's create was not admitted within his grant: %s", errText(err))
	}
	if err := createDeployment(ctx, ns, "in-scope"); !refused(err) {
		t.Fatalf("another user's create within bob's grant: %s, want refused", errText(err))
	}

	// The operator stopped by its PID, before the grant's end.
	if err := op.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, ok := op.exited(5 * time.Second); !ok {
		t.Fatalf("the operator (pid %d) did not end on SIGKILL", op.cmd.Process.Pid)
	}
	if time.Until(grantEnd) < 3*time.Second {
		t.Fatalf("setup took too long: the operator stopped %s before the grant's end", time.Until(grantEnd).Round(time.Millisecond))
	}
	t.Logf("operator (pid %d) killed %s before the grant's end", op.cmd.Process.Pid, time.Until(grantEnd).Round(time.Millisecond))

	// The grant's end: bob refused from the end instant, with no pass.
	s := writesAroundWith(t, grantEnd, true, asBob)
	t.Logf("grant end %s: %s", endText, s)
	if err := createDeployment(ctx, ns, "in-scope"); !refused(err) {
		t.Errorf("another user's create after bob's grant: %s, want refused", errText(err))
	}
	if e := getPlan(t, id).Status.Enforcement; e == nil || len(e.GrantedUsers) != 1 || e.GrantedUsers[0] != "bob" {
		t.Errorf("the plan's enforcement status %+v: a pass ran after the grant's end", e)
	}

	// Restarted: it takes the spent grant out and records the expiry.
	restarted := time.Now()
	op = startCommandArgs(t, reportsDir, logPath, args)
	d = waitFor(t, 30*time.Second, "the grant out of the policy", func() (string, bool) {
		return "still there", !strings.Contains(policyText(), endText)
	})
	waitFor(t, 30*time.Second, "the grant's expiry on the timeline", func() (string, bool) {
		for _, e := range getPlan(t, id).Status.Timeline {
			if e.Type == plan.EventGrantExpired {
				return "", true
			}
		}
		return "no GrantExpired", false
	})
	t.Logf("restarted %s after the grant's end: the grant out of the policy %s after the restart",
		restarted.Sub(grantEnd).Round(time.Millisecond), d.Round(time.Millisecond))
	if err := c.Delete(ctx, getPlan(t, id)); err != nil {
		t.Fatal(err)
	}
	op.stop(t)
}

// impersonating is an admin client acting as user (with the group
// system:masters, so that RBAC allows the write and only the plan's
// policies decide).
func impersonating(t *testing.T, user string) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: []string{"system:masters", "system:authenticated"}}
	cl, err := client.New(cfg, client.Options{Scheme: c.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// createDeploymentWith is createDeployment with a client of its own.
func createDeploymentWith(ctx context.Context, cl client.Client, ns, name string) error {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example/web:1"}}},
			},
		},
	}
	return cl.Create(ctx, d, client.DryRunAll)
}
