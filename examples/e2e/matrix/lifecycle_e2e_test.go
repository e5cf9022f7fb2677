//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/window"
)

// testLifecycle drives plans across their lifecycle against the real
// cluster with the target under test, each in its own namespace, in
// parallel: window edges, cancel, approval, a failure retried, drift
// repaired; leader election once (it does not depend on the target).
func testLifecycle(t *testing.T) {
	if err := createStorageClass(t.Context(), s.c); err != nil {
		t.Fatal(err)
	}
	t.Run("window edges: nothing before the start, refused inside, every policy removed at the end", testWindowEdges)
	t.Run("an allow window admits a change inside it and refuses it once it has closed", testAllowWindow)
	t.Run("a holiday exception admits a change on the holiday and refuses it the day after", testHolidayException)
	t.Run("cancel removes the policies at once and writes the cancel report", testCancel)
	t.Run("a required approval deploys nothing until approved", testApproval)
	t.Run("a namespace that does not exist fails the plan, retried until it exists", testFailureRetried)
	t.Run("drift is repaired within one tick", testHealthRepairs)
	if tgt.target == render.TargetKyverno {
		t.Run("only the leader moves plans", testLeaderElection)
	}
}

// lifecycleNamespace creates ns with the deployment d-scale (1 replica).
func lifecycleNamespace(t *testing.T, ns string) {
	t.Helper()
	if err := createNamespace(t.Context(), s.c, ns); err != nil {
		t.Fatal(err)
	}
	if err := s.c.Create(t.Context(), objSet{}.deployment(ns, "d-scale")); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func getPlan(t *testing.T, id string) *plan.ProtectionPlan {
	t.Helper()
	p := &plan.ProtectionPlan{}
	if err := s.c.Get(t.Context(), types.NamespacedName{Name: id}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// planPolicies lists the live policies of a plan (by its label): its
// Policies, NamespacedValidatingPolicies or ValidatingAdmissionPolicies
// (a vap policy's binding is listed by planObjects only).
func planPolicies(t *testing.T, id string) []unstructured.Unstructured {
	t.Helper()
	var out []unstructured.Unstructured
	for _, u := range planObjects(t, id) {
		if u.GroupVersionKind() == tgt.policyKind() {
			out = append(out, u)
		}
	}
	return out
}

// planObjects lists every live object of a plan (by its label).
func planObjects(t *testing.T, id string) []unstructured.Unstructured {
	t.Helper()
	objs, err := tgt.objects(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// waitFor polls f every 50 ms and returns how long it took.
func waitFor(t *testing.T, timeout time.Duration, what string, f func() (string, bool)) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		why, ok := f()
		if ok {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %s", timeout, what, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dryScale runs `kubectl scale --dry-run=server` of d-scale in ns and
// says whether it was refused.
func dryScale(t *testing.T, ns string) (denied bool, out string) {
	t.Helper()
	_, stderr, err := s.env.Kubectl(t.Context(), "-n", ns, "scale", "deployment/d-scale", "--replicas=5", "--dry-run=server")
	if err != nil && !refused(stderr) {
		t.Fatalf("kubectl scale: %v", err)
	}
	return err != nil, stderr
}

// explainScale asks render.Explain about the same scale as dryScale.
func explainScale(t *testing.T, p *plan.ProtectionPlan, ns string) render.Decision {
	t.Helper()
	scale := func(r int64) map[string]any {
		return map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
			"metadata": map[string]any{"name": "d-scale", "namespace": ns}, "spec": map[string]any{"replicas": r}}
	}
	d, err := render.Explain(render.Input{Plan: p, Now: time.Now(), Target: tgt.target}, render.Request{
		Operation: render.OpUpdate, Kind: gvkDeployment, Subresource: "scale", Namespace: ns, Name: "d-scale",
		Object: scale(5), OldObject: scale(1), UserInfo: userInfo,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// storeStatus writes a plan's status with the resourceVersion read, as an
// embedder stores approval.Approve or plan.Cancel (retrying on conflict
// with the operator's own writes).
func storeStatus(t *testing.T, id string, change func(p *plan.ProtectionPlan) (plan.Result, error)) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		p := getPlan(t, id)
		res, err := change(p)
		if err != nil {
			t.Fatal(err)
		}
		err = s.c.Status().Update(t.Context(), res.Plan)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) || attempt > 10 {
			t.Fatal(err)
		}
	}
}

// finalReports returns the final report files of a plan for a trigger.
func finalReports(t *testing.T, id string, trig report.Trigger) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(s.run.reportsDir, id, id+"-"+string(trig)+"-*"))
	return files
}

// checkReport checks the four files of a final report and returns it.
func checkReport(t *testing.T, id string, trig report.Trigger) report.Report {
	t.Helper()
	files := finalReports(t, id, trig)
	var exts []string
	var rep report.Report
	for _, f := range files {
		exts = append(exts, filepath.Ext(f))
		if filepath.Ext(f) == ".json" {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(exts)
	if want := []string{".csv", ".html", ".json", ".md"}; !slices.Equal(exts, want) {
		t.Fatalf("%s report files %v, want one per format", trig, files)
	}
	if rep.Trigger != trig || rep.Plan.ID != id {
		t.Errorf("report %s: trigger %s, plan %s", rep.ID, rep.Trigger, rep.Plan.ID)
	}
	t.Logf("%s report %s: %d policies, %d violations (%d blocked), %d timeline events, active %ds",
		trig, rep.ID, len(rep.Policies), rep.Summary.Violations, rep.Summary.Blocked, len(rep.Timeline.Events), rep.Summary.ActiveSeconds)
	return rep
}

func testWindowEdges(t *testing.T) {
	t.Parallel()
	ns, id := tgt.id("lc-window"), tgt.id("lc-window")
	lifecycleNamespace(t, ns)
	start := time.Now().Add(10 * time.Second).Truncate(time.Second)
	end := start.Add(25 * time.Second)
	p := matrixPlan(id, "Lifecycle window", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
	p.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}}
	if err := s.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the plan scheduled", func() (string, bool) {
		ph := getPlan(t, id).Status.Phase
		return string(ph), ph == plan.PhaseScheduled
	})
	// Before the start: nothing deployed, the change admitted, and Explain
	// agrees (a plan that is not active has no policies).
	if n := len(planPolicies(t, id)); n != 0 {
		t.Fatalf("%d policies before the window", n)
	}
	if refused, out := dryScale(t, ns); refused {
		t.Fatalf("refused before the window: %s", out)
	}
	if d := explainScale(t, getPlan(t, id), ns); d.Blocked {
		t.Errorf("Explain blocks before the window: %s", d.Reason)
	}
	if time.Until(start) < time.Second {
		t.Fatalf("the checks before the window took too long (the window started %s ago)", -time.Until(start))
	}

	// At the start: the edge timer, not the tick, puts the policy in place.
	time.Sleep(time.Until(start))
	deployed := waitFor(t, 3*tick, "the policy created at the start", func() (string, bool) {
		return "", len(planPolicies(t, id)) == 1
	})
	pols := planPolicies(t, id)
	lateBy := pols[0].GetCreationTimestamp().Sub(start)
	enforced := waitFor(t, time.Minute, "the admission chain refusing the scale", func() (string, bool) {
		refused, _ := dryScale(t, ns)
		return "", refused
	})
	live := getPlan(t, id)
	if live.Status.Phase != plan.PhaseActive {
		t.Errorf("phase %s inside the window", live.Status.Phase)
	}
	d := explainScale(t, live, ns)
	_, stderr, err := s.env.Kubectl(t.Context(), "-n", ns, "scale", "deployment/d-scale", "--replicas=5")
	if err == nil || !d.Blocked || !strings.Contains(stderr, d.Message) {
		t.Errorf("a real scale inside the window: err=%v, Explain blocked=%v; want refused with %q: %s", err, d.Blocked, d.Message, stderr)
	}
	t.Logf("start: policy created %s after the window opened (observed %s after sleeping to the start), refused %s later",
		lateBy.Round(time.Millisecond), deployed.Round(time.Millisecond), enforced.Round(time.Millisecond))

	// At the end: every policy removed, the change admitted again, an end report.
	time.Sleep(time.Until(end))
	removed := waitFor(t, 3*tick, "every policy removed at the end", func() (string, bool) {
		return "", len(planObjects(t, id)) == 0
	})
	admitted := waitFor(t, time.Minute, "the scale admitted again", func() (string, bool) {
		refused, _ := dryScale(t, ns)
		return "", !refused
	})
	if ph := getPlan(t, id).Status.Phase; ph != plan.PhaseTerminated {
		t.Errorf("phase %s after the window", ph)
	}
	t.Logf("end: every policy removed %s after the window closed, the scale admitted again %s later",
		removed.Round(time.Millisecond), admitted.Round(time.Millisecond))
	if removed > tick {
		t.Errorf("the policies outlived the window by %s (more than a tick)", removed)
	}
	waitFor(t, 3*tick, "the end report", func() (string, bool) { return "", len(finalReports(t, id, report.TriggerEnd)) == 4 })
	rep := checkReport(t, id, report.TriggerEnd)
	switch {
	case tgt.vap() && rep.Summary.Violations != 0:
		t.Errorf("the end report of a vap plan holds %d violations: the API server writes no event to read them from", rep.Summary.Violations)
	case tgt.vap():
		t.Logf("the end report of a vap plan holds no violation: the refused scale left no event (by design)")
	case rep.Summary.Blocked < 1:
		t.Errorf("the end report holds no blocked change (the refused scale): %+v", rep.Summary)
	}
}

func testCancel(t *testing.T) {
	t.Parallel()
	ns, id := tgt.id("lc-cancel"), tgt.id("lc-cancel")
	lifecycleNamespace(t, ns)
	p := matrixPlan(id, "Lifecycle cancel", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
	if err := s.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "the admission chain refusing the scale", func() (string, bool) {
		refused, _ := dryScale(t, ns)
		return "", refused
	})
	storeStatus(t, id, func(p *plan.ProtectionPlan) (plan.Result, error) { return plan.Cancel(p, "e2e-canceler", time.Now()) })
	removed := waitFor(t, 3*tick, "the policies removed after the cancel", func() (string, bool) {
		return "", len(planObjects(t, id)) == 0
	})
	t.Logf("cancel: every policy removed %s after the cancel was stored (tick %s)", removed.Round(time.Millisecond), tick)
	if removed > tick {
		t.Errorf("the policies outlived the cancel by %s (more than a tick)", removed)
	}
	waitFor(t, time.Minute, "the scale admitted again", func() (string, bool) {
		refused, _ := dryScale(t, ns)
		return "", !refused
	})
	waitFor(t, 3*tick, "the cancel report", func() (string, bool) { return "", len(finalReports(t, id, report.TriggerCancel)) == 4 })
	rep := checkReport(t, id, report.TriggerCancel)
	if rep.Plan.Phase != plan.PhaseCanceled {
		t.Errorf("report phase %s", rep.Plan.Phase)
	}
}

func testApproval(t *testing.T) {
	t.Parallel()
	ns, id := tgt.id("lc-approval"), tgt.id("lc-approval")
	lifecycleNamespace(t, ns)
	p := matrixPlan(id, "Lifecycle approval", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
	p.Spec.Environment = plan.EnvironmentProduction
	if err := s.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the plan pending approval", func() (string, bool) {
		ph := getPlan(t, id).Status.Phase
		return string(ph), ph == plan.PhasePendingApproval
	})
	// Three ticks: nothing deployed, the scale admitted.
	time.Sleep(3 * tick)
	pending := getPlan(t, id)
	if pending.Spec.ApprovalMode != plan.ApprovalRequired {
		t.Errorf("approvalMode %q, want required (derived for Production)", pending.Spec.ApprovalMode)
	}
	if n := len(planPolicies(t, id)); n != 0 || pending.Status.Phase != plan.PhasePendingApproval {
		t.Fatalf("pending plan: phase %s, %d policies", pending.Status.Phase, n)
	}
	if refused, out := dryScale(t, ns); refused {
		t.Fatalf("refused while pending approval: %s", out)
	}
	// The creator may not approve it.
	owner := func(name string) approval.Caller {
		return approval.Caller{Username: name, Roles: []approval.Role{approval.Owner()}}
	}
	if _, err := approval.Approve(pending, pending.Status.ApprovalRequest.ID, owner("e2e-author"), time.Now()); plan.CodeOf(err) != 403 {
		t.Errorf("the creator approving: %v, want 403", err)
	}
	approved := time.Now()
	storeStatus(t, id, func(p *plan.ProtectionPlan) (plan.Result, error) {
		return approval.Approve(p, p.Status.ApprovalRequest.ID, owner("olivia"), time.Now())
	})
	deployed := waitFor(t, 3*tick, "the policy deployed after the approval", func() (string, bool) {
		return "", len(planPolicies(t, id)) == 1
	})
	enforced := waitFor(t, time.Minute, "the admission chain refusing the scale", func() (string, bool) {
		refused, _ := dryScale(t, ns)
		return "", refused
	})
	if ph := getPlan(t, id).Status.Phase; ph != plan.PhaseActive {
		t.Errorf("phase %s after approval", ph)
	}
	t.Logf("approval: nothing deployed for %s while pending; policy deployed %s after the approval was stored, enforced %s later",
		3*tick, deployed.Round(time.Millisecond), enforced.Round(time.Millisecond))
	_ = approved
}

func testFailureRetried(t *testing.T) {
	t.Parallel()
	ns, id := tgt.id("lc-late"), tgt.id("lc-late")
	p := matrixPlan(id, "Lifecycle late namespace", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
	if err := s.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the plan failed", func() (string, bool) {
		p := getPlan(t, id)
		c := findCondition(p, plan.ConditionReady)
		return fmt.Sprint(p.Status.Phase, c), p.Status.Phase == plan.PhaseFailed && c != nil && c.Reason == plan.ReasonNamespaceGone
	})
	// A lasting failure: retried every tick, written once.
	rv := getPlan(t, id).ResourceVersion
	time.Sleep(3 * tick)
	if again := getPlan(t, id).ResourceVersion; again != rv {
		t.Errorf("the failed plan was rewritten while its failure lasted (resourceVersion %s -> %s)", rv, again)
	}
	lifecycleNamespace(t, ns)
	recovered := waitFor(t, 3*tick, "the plan active with its policy once the namespace exists", func() (string, bool) {
		p := getPlan(t, id)
		return string(p.Status.Phase), p.Status.Phase == plan.PhaseActive && len(planPolicies(t, id)) == 1
	})
	t.Logf("failure: NamespaceGone, no write for %s while it lasted; active with its policy %s after the namespace was created",
		3*tick, recovered.Round(time.Millisecond))
	waitFor(t, 3*tick, "a Recovered timeline event", func() (string, bool) {
		return "", slices.ContainsFunc(getPlan(t, id).Status.Timeline, func(e plan.TimelineEvent) bool { return e.Type == plan.EventRecovered })
	})
}

func testLeaderElection(t *testing.T) {
	t.Parallel()
	w := &writeCounter{}
	var addr string
	mgr, op, err := newOperator(s.env, tgt.flag, t.TempDir(), w, filepath.Join(s.env.Dir, "operator-standby.log"), &addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	from := time.Now()
	go func() { done <- op.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("the standby operator: %v", err)
		}
	}()
	select {
	case <-mgr.Elected():
		t.Fatal("a second operator was elected while the first leads")
	case <-time.After(4 * tick):
	}
	if op.Passes() != 0 {
		t.Errorf("the standby made %d passes", op.Passes())
	}
	// It wrote nothing (config/crd installs the CRD, as in a cluster).
	for _, e := range w.since(from) {
		t.Errorf("the standby wrote %s %s", e.method, e.path)
	}
	t.Logf("leader election: a second operator stayed standby for %s (0 passes, no writes)", 4*tick)
}
