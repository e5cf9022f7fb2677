//go:build linux

package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// sysProcAttr makes the kernel send SIGKILL to a child when the test binary
// dies (Pdeathsig), so an aborted test run leaves no Kyverno behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// reservePort takes an exclusive, non-blocking flock on a per-port file in
// the directory controller-runtime's envtest uses for the same purpose
// ($XDG_CACHE_HOME/kubebuilder-envtest/port-N, or under the temp dir), so
// that harnesses and envtest control planes in other test processes skip
// the ports this one handed to Kyverno, and the other way round. The file
// stays open (and locked) until this process exits; the kernel drops the
// lock then, even on a crash. It returns false when another live process
// holds the port.
func reservePort(port int) bool {
	dir := ""
	if base, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(base, "kubebuilder-envtest")
		if os.MkdirAll(dir, 0o750) != nil {
			dir = ""
		}
	}
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "kubebuilder-envtest")
		if os.MkdirAll(dir, 0o750) != nil {
			return true // no shared directory: rely on the kernel's choice
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("port-%d", port)), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return true
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return false
	}
	reservedPortFiles = append(reservedPortFiles, f) // keep open: keeps the lock
	return true
}

var reservedPortFiles []*os.File
