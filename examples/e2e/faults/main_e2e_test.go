//go:build e2e

package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// tick is the operator's tick (PROTECTION_PLAN_TICK_INTERVAL_SEC).
const tick = 2 * time.Second

// env is the control plane with Kyverno; c an admin client that knows
// ProtectionPlan; operatorBin the operator command, built once.
var (
	env         *harness.Env
	c           client.Client
	operatorBin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) (code int) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// Build the command while the control plane starts.
	binDir, err := os.MkdirTemp("", "protectionplans-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(binDir)
	operatorBin = filepath.Join(binDir, "operator")
	built := make(chan error, 1)
	go func() {
		out, err := exec.CommandContext(ctx, "go", "build", "-o", operatorBin, "../../operator").CombinedOutput()
		if err != nil {
			err = fmt.Errorf("go build ../../operator: %v\n%s", err, out)
		}
		built <- err
	}()
	e, err := harness.Start(ctx, nil, harness.WithKeepDir(), harness.WithoutReportsController())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env = e
	defer func() { code = env.Finish(code) }()
	if err := <-built; err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	scheme, err := operator.Scheme()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if c, err = client.New(env.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The CRD and the generated RBAC, as config/default installs them:
	// the operators of these tests run as the operator's ServiceAccount.
	if err := env.InstallGenerated(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("control plane + Kyverno ready, operator built, in %s (dir %s)\n", time.Since(start).Round(time.Millisecond), env.Dir)
	code = m.Run()
	fmt.Printf("faults e2e run: %s in all\n", time.Since(start).Round(time.Second))
	return code
}

// command is the operator command running as a subprocess of the test,
// which stops it by its PID only.
type command struct {
	cmd     *exec.Cmd
	log     string
	started time.Time
	done    chan struct{}
	err     error // valid once done is closed
}

// startCommand starts the operator command against the harness with
// reportsDir, a 2 s tick, one checkpoint per process, no leader election
// and no listener, its output appended to logPath; env adds variables
// (operator.CrashEnvVar). The process gets SIGKILL if the test binary
// dies.
func startCommand(t *testing.T, reportsDir, logPath string, extraEnv ...string) *command {
	t.Helper()
	return startCommandArgs(t, reportsDir, logPath, []string{"--target=" + string(render.TargetKyverno)}, extraEnv...)
}

// startCommandArgs is startCommand with the command's own flags (the
// target's among them) given by the test.
func startCommandArgs(t *testing.T, reportsDir, logPath string, args []string, extraEnv ...string) *command {
	t.Helper()
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := env.KubeconfigAs(harness.OperatorServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(operatorBin, append([]string{
		"--kubeconfig=" + kubeconfig,
		"--install-crd=false",
		"--reports-dir=" + reportsDir,
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		// The tests of this package count a plan's policies, name them per
		// template (TestCrash: <id>-scaling) and time its edges by the
		// pass: the compact layout, the clock at the enforcer and the
		// advance warnings, on by default, are TestCompactLayout's (matrix)
		// and TestClockWhileStopped's, which turns the last two on again
		// (a later flag wins).
		"--compact=false",
		"--clock=false",
		"--warnings=false",
	}, args...)...)
	cmd.Env = append(cmd.Environ(),
		reconcile.EnvTickInterval+"=2",
		reconcile.EnvReportCheckpoint+"=3300", // the first pass of a process, then the final ones
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	fmt.Fprintf(log, "+ %s %s %s\n", strings.Join(extraEnv, " "), operatorBin, strings.Join(cmd.Args[1:], " "))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &command{cmd: cmd, log: logPath, started: time.Now(), done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = log.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	return p
}

// exited waits up to timeout for the process to end on its own.
func (p *command) exited(timeout time.Duration) (error, bool) {
	select {
	case <-p.done:
		return p.err, true
	case <-time.After(timeout):
		return nil, false
	}
}

// killedBySIGKILL says whether the process ended by SIGKILL.
func (p *command) killedBySIGKILL() bool {
	var ee *exec.ExitError
	if !errors.As(p.err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// stop sends SIGTERM to the process's PID and waits; SIGKILL after 30 s.
func (p *command) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if _, ok := p.exited(30 * time.Second); ok {
		return
	}
	t.Errorf("the operator (pid %d) did not stop within 30 s of SIGTERM", p.cmd.Process.Pid)
	_ = p.cmd.Process.Kill()
	<-p.done
}

// logTail returns the last n lines of the command's log.
func (p *command) logTail(n int) string { return tailFile(p.log, n) }

// tailFile returns the last n lines of a file.
func tailFile(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// createNamespace creates ns with the Deployment web (1 replica).
func createNamespace(t *testing.T, ns string) {
	t.Helper()
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "registry.example/web:1"}}},
			},
		},
	}
	if err := c.Create(t.Context(), d); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

// newPlan is a plan as kubectl apply stores it (no status): the scaling
// template in namespace ns, in mode, over w.
func newPlan(id, ns string, mode plan.Mode, w window.Spec) *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: id, Annotations: map[string]string{plan.CreatedByAnnotation: "e2e-author"}},
		Spec: plan.Spec{
			Name: "Faults " + id, Description: "end-to-end faults",
			Scope: plan.Scope{Namespaces: []string{ns}}, Window: w, Mode: mode,
			Templates: []plan.TemplateRef{{Name: "scaling"}},
		},
	}
}

// getPlan reads a plan.
func getPlan(t *testing.T, id string) *plan.ProtectionPlan {
	t.Helper()
	p := &plan.ProtectionPlan{}
	if err := c.Get(t.Context(), types.NamespacedName{Name: id}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// planPolicies lists the kyverno.io/v1 Policies of a plan, by its label.
func planPolicies(t *testing.T, id string) []unstructured.Unstructured {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(harness.PolicyGVK.GroupVersion().WithKind("PolicyList"))
	if err := c.List(t.Context(), list, client.MatchingLabels{render.LabelPlan: id}); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// scale sets the replicas of ns/web through the /scale subresource (as
// kubectl scale does), with a server dry-run when dry; it returns the
// error of the request.
func scale(ctx context.Context, ns string, replicas int32, dry bool) error {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}}
	body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	opts := []client.SubResourcePatchOption{client.WithSubResourceBody(&autoscalingv1.Scale{})}
	if dry {
		opts = append(opts, client.DryRunAll)
	}
	return c.SubResource("scale").Patch(ctx, d, client.RawPatch(types.MergePatchType, body), opts...)
}

// refused says whether err is an admission refusal (a webhook or a
// policy denied the request), not a failure to ask.
func refused(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "denied the request") || strings.Contains(err.Error(), "denied request: "))
}

// waitFor polls f every 100 ms until it holds and returns how long it
// took; it fails the test after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, f func() (string, bool)) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		why, ok := f()
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			t.Fatalf("timed out after %s waiting for %s: %s", timeout, what, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
