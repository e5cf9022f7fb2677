//go:build e2e

package main

// The server against a real API server and Kyverno (examples/e2e/harness),
// with the operator (examples/operator) running in this process: a plan
// created through the API is put in place by the operator, its policy
// refuses `kubectl scale`, the refusal shows in the violations feed, the
// plan is canceled through the API, and its final report is downloaded.
//
//	cd examples && PROTECTIONPLANS_E2E_ASSETS=$(../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e -run E2E -v ./server/

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
)

func TestE2E_CreateRefuseFeedCancelReport(t *testing.T) {
	env := harness.MustStart(t, harness.WithoutReportsController())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	c, err := NewClient(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	installGenerated(ctx, t, env)
	createWeb(ctx, t, c, "shop")

	// The operator, in process: a 1 s tick, checkpoints every 10 s; the
	// server on loopback. Both with no target (auto: kyverno-cel here) and
	// as their ServiceAccounts.
	reportsDir := filepath.Join(t.TempDir(), "reports")
	startOperatorE2E(ctx, t, env, reportsDir, render.TargetAuto, 10*time.Second)
	api := startServerE2E(ctx, t, env, reportsDir, render.TargetAuto)

	// 1. Create an enforcing plan on shop through the API.
	code, body := api.do("POST", "/api/v1/plans", "alice", `{"metadata":{"name":"shop-freeze"},"spec":{
		"name":"Shop freeze","description":"e2e: no scaling in the shop",
		"scope":{"namespaces":["shop"]},"templates":[{"name":"scaling"}],
		"window":{"type":"permanent"},"mode":"enforce","environment":"Development"}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	var created plan.ProtectionPlan
	json.Unmarshal(body, &created)
	if created.Status.Phase != plan.PhaseActive {
		t.Fatalf("created in phase %s", created.Status.Phase)
	}

	// 2. The operator puts the policy in place; health (refreshed through
	// the API) says so.
	var policy string
	waitFor(ctx, t, "the plan's policies in place", func() (bool, string) {
		code, body := api.do("GET", "/api/v1/plans/shop-freeze/health", "victor", "")
		var h overview.HealthCheck
		json.Unmarshal(body, &h)
		if code == 200 && h.Healthy && len(h.Policies) == 1 {
			policy = h.Policies[0].Name
			return true, ""
		}
		return false, fmt.Sprintf("%d %s", code, body)
	})
	if err := env.WaitPolicyReady(ctx, "shop", policy); err != nil {
		t.Fatal(err)
	}

	// 3. Its policy refuses a change.
	_, stderr, err := env.Kubectl(ctx, "scale", "deployment", "web", "-n", "shop", "--replicas=3")
	if err == nil || !strings.Contains(stderr, "Shop freeze") {
		t.Fatalf("kubectl scale was not refused by the plan: err=%v stderr=%s", err, stderr)
	}
	t.Logf("kubectl scale: %s", strings.TrimSpace(stderr))

	// 4. The refusal is in the feed.
	waitFor(ctx, t, "the violation in the feed", func() (bool, string) {
		code, body := api.do("GET", "/api/v1/plans/shop-freeze/violations", "victor", "")
		var f overview.Feed
		json.Unmarshal(body, &f)
		for _, v := range f.Items {
			if v.Blocked && strings.Contains(v.Resource.Name, "web") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d %s", code, body)
	})

	// 5. Cancel it through the API; the operator withdraws the policy.
	if code, body := api.do("POST", "/api/v1/plans/shop-freeze/cancel", "carol", ""); code != 200 {
		t.Fatalf("cancel: %d %s", code, body)
	}
	waitFor(ctx, t, "the policy withdrawn", func() (bool, string) {
		_, _, err := env.Kubectl(ctx, "scale", "deployment", "web", "-n", "shop", "--replicas=2")
		return err == nil, fmt.Sprint(err)
	})

	// 6. The final report, written by the operator, listed and downloaded
	// through the API.
	var final reportView
	waitFor(ctx, t, "the final report", func() (bool, string) {
		code, body := api.do("GET", "/api/v1/plans/shop-freeze/reports?trigger=cancel", "victor", "")
		var l reportList
		json.Unmarshal(body, &l)
		if code == 200 && len(l.Items) == 1 {
			final = l.Items[0]
			return true, ""
		}
		return false, fmt.Sprintf("%d %s", code, body)
	})
	for _, f := range report.Formats() {
		code, body := api.do("GET", final.Downloads[string(f)], "victor", "")
		if code != 200 || len(body) == 0 {
			t.Errorf("download %s: %d %s", f, code, body)
		}
		if f == report.JSON {
			var r report.Report
			if err := json.Unmarshal(body, &r); err != nil || r.Trigger != report.TriggerCancel || r.Plan.ID != "shop-freeze" {
				t.Errorf("the JSON report: %v %+v", err, r.Plan)
			}
			t.Logf("final report %s: %d violations, %d blocked", r.ID, r.Summary.Violations, r.Summary.Blocked)
		}
	}
}

// targetFlag is the --target a user gives the operator to run with target
// on the harness: none (auto) for kyverno-cel, which auto picks where
// Kyverno 1.19 runs; the target itself for kyverno and vap, as
// config/overlays/<target> pins it (a plan carries no target).
func targetFlag(target render.Target) render.Target {
	if target == render.TargetKyvernoCEL {
		return render.TargetAuto
	}
	return target
}

// installGenerated installs what config/default would for the two
// binaries to run as their ServiceAccounts: the CRD, the ServiceAccounts,
// the generated roles and their bindings (harness.InstallGenerated).
func installGenerated(ctx context.Context, t *testing.T, env *harness.Env) {
	t.Helper()
	if err := env.InstallGenerated(ctx); err != nil {
		t.Fatal(err)
	}
}

// startOperatorE2E runs the operator in this process as its ServiceAccount
// (only the generated RBAC) with target (render.TargetAuto: the command's
// default), a 1 s tick and checkpoints every checkpoint, until the test
// ends; it returns once the first pass is done.
func startOperatorE2E(ctx context.Context, t *testing.T, env *harness.Env, reportsDir string, target render.Target, checkpoint time.Duration) {
	t.Helper()
	mgr, err := operator.NewManager(env.ConfigAs(harness.OperatorServiceAccount), operator.ManagerOptions{MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	op, err := operator.New(operator.Config{ReportsDir: reportsDir, Log: logr.Discard(), Target: target,
		Facts:              kube.Facts{ReleaseNamespace: harness.ReleaseNamespace},
		Timing:             reconcile.Timing{TickInterval: time.Second, ReportCheckpoint: checkpoint},
		NoEnforcementCheck: true, // proven in e2e/faults (TestEnforcementVerified)
	}, mgr)
	if err != nil {
		t.Fatal(err)
	}
	if target == render.TargetAuto && op.Target() != render.TargetKyvernoCEL {
		t.Errorf("with no target the operator chose %s; with Kyverno 1.19 on the harness it must choose kyverno-cel", op.Target())
	}
	opCtx, opStop := context.WithCancel(ctx)
	opDone := make(chan error, 1)
	go func() { opDone <- op.Run(opCtx) }()
	t.Cleanup(func() {
		opStop()
		select {
		case err := <-opDone:
			if err != nil {
				t.Errorf("operator: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the operator did not stop")
		}
	})
	waitFor(ctx, t, "the operator's first pass", func() (bool, string) { return op.Passes() > 0, "no pass yet" })
}

// startServerE2E serves the API on loopback in shared-secret mode, as its
// ServiceAccount (only the generated RBAC), with target
// (render.TargetAuto: the command's default), until the test ends.
func startServerE2E(ctx context.Context, t *testing.T, env *harness.Env, reportsDir string, target render.Target) *apiClient {
	t.Helper()
	roles, err := approval.ParseRoleBindings([]byte(testRoles))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(env.ConfigAs(harness.ServerServiceAccount))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Config{Client: c, Roles: roles, ReleaseNamespace: harness.ReleaseNamespace, ReportsDir: reportsDir, Target: target,
		Identity: Identity{Mode: SharedSecret, Secret: []byte(testSecret)},
		Excluded: ExcludedNamespaces{Static: []string{"kube-system"}},
		Log:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srvCtx, srvStop := context.WithCancel(ctx)
	t.Cleanup(srvStop)
	go Serve(srvCtx, ln, srv)
	return &apiClient{t: t, base: "http://" + ln.Addr().String()}
}

func createNamespace(ctx context.Context, t *testing.T, c client.Client, ns string) {
	t.Helper()
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
}

// createWeb creates namespace ns and a one-replica Deployment web in it.
func createWeb(ctx context.Context, t *testing.T, c client.Client, ns string) {
	t.Helper()
	createNamespace(ctx, t, c, ns)
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}}},
	}
	if err := c.Create(ctx, web); err != nil {
		t.Fatal(err)
	}
}

type apiClient struct {
	t    *testing.T
	base string
}

func (a *apiClient) do(method, path, user, body string) (int, []byte) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set(HeaderSecret, testSecret)
	req.Header.Set(HeaderUser, user)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// waitFor polls cond every half second for up to two minutes.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	last := ""
	for time.Now().Before(deadline) {
		ok, why := cond()
		if ok {
			return
		}
		last = why
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v (last: %.2000s)", what, ctx.Err(), last)
		case <-time.After(500 * time.Millisecond):
		}
	}
	t.Fatalf("%s: not within 2 minutes (last: %.2000s)", what, last)
}
