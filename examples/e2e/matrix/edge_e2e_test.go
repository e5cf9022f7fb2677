//go:build e2e

package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/window"
)

// edgeExecutorName is the executor service account of config/rbac, in
// leaseNamespace, bound to config/rbac/edge-executor's ClusterRole.
const edgeExecutorName = "edge-executor"

// TestEdgeActions carries out a plan's edge actions on the real API
// server, for each target (issue 24): the Argo CD Application and Flux
// Kustomization and HelmRelease CRDs installed from the projects' released
// files (testdata/edge), the executor ServiceAccount, role and binding of
// config/rbac (harness.InstallGenerated), and an in-process operator on an
// injected clock, as its own ServiceAccount with only the generated RBAC,
// impersonating the executor. In the window: the CronJob is suspended (the
// one already suspended untouched), the Deployment scaled to 0 through
// /scale, the Application's automated sync disabled, the Kustomization and
// the HelmRelease suspended; each action's write, sent
// as the executor with the plan's extra, is admitted by the plan's
// enforce freeze, and the same write by the admin is refused. After the
// window everything is as it was. On kyverno-cel the first operator dies
// between the journal and the patches, and a second one finishes the
// start without capturing again.
func TestEdgeActions(t *testing.T) {
	if s.run != nil {
		t.Fatal("an operator is running")
	}
	ctx := t.Context()
	for _, f := range []string{"argocd-v3.5.4-application-crd.yaml", "kustomize-controller-v1.9.6-kustomizations-crd.yaml", "helm-controller-v1.6.3-helmreleases-crd.yaml"} {
		// Server-side: the Application CRD is larger than the
		// last-applied annotation of a client-side apply allows.
		if _, stderr, err := s.env.Kubectl(ctx, "apply", "--server-side", "-f", filepath.Join("testdata", "edge", f)); err != nil {
			t.Fatalf("installing %s: %v\n%s", f, err, stderr)
		}
	}
	eventually(t, time.Minute, "the Application, Kustomization and HelmRelease CRDs served", func() (string, bool) {
		_, stderr, err := s.env.Kubectl(ctx, "get", "applications.argoproj.io,kustomizations.kustomize.toolkit.fluxcd.io,helmreleases.helm.toolkit.fluxcd.io", "-A")
		return stderr, err == nil
	})
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) { edgePhase(t, target) })
	}
	if left, err := anyManagedObject(ctx); err != nil || left != "" {
		t.Errorf("managed policies left for the next tests: %s %v", left, err)
	}
}

var (
	argoApp       = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	kustomization = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	helmRelease   = schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}
	cronjobs      = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"}
	deployments   = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

func edgeObjects(ns string) string {
	return strings.ReplaceAll(`apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: NS}
spec: {schedule: "0 2 * * *", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: paused, namespace: NS}
spec: {schedule: "0 3 * * *", suspend: true, jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: nginx}]}}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop, namespace: NS}
spec:
  project: default
  source: {repoURL: "https://git.example.com/shop.git", path: deploy, targetRevision: HEAD}
  destination: {server: "https://kubernetes.default.svc", namespace: NS}
  syncPolicy: {automated: {prune: true, selfHeal: true}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: shop, namespace: NS}
spec: {interval: 10m, path: ./deploy, prune: true, sourceRef: {kind: GitRepository, name: shop}, targetNamespace: NS}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: cache, namespace: NS}
spec: {interval: 10m, chart: {spec: {chart: redis, sourceRef: {kind: HelmRepository, name: bitnami}}}}
`, "NS", ns)
}

