//go:build e2e

package matrix

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/render"
)

// The operator command, built once for the package's runs.
var (
	buildOnce   sync.Once
	operatorBin string
	buildErr    error
)

// testCommand builds the operator command (examples/operator) and runs it
// against the cluster as its ServiceAccount (a kubeconfig that
// impersonates it), with the flags config/manager gives it (no CRD
// install) and the run's --target (none for kyverno-cel), as a second
// replica: it serves its probes and metrics on loopback,
// stays standby while the in-process operator leads (same Lease), and
// stops cleanly on SIGTERM.
func testCommand(t *testing.T) {
	buildOnce.Do(func() {
		operatorBin = filepath.Join(s.env.Dir, "operator-command") // removed with the harness's directory
		if out, err := exec.Command("go", "build", "-o", operatorBin, "../../operator").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	bin := operatorBin
	mport, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	hport, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := s.env.KubeconfigAs(harness.OperatorServiceAccount)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--install-crd=false",
		"--reports-dir=" + t.TempDir(),
		"--leader-elect=true",
		"--leader-election-namespace=" + leaseNamespace,
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(mport),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(hport),
	}
	if tgt.flag != render.TargetAuto {
		args = append(args, "--target="+string(tgt.flag))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(cmd.Environ(), "PROTECTION_PLAN_TICK_INTERVAL_SEC=2", "PROTECTION_PLAN_REPORT_CHECKPOINT_SEC=10")
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-done
		}
	}()

	get := func(port int, path string) (int, string) {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	waitFor(t, time.Minute, "the command's /readyz", func() (string, bool) {
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("the command exited: %v\n%s", err, out.String())
		default:
		}
		code, body := get(hport, "/readyz")
		return body, code == http.StatusOK
	})
	// The metrics server starts on its own, not necessarily before the
	// probes answer.
	waitFor(t, 10*time.Second, "the command's /metrics", func() (string, bool) {
		code, body := get(mport, "/metrics")
		return fmt.Sprintf("metrics: %d, protectionplans metrics present: %v", code, strings.Contains(body, "protectionplans_")),
			code == http.StatusOK && strings.Contains(body, "protectionplans_tick_duration_seconds")
	})
	time.Sleep(2 * tick)
	if strings.Contains(out.String(), "leading: reconciling plans") {
		t.Errorf("the command leads while the in-process operator holds the Lease:\n%s", out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		stopped = true
		if err != nil {
			t.Errorf("the command exited with %v after SIGTERM\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the command did not stop within 30 s of SIGTERM\n%s", out.String())
	}
	t.Logf("the operator command (--target=%s) as its ServiceAccount started (/readyz and /metrics on 127.0.0.1), stayed standby, stopped on SIGTERM", tgt.flag)
}
