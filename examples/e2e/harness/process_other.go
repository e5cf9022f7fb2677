//go:build !linux

package harness

import "syscall"

// sysProcAttr: no parent-death signal outside Linux; Stop must be called.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// reservePort: outside Linux, rely on the kernel's choice of free port.
func reservePort(int) bool { return true }
