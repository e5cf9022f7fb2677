package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one subprocess the harness started. It is stopped by its PID
// only: the harness never signals anything it did not start.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	waitErr error         // valid after done is closed
}

// startProcess starts bin with args and env, its stdout and stderr appended
// to log. The process gets SIGKILL if the test binary dies without calling
// Stop (Linux), so a crashed test leaves no Kyverno behind.
func startProcess(name, bin string, args, env []string, log *os.File, workDir string) (*process, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.Dir = workDir
	cmd.SysProcAttr = sysProcAttr()
	fmt.Fprintf(log, "+ %s %s\n", bin, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: log.Name(), done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// stop sends SIGTERM to the process's PID, waits up to grace, then sends
// SIGKILL and waits for it to be reaped.
func (p *process) stop(grace time.Duration) error {
	if done, _ := p.exited(); done {
		return nil
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGTERM %s (pid %d): %w", p.name, p.cmd.Process.Pid, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	if err := p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGKILL %s (pid %d): %w", p.name, p.cmd.Process.Pid, err)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.cmd.Process.Pid)
	}
}

// runCommand runs a short-lived command and returns its output.
func runCommand(ctx context.Context, bin string, args []string, dir, stdin string) (string, string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%s %s: %w: %s", bin, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), stderr.String(), err
}

// tailFile returns the last n lines of a file ("" if it cannot be read).
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Port allocation. Every listener of every process is on 127.0.0.1, on a
// port chosen now: two harnesses (two go test processes) may run at once on
// one machine, so nothing is hard-coded. A port is taken from the kernel
// (listen on 127.0.0.1:0, close), then reserved the way envtest reserves
// the ports of etcd and kube-apiserver (a flock held until the process
// exits, see reservePort), which covers the short window between our close
// and Kyverno's bind against other harnesses and envtests.
var (
	portsMu   sync.Mutex
	portsUsed = map[int]bool{}
)

func freePort() (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if err := l.Close(); err != nil {
			return 0, err
		}
		if portsUsed[port] {
			continue
		}
		if !reservePort(port) {
			continue
		}
		portsUsed[port] = true
		return port, nil
	}
	return 0, errors.New("no free port on 127.0.0.1 after 100 tries")
}
