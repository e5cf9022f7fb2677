package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/examples/internal/buildinfo"
	"github.com/telark/protectionplans/window"
)

// Exit codes, as kubectl diff uses them: 0 when there is nothing to say,
// 1 when the answer is "no" (the plan is invalid, or a rule of the plan
// applies to the request explained), 2 when protectctl could not answer.
const (
	// exitOK: valid, rendered, admitted.
	exitOK = 0
	// exitFailed: the plan is invalid (it cannot be decoded, validated,
	// created or rendered), or explain found that a rule applies (blocked
	// in enforce mode, recorded in audit mode).
	exitFailed = 1
	// exitUsage: bad flags or arguments, a file that cannot be read, a
	// malformed --cluster, --request or --ledger file, an unknown target.
	exitUsage = 2
)

// exitError ends a command with a code. A nil err prints nothing: the
// command's output already said why (validate's problems, explain's
// decision).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is exit status 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// failedf is exit status 1 with a message.
func failedf(format string, args ...any) error {
	return &exitError{code: exitFailed, err: fmt.Errorf(format, args...)}
}

// exitSilently ends with code and no message.
func exitSilently(code int) error { return &exitError{code: code} }

// app is what every command shares: the streams and the wall clock, which
// only supplies the default of --now (everything is computed by passing
// that instant into the library).
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	clock          func() time.Time
}

// run is main without os: tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, clock: time.Now}
	return a.run(args)
}

func (a *app) run(args []string) int {
	root := a.newRoot()
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// Cobra's own errors: unknown commands, missing flags, arguments.
		ee = &exitError{code: exitUsage, err: fmt.Errorf("%s (see %s --help)", oneLine(err.Error()), cmd.CommandPath())}
	}
	errs := []error{ee.err}
	if list, ok := ee.err.(errorList); ok {
		errs = list
	}
	for _, e := range errs {
		if e != nil {
			fmt.Fprintf(a.stderr, "protectctl: %s\n", oneLine(e.Error()))
		}
	}
	return ee.code
}

// errorList is several errors, one line of stderr each (a plan file's
// documents, several files).
type errorList []error

func (l errorList) Error() string { return errors.Join(l...).Error() }

// joinExit ends with every error of errs, each on its line, and the
// highest of their exit codes (a usage error outranks an invalid plan);
// nil when errs is empty.
func joinExit(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	code, list := exitFailed, errorList{}
	for _, err := range errs {
		var ee *exitError
		if errors.As(err, &ee) {
			code, err = max(code, ee.code), ee.err
		}
		if err != nil {
			list = append(list, err)
		}
	}
	return &exitError{code: code, err: list}
}

// oneLine keeps an error on one line of stderr, whatever text it quotes.
func oneLine(s string) string {
	var parts []string
	for _, line := range strings.Split(strings.ReplaceAll(s, "\r", `\r`), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, "; ")
}

func (a *app) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "protectctl",
		Short: "Lint and preview Kubernetes change freezes (protection plans), offline",
		Long: `protectctl lints and previews protection plans without a cluster: it
validates a plan file, renders the policies the plan would have in the
cluster at an instant, lists its window's intervals (and exports them as
iCalendar), explains whether a change would be blocked, builds a report
from a violations ledger, lists the template catalog, runs declarative
tests of plans, and lints plans' schedules together (overlaps, crons that
never fire, DST, freezes that never end). -f takes files,
directories and multi-document YAML streams; every document is a plan.

Exit status: 0 when valid, rendered or admitted; 1 when the plan is
invalid, or explain finds that a rule applies (blocked or recorded);
2 on usage errors (bad flags, unreadable files, unknown targets).`,
		Example: `  protectctl render -f plans/holiday-freeze.yaml --now 2026-12-25T12:00:00+01:00 | kubectl apply -f -
  protectctl validate -f plans/nightly-image-freeze.yaml --cluster cli/samples/cluster.yaml`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = buildinfo.Read().Version
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetIn(a.stdin)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErrorf("%s: %v (see %s --help)", c.CommandPath(), err, c.CommandPath())
	})
	root.AddCommand(
		a.validateCmd(),
		a.renderCmd(),
		a.windowsCmd(),
		a.explainCmd(),
		a.reportCmd(),
		a.templatesCmd(),
		a.versionCmd(),
		a.testCmd(),
		a.lintCmd(),
	)
	return root
}

// nowFlag is --now: an RFC 3339 instant or a date, the wall clock by
// default.
type nowFlag struct{ value string }

func (f *nowFlag) register(c *cobra.Command, what string) {
	c.Flags().StringVar(&f.value, "now", "", what+" (RFC 3339, e.g. 2026-12-25T12:00:00+01:00, or a date, 2026-12-25, midnight UTC; default: the current time)")
}

func (f *nowFlag) get(a *app) (time.Time, error) {
	if f.value == "" {
		return a.clock(), nil
	}
	return parseInstant("--now", f.value)
}

// parseInstant reads an instant flag as the API reads its instants
// (window.ParseInstant): RFC 3339, or a date.
func parseInstant(flag, v string) (time.Time, error) {
	t, err := window.ParseInstant(field.NewPath(flag), v)
	if err != nil {
		return t, &exitError{code: exitUsage, err: err}
	}
	return t, nil
}

// fileFlag registers -f/--filename, required and repeatable.
func fileFlag(c *cobra.Command, into *[]string) {
	c.Flags().StringSliceVarP(into, "filename", "f", nil,
		"plan files (YAML or JSON, several documents each), directories of them, or - for standard input; repeat or separate with commas")
	_ = c.MarkFlagRequired("filename")
	_ = c.MarkFlagFilename("filename", "yaml", "yml", "json")
}
