//go:build e2e

package crd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// configDir is the repository's config/.
var configDir = filepath.Join("..", "..", "..", "config")

// Who config/rbac grants to: the ServiceAccounts of config/default.
const (
	operatorSA = "system:serviceaccount:telark-system:protectionplans-operator"
	serverSA   = "system:serviceaccount:telark-system:protectionplans-server"
)

// testInstall installs the Prometheus Operator's CRDs (testdata, from its
// v0.90.1 release) and then `kubectl apply -k config/default` as a user
// would, checks that every object the kustomization builds is there, that
// each overlay passes a server dry run, and what the two ServiceAccounts
// may and may not do.
func testInstall(t *testing.T, env *harness.Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	kubectl := func(args ...string) string {
		t.Helper()
		out, stderr, err := env.Kubectl(ctx, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		return out
	}
	kubectl("apply", "--server-side", "-f", filepath.Join("testdata", "prometheus-operator-v0.90.1"))
	kubectl("wait", "--for=condition=Established", "--timeout=60s",
		"crd/servicemonitors.monitoring.coreos.com", "crd/prometheusrules.monitoring.coreos.com")

	// Before kustomize's objects exist (a Deployment's selector cannot
	// change): the Helm chart's output with its defaults (test/install's
	// golden file, rendered by helm's SDK) passes a server dry run.
	kubectl("create", "namespace", "telark-system")
	chart := filepath.Join("..", "..", "..", "test", "install", "testdata", "default.yaml")
	if out := kubectl("apply", "--dry-run=server", "-f", chart); strings.Count(out, "(server dry run)") < 20 {
		t.Errorf("the chart's output: %s", out)
	}

	start := time.Now()
	kubectl("apply", "-k", filepath.Join(configDir, "default"))
	t.Logf("kubectl apply -k config/default: %s", time.Since(start).Round(time.Millisecond))

	built := kubectl("kustomize", filepath.Join(configDir, "default"))
	want := strings.Count("\n"+built, "\nkind: ")
	got := strings.Fields(kubectl("get", "-k", filepath.Join(configDir, "default"), "-o", "name"))
	if len(got) != want || want < 25 {
		t.Errorf("kubectl get -k config/default lists %d objects, the kustomization builds %d:\n%s", len(got), want, strings.Join(got, "\n"))
	}
	for _, kind := range []string{"deployment.apps/protectionplans-operator", "deployment.apps/protectionplans-server",
		"servicemonitor.monitoring.coreos.com/protectionplans-operator", "prometheusrule.monitoring.coreos.com/protectionplans",
		"networkpolicy.networking.k8s.io/protectionplans-operator", "clusterrole.rbac.authorization.k8s.io/protectionplans-operator",
		"validatingadmissionpolicy.admissionregistration.k8s.io/protectionplans-grants"} {
		if !strings.Contains(strings.Join(got, "\n"), kind) {
			t.Errorf("%s is not installed", kind)
		}
	}

	for _, target := range render.Targets() {
		overlay := filepath.Join(configDir, "overlays", string(target))
		out := kubectl("apply", "-k", overlay, "--dry-run=server", "-o", "yaml")
		if !strings.Contains(out, "--target="+string(target)) {
			t.Errorf("config/overlays/%s does not pass --target=%s", target, target)
		}
	}

	// What each ServiceAccount may do, by sentence; the run below proves
	// the operator's role is enough.
	for _, c := range []struct {
		name, as, verb, resource, namespace string
		want                                bool
	}{
		{"the operator writes Kyverno CEL policies", operatorSA, "create", "namespacedvalidatingpolicies.policies.kyverno.io", "shop", true},
		{"the operator writes ValidatingAdmissionPolicies", operatorSA, "patch", "validatingadmissionpolicies.admissionregistration.k8s.io", "", true},
		{"the operator writes plans' status", operatorSA, "update", "protectionplans.telark.io/status", "", true},
		{"the operator does not create plans", operatorSA, "create", "protectionplans.telark.io", "", false},
		{"the operator does not read a Secret", operatorSA, "get", "secrets", "shop", false},
		{"the operator does not touch CRDs (config/ installs the CRD)", operatorSA, "patch", "customresourcedefinitions.apiextensions.k8s.io", "", false},
		{"the operator holds its Lease in telark-system", operatorSA, "update", "leases.coordination.k8s.io", "telark-system", true},
		{"the operator holds no Lease elsewhere", operatorSA, "update", "leases.coordination.k8s.io", "default", false},
		{"the server creates plans", serverSA, "create", "protectionplans.telark.io", "", true},
		{"the server writes no policy", serverSA, "create", "policies.kyverno.io", "shop", false},
		{"the server edits the categories ConfigMap in telark-system", serverSA, "update", "configmaps", "telark-system", true},
		{"the server edits no ConfigMap elsewhere", serverSA, "update", "configmaps", "shop", false},
		{"the server does not read a Secret", serverSA, "get", "secrets", "shop", false},
	} {
		args := []string{"auth", "can-i", c.verb, c.resource, "--as=" + c.as}
		if c.namespace != "" {
			args = append(args, "-n", c.namespace)
		}
		out, _, _ := env.Kubectl(ctx, args...) // exit status 1 means no
		if got := strings.TrimSpace(out) == "yes"; got != c.want {
			t.Errorf("%s: kubectl %s = %q", c.name, strings.Join(args, " "), strings.TrimSpace(out))
		}
	}
}

// testOperatorWithGeneratedRBAC runs the operator in this process as its
// ServiceAccount (impersonated: only config/rbac's permissions), with no
// CRD install, on the kyverno-cel target, and checks that a plan scoped
// by application (which reads the member kinds) becomes active with its
// policy in place and no failed step.
func testOperatorWithGeneratedRBAC(t *testing.T, env *harness.Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	manifest := `apiVersion: v1
kind: Namespace
metadata:
  name: rbac-shop
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: rbac-shop
  labels: {app.kubernetes.io/instance: rbac-app}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1}]}
---
apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata:
  name: rbac-freeze
  annotations: {telark.io/created-by: e2e-admin}
spec:
  name: RBAC freeze
  scope: {applications: [rbac-app]}
  templates: [{name: image-change}]
  window: {type: permanent}
  mode: enforce
`
	if _, stderr, err := env.KubectlInput(ctx, manifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("creating the plan: %v\n%s", err, stderr)
	}
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: operatorSA}
	mgr, err := operator.NewManager(cfg, operator.ManagerOptions{LeaderElection: true, LeaderElectionNamespace: "telark-system",
		MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(env.Dir, "operator-rbac.log")
	log, closeLog, err := harness.FileLogger(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLog()
	op, err := operator.New(operator.Config{Target: render.TargetKyvernoCEL, ReportsDir: t.TempDir(), InstallCRD: false, Log: log,
		Facts:  kube.Facts{ReleaseNamespace: "telark-system"},
		Timing: reconcile.Timing{TickInterval: 2 * time.Second, ReportCheckpoint: 10 * time.Second}}, mgr)
	if err != nil {
		t.Fatal(err)
	}
	opCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- op.Run(opCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("the operator stopped with %v", err)
		}
	}()

	admin, err := client.New(env.Config, client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		t.Fatal(err)
	}
	var p plan.ProtectionPlan
	deadline := time.Now().Add(90 * time.Second)
	for {
		if err := admin.Get(ctx, client.ObjectKey{Name: "rbac-freeze"}, &p); err != nil {
			t.Fatal(err)
		}
		if p.Status.Phase == plan.PhaseActive || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if p.Status.Phase != plan.PhaseActive {
		t.Fatalf("with only the generated RBAC the plan is %q after 90 s, want active; conditions %+v\noperator log:\n%s", p.Status.Phase, p.Status.Conditions, tail(logPath))
	}
	var list unstructured.UnstructuredList
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "policies.kyverno.io", Version: "v1", Kind: "NamespacedValidatingPolicyList"})
	if err := admin.List(ctx, &list, client.InNamespace("rbac-shop"), client.HasLabels{render.LabelPlan}); err != nil || len(list.Items) == 0 {
		t.Errorf("no policy in rbac-shop (%v)", err)
	}
	if b, _ := os.ReadFile(logPath); strings.Contains(strings.ToLower(string(b)), "forbidden") {
		t.Errorf("the operator was refused something with the generated RBAC:\n%s", tail(logPath))
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// testAutoTarget starts operators with the target auto (the command's
// default): with Kyverno 1.19 on the harness it picks kyverno-cel; with
// Kyverno's policy CRDs deleted, vap. It runs last: Kyverno's CRDs do
// not come back.
func testAutoTarget(t *testing.T, env *harness.Env) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	chosen := func() render.Target {
		t.Helper()
		mgr, err := operator.NewManager(env.Config, operator.ManagerOptions{MetricsBindAddress: "0", HealthProbeBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		op, err := operator.New(operator.Config{Target: render.TargetAuto, ReportsDir: t.TempDir()}, mgr)
		if err != nil {
			t.Fatal(err)
		}
		return op.Target()
	}
	if got := chosen(); got != render.TargetKyvernoCEL {
		t.Errorf("with Kyverno 1.19 an operator with no --target picks %s, want kyverno-cel", got)
	}
	crds := []string{"crd/namespacedvalidatingpolicies.policies.kyverno.io", "crd/policies.kyverno.io"}
	if _, stderr, err := env.Kubectl(ctx, append([]string{"delete", "--wait=true", "--timeout=90s"}, crds...)...); err != nil {
		t.Fatalf("deleting Kyverno's policy CRDs: %v\n%s", err, stderr)
	}
	if got := chosen(); got != render.TargetVAP {
		t.Errorf("with Kyverno's policy CRDs absent an operator with no --target picks %s, want vap", got)
	}
}
