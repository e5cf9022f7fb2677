package harness

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
)

// SignalKyverno sends sig to Kyverno's admission controller, the process
// Start started, by its PID only (SIGSTOP and SIGCONT: a Kyverno that is
// alive but does not answer, as when it is overloaded or paused).
func (e *Env) SignalKyverno(sig os.Signal) error {
	e.startMu.Lock()
	defer e.startMu.Unlock()
	p := e.process("kyverno")
	if p == nil {
		return errors.New("harness: Kyverno's admission controller was not started")
	}
	return p.cmd.Process.Signal(sig)
}

// RestartKyvernoWith stops Kyverno's admission controller and starts it
// again with its flags, each --name=value of extra replacing the flag of
// that name (e.g. --forceFailurePolicyIgnore=true, as a chart that fails
// open starts it; =false undoes it).
func (e *Env) RestartKyvernoWith(ctx context.Context, extra ...string) error {
	if err := e.StopKyverno(); err != nil {
		return err
	}
	e.startMu.Lock()
	p := e.process("kyverno")
	name := func(flag string) string { n, _, _ := strings.Cut(flag, "="); return n }
	args := slices.DeleteFunc(slices.Clone(p.cmd.Args[1:]), func(a string) bool {
		return slices.ContainsFunc(extra, func(x string) bool { return name(x) == name(a) })
	})
	args = append(args, extra...)
	log, err := e.openLog("kyverno.log")
	if err != nil {
		e.startMu.Unlock()
		return err
	}
	np, err := startProcess(p.name, p.cmd.Path, args, p.cmd.Env, log, e.Dir)
	if err != nil {
		e.startMu.Unlock()
		return err
	}
	for i := range e.procs {
		if e.procs[i] == p {
			e.procs[i] = np
		}
	}
	e.startMu.Unlock()
	return e.waitKyvernoReady(ctx)
}