// edgeState is the values the actions change, in one line.
func edgeState(t *testing.T, ctx context.Context, dyn dynamic.Interface, ns string) string {
	t.Helper()
	get := func(gvr schema.GroupVersionResource, name string, path ...string) string {
		u, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, found, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		if !found {
			return "absent"
		}
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("nightly.suspend=%s paused.suspend=%s web.replicas=%s app.automated.enabled=%s kustomization.suspend=%s helmrelease.suspend=%s",
		get(cronjobs, "nightly", "spec", "suspend"), get(cronjobs, "paused", "spec", "suspend"),
		get(deployments, "web", "spec", "replicas"), get(argoApp, "shop", "spec", "syncPolicy", "automated", "enabled"),
		get(kustomization, "shop", "spec", "suspend"), get(helmRelease, "cache", "spec", "suspend"))
}

// edgeOperator is an in-process operator on clk, impersonating the
// executor; onCrash, when set, is called at the edge-after-journal crash
// point.
type edgeOperator struct {
	op   *operator.Operator
	stop func()
}

// startEdgeOperator starts the operator with reportsDir as its reports
// volume: an operator started again after a crash shares it, as a pod's
// successor mounts the same claim.
func startEdgeOperator(t *testing.T, target render.Target, clk *clocktesting.FakeClock, reportsDir string, onCrash func(operator.CrashPoint)) *edgeOperator {
	t.Helper()
	mgr, err := operator.NewManager(s.env.ConfigAs(harness.OperatorServiceAccount), operator.ManagerOptions{LeaderElection: true, LeaderElectionNamespace: leaseNamespace,
		MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := harness.FileLogger(filepath.Join(t.TempDir(), "operator.log"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := operator.Config{Target: target, ReportsDir: reportsDir, Log: log, Clock: clk,
		Timing:             reconcile.Timing{TickInterval: tick, ReportCheckpoint: time.Hour},
		NoEnforcementCheck: true, Facts: kube.Facts{ReleaseNamespace: leaseNamespace},
		EdgeExecutor: leaseNamespace + ":" + edgeExecutorName}
	if onCrash != nil {
		cfg.CrashAt, cfg.OnCrash = operator.CrashEdgeAfterJournal, onCrash
	}
	op, err := operator.New(cfg, mgr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- op.Run(ctx) }()
	eo := &edgeOperator{op: op, stop: func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the operator did not stop within 30 s")
		}
	}}
	select {
	case <-mgr.Elected():
	case err := <-done:
		t.Fatalf("the operator stopped: %v", err)
	case <-time.After(2 * time.Minute):
		eo.stop()
		t.Fatal("the operator was not elected within 2 minutes")
	}
	return eo
}

// pass steps clk by d and waits for the operator's next pass.
func (eo *edgeOperator) pass(t *testing.T, clk *clocktesting.FakeClock, d time.Duration) {
	t.Helper()
	n := eo.op.Passes()
	deadline := time.Now().Add(time.Minute)
	clk.Step(d)
	for eo.op.Passes() <= n {
		if time.Now().After(deadline) {
			t.Fatalf("no pass within a minute after stepping the clock by %s", d)
		}
		time.Sleep(20 * time.Millisecond)
		if clk.HasWaiters() && eo.op.Passes() <= n {
			clk.Step(0) // wakes a timer set for now
		}
	}
}

func edgePhase(t *testing.T, target render.Target) {
	ctx := t.Context()
	short := map[render.Target]string{render.TargetKyverno: "kyv", render.TargetKyvernoCEL: "cel", render.TargetVAP: "vap"}[target]
	ns := "edge-" + short
	if err := createNamespace(ctx, s.c, ns); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := s.env.KubectlInput(ctx, edgeObjects(ns), "apply", "-f", "-"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	admin, err := dynamic.NewForConfig(s.env.Config)
	if err != nil {
		t.Fatal(err)
	}
	before := edgeState(t, ctx, admin, ns)
	if want := "nightly.suspend=false paused.suspend=true web.replicas=2 app.automated.enabled=absent kustomization.suspend=absent helmrelease.suspend=absent"; before != want {
		t.Fatalf("before: %s, want %s", before, want)
	}

	now := time.Now().Truncate(time.Second)
	clk := clocktesting.NewFakeClock(now)
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "edge-" + short},
		Spec: plan.Spec{
			Name: "Edge " + short, Scope: plan.Scope{Namespaces: []string{ns}},
			Window: window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: now.Add(-time.Minute)}, EndAt: &metav1.Time{Time: now.Add(time.Hour)}},
			Mode:   plan.ModeEnforce, ApprovalMode: plan.ApprovalAutomatic,
			Templates: []plan.TemplateRef{{Name: "all-writes", Parameters: map[string]string{
				"kinds": "CronJob,Deployment,Application.argoproj.io,Kustomization.kustomize.toolkit.fluxcd.io,HelmRelease.helm.toolkit.fluxcd.io"}}},
			// kubectl apply owns the CronJob's defaulted spec.suspend and the
			// Deployment's spec.replicas: those two actions force (without
			// it, the first run of this test recorded both as skipped,
			// "field .spec.suspend is owned by field manager
			// kubectl-client-side-apply (not forced)"); no other manager
			// owns the Argo CD and Flux fields here.
			EdgeActions: []edge.Action{{Name: edge.SuspendCronJobs, Force: true}, {Name: edge.PauseArgoCDSync}, {Name: edge.SuspendFlux},
				{Name: edge.ScaleTo, Replicas: ptr.To(int32(0)), Force: true}},
		},
	}
	began := time.Now()
	crashed := make(chan struct{}, 1)
	var onCrash func(operator.CrashPoint)
	if target == render.TargetKyvernoCEL {
		onCrash = func(operator.CrashPoint) { crashed <- struct{}{} }
	}
	reportsDir := t.TempDir()
	eo := startEdgeOperator(t, target, clk, reportsDir, onCrash)
	defer func() { eo.stop() }()
	eventually(t, 30*time.Second, "the plan created", func() (string, bool) {
		err := s.c.Create(ctx, p)
		return errText(err), err == nil
	})
	defer func() {
		// A failed run leaves no finalizer behind, and the operator sweeps
		// the plan's policies before it stops: the next tests start from a
		// cluster with no managed policy.
		bg := context.Background()
		cur := &plan.ProtectionPlan{}
		if s.c.Get(bg, client.ObjectKey{Name: p.Name}, cur) == nil && len(cur.Finalizers) > 0 {
			cur.Finalizers = nil
			_ = s.c.Update(bg, cur)
		}
		_ = s.c.Delete(bg, p)
		eventually(t, time.Minute, "the plan's policies swept", func() (string, bool) {
			objs, err := specOf(target).objects(bg, "")
			if err != nil || len(objs) > 0 {
				eo.pass(t, clk, tick)
				return fmt.Sprintf("%d objects left (%v)", len(objs), err), false
			}
			return "", true
		})
	}()
	if target == render.TargetKyvernoCEL {
		deadline := time.Now().Add(time.Minute)
		for dead := false; !dead; {
			select {
			case <-crashed:
				dead = true
			default:
				if time.Now().After(deadline) {
					t.Fatal("the operator never reached edge-after-journal")
				}
				eo.pass(t, clk, tick)
			}
		}
		eo.stop() // killed between the journal and the patches
		j := edgeJournal(t, ctx, p.Name)
		if j == nil || j.Phase != edge.Starting {
			t.Fatalf("after the crash: journal %+v, want Starting", j)
		}
		if got := edgeState(t, ctx, admin, ns); got != before {
			t.Fatalf("after the crash: %s, want nothing patched (%s)", got, before)
		}
		t.Logf("%s: the first operator died after writing the journal of %d entries, before any patch", target, len(j.Entries))
		eo = startEdgeOperator(t, target, clk, reportsDir, nil)
	}
	during := "nightly.suspend=true paused.suspend=true web.replicas=0 app.automated.enabled=false kustomization.suspend=true helmrelease.suspend=true"
	eventually(t, time.Minute, "the edge actions started", func() (string, bool) {
		if got := edgeState(t, ctx, admin, ns); got != during {
			eo.pass(t, clk, tick)
			return got + "; journal " + journalText(edgeJournal(t, ctx, p.Name)), false
		}
		return "", true
	})
	j := edgeJournal(t, ctx, p.Name)
	if j == nil || j.Phase != edge.Started {
		t.Fatalf("journal %+v, want Started", j)
	}
	captured := map[string]string{}
	for _, e := range j.Entries {
		captured[e.Target.Kind+"/"+e.Target.Name] = fmt.Sprintf("%s %s attempts=%d", e.State, e.Captured, e.Attempts)
	}
	wantCaptured := map[string]string{
		"CronJob/nightly": "Applied false attempts=1", "CronJob/paused": "Skipped true attempts=0",
		"Deployment/web": "Applied 2 attempts=1", "Application/shop": "Applied absent attempts=1", "Kustomization/shop": "Applied absent attempts=1",
		"HelmRelease/cache": "Applied absent attempts=1",
	}
	for k, want := range wantCaptured {
		if captured[k] != want {
			t.Errorf("journal entry %s: %q, want %q (captured once, before the window)", k, captured[k], want)
		}
	}
	t.Logf("%s: started in %s: %s", target, time.Since(began).Round(time.Millisecond), during)

	// Each action's write: the executor with the plan's extra is admitted
	// by the plan's own enforce freeze, the admin refused.
	stored := &plan.ProtectionPlan{}
	if err := s.c.Get(ctx, client.ObjectKey{Name: p.Name}, stored); err != nil {
		t.Fatal(err)
	}
	exec := asExecutor(t, stored.UID)
	writes := []struct {
		what string
		gvr  schema.GroupVersionResource
		name string
		sub  []string
		body string
	}{
		{"suspend a CronJob", cronjobs, "nightly", nil, `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"nightly","namespace":"NS"},"spec":{"suspend":false}}`},
		{"scale a Deployment through /scale", deployments, "web", []string{"scale"}, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web","namespace":"NS"},"spec":{"replicas":1}}`},
		{"pause an Application's automated sync", argoApp, "shop", nil, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop","namespace":"NS"},"spec":{"syncPolicy":{"automated":{"enabled":true}}}}`},
		{"suspend a Kustomization", kustomization, "shop", nil, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"shop","namespace":"NS"},"spec":{"suspend":false}}`},
		{"suspend a HelmRelease", helmRelease, "cache", nil, `{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"cache","namespace":"NS"},"spec":{"suspend":false}}`},
	}
	for _, w := range writes {
		body := []byte(strings.ReplaceAll(w.body, "NS", ns))
		opts := metav1.PatchOptions{FieldManager: edge.DefaultFieldManager, DryRun: []string{metav1.DryRunAll}}
		var adminErr error
		eventually(t, 2*time.Minute, w.what+" by the admin refused", func() (string, bool) {
			_, adminErr = admin.Resource(w.gvr).Namespace(ns).Patch(ctx, w.name, types.ApplyPatchType, body, opts, w.sub...)
			return errText(adminErr), adminErr != nil && refused(adminErr.Error())
		})
		_, err := exec.Resource(w.gvr).Namespace(ns).Patch(ctx, w.name, types.ApplyPatchType, body, opts, w.sub...)
		if err != nil {
			t.Errorf("%s as the executor with the plan's extra: %v, want admitted", w.what, err)
		}
		other := asExecutor(t, "another-plan")
		if _, err := other.Resource(w.gvr).Namespace(ns).Patch(ctx, w.name, types.ApplyPatchType, body, opts, w.sub...); err == nil || !refused(err.Error()) {
			t.Errorf("%s as the executor naming another plan: %v, want refused", w.what, err)
		}
	}

	// The window ends.
	eo.pass(t, clk, 2*time.Hour)
	eventually(t, time.Minute, "the edge actions restored", func() (string, bool) {
		if got := edgeState(t, ctx, admin, ns); got != before {
			eo.pass(t, clk, tick)
			return got, false
		}
		return "", true
	})
	eventually(t, time.Minute, "the journal deleted and the finalizer removed", func() (string, bool) {
		cur := &plan.ProtectionPlan{}
		if err := s.c.Get(ctx, client.ObjectKey{Name: p.Name}, cur); err != nil {
			return err.Error(), false
		}
		j := edgeJournal(t, ctx, p.Name)
		c := conditionReason(cur, reconcile.ConditionEdgeActions)
		if j != nil || len(cur.Finalizers) > 0 || c != reconcile.EdgeRestored {
			eo.pass(t, clk, tick)
			return fmt.Sprintf("journal %v, finalizers %v, EdgeActions %s", j != nil, cur.Finalizers, c), false
		}
		return "", true
	})
	t.Logf("%s: restored, journal and finalizer gone, %s after the start", target, time.Since(began).Round(time.Millisecond))

	// The final report lists every action and restore with its outcome
	// (written once the restores are done, from the journal kept in the
	// reports volume before its Secret was deleted).
	var rep report.Report
	eventually(t, time.Minute, "the final report with the edge actions", func() (string, bool) {
		files, _ := filepath.Glob(filepath.Join(reportsDir, p.Name, p.Name+"-"+string(report.TriggerEnd)+"-*.json"))
		if len(files) != 1 {
			eo.pass(t, clk, tick)
			return fmt.Sprintf("report files %v", files), false
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			return err.Error(), false
		}
		rep = report.Report{}
		return errText(json.Unmarshal(b, &rep)), rep.EdgeActions != nil
	})
	if n := len(rep.EdgeActions.Windows); n != 1 {
		t.Fatalf("the report lists %d windows of edge actions, want 1", n)
	}
	w := rep.EdgeActions.Windows[0]
	got := map[string]string{}
	for _, a := range w.Actions {
		for _, pt := range a.Participants {
			got[pt.Target.Kind+"/"+pt.Target.Name] = fmt.Sprintf("%s captured=%s start=%s restore=%s", a.Name, pt.Captured, pt.Start.Outcome, pt.Restore.Outcome)
		}
	}
	wantReport := map[string]string{
		"CronJob/nightly":    "suspend-cronjobs captured=false start=applied restore=restored",
		"CronJob/paused":     "suspend-cronjobs captured=true start=skipped restore=not_needed",
		"Deployment/web":     "scale-to captured=2 start=applied restore=restored",
		"Application/shop":   "pause-argocd-sync captured=absent start=applied restore=restored",
		"Kustomization/shop": "suspend-flux captured=absent start=applied restore=restored",
		"HelmRelease/cache":  "suspend-flux captured=absent start=applied restore=restored",
	}
	for k, want := range wantReport {
		if got[k] != want {
			t.Errorf("the report's %s: %q, want %q", k, got[k], want)
		}
	}
	if len(got) != len(wantReport) || w.Phase != edge.Done {
		t.Errorf("the report lists %d participants in phase %s: %v; want %d, Done", len(got), w.Phase, got, len(wantReport))
	}
	if _, err := os.Stat(filepath.Join(reportsDir, p.Name, "edge.json")); err != nil {
		t.Errorf("the finished journal kept in the reports volume: %v", err)
	}
}

// journalText is the journal's entries in one line, for a failure.
func journalText(j *edge.Journal) string {
	if j == nil {
		return "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:", j.Phase)
	for _, e := range j.Entries {
		fmt.Fprintf(&b, " [%s %s %s->%s %s %q %q]", e.Target, e.Subresource, e.Captured, e.Desired, e.State, e.Reason, e.LastError)
	}
	return b.String()
}

func conditionReason(p *plan.ProtectionPlan, typ string) string {
	for _, c := range p.Status.Conditions {
		if c.Type == typ {
			return c.Reason
		}
	}
	return ""
}

// edgeJournal reads the plan's journal from its Secret; nil when none.
func edgeJournal(t *testing.T, ctx context.Context, name string) *edge.Journal {
	t.Helper()
	p := &plan.ProtectionPlan{}
	if err := s.c.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{}
	err := s.c.Get(ctx, client.ObjectKey{Namespace: leaseNamespace, Name: edge.SecretName(reconcile.PlanRef(p))}, sec)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	j, err := edge.JournalOf(sec)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// asExecutor is a client that sends as the executor with the extra
// naming planUID, as the operator does.
func asExecutor(t *testing.T, planUID types.UID) dynamic.Interface {
	t.Helper()
	cfg := rest.CopyConfig(s.env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + leaseNamespace + ":" + edgeExecutorName,
		Extra: map[string][]string{render.EdgeExtraKey: {string(planUID)}}}
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
