//go:build e2e

package matrix

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCommand builds the operator command (examples/operator) and runs it
// against the cluster with its flags, as a second replica: it installs the
// CRD, serves its probes and metrics on loopback, stays standby while the
// in-process operator leads (same Lease), and stops cleanly on SIGTERM.
func TestCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "operator")
	build := exec.Command("go", "build", "-o", bin, "../../operator")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mport, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	hport, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin,
		"--kubeconfig="+s.env.KubeconfigPath,
		"--target=kyverno",
		"--reports-dir="+t.TempDir(),
		"--leader-elect=true",
		"--leader-election-namespace="+leaseNamespace,
		"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(mport),
		"--health-probe-bind-address=127.0.0.1:"+strconv.Itoa(hport),
	)
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
	if code, body := get(mport, "/metrics"); code != http.StatusOK || !strings.Contains(body, "protectionplans_tick_duration_seconds") {
		t.Errorf("metrics: %d, protectionplans metrics present: %v", code, strings.Contains(body, "protectionplans_"))
	}
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
	t.Logf("the operator command started (CRD applied, /readyz and /metrics on 127.0.0.1), stayed standby, stopped on SIGTERM")
}
