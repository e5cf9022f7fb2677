package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/policytest"
)

// testRun is one file's answer, as -o yaml and -o json print it.
type testRun struct {
	File   string             `json:"file"`
	Suite  string             `json:"suite,omitempty"`
	Error  string             `json:"error,omitempty"`
	Checks []policytest.Check `json:"checks,omitempty"`
	result *policytest.Result `json:"-"`
	suite  policytest.Suite   `json:"-"`
}

func (a *app) testCmd() *cobra.Command {
	var (
		verbose bool
		runRe   string
		out     outputFlags
	)
	c := &cobra.Command{
		Use:   "test PATH...",
		Short: "Run declarative tests of plans: requests at given instants and what must happen to them",
		Long: `Test runs test files (package policytest's format: plans, cluster facts,
and cases of a request at an instant with the expected decision: blocked,
audited, exempt or admitted, by which plan and template, with which
message, and whether the requester reads a warning) on every render target,
from the library's reference semantics (render.Explain), which the
end-to-end tests hold the real Kyverno and API server to.

A PATH is a test file, or a directory whose test files (names ending in
_test.yaml, _test.yml or _test.json, at any depth) all run. Paths in a
test file are relative to it.

Output as go test's: a line per file (ok or FAIL), the failed checks with
what differs (-v: every check). Exit status 0 when every check passes; 1
when one fails or a file cannot run; 2 on usage errors.`,
		Example: `  # Every test of a plan repository:
  protectctl test tests/

  # One file, the cases whose name matches, every check printed:
  protectctl test tests/production-release_test.yaml --run 'business hours' -v`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			var filter *regexp.Regexp
			if runRe != "" {
				var err error
				if filter, err = regexp.Compile(runRe); err != nil {
					return usageErrorf("--run %q: %v", runRe, err)
				}
			}
			runs, err := loadTests(args)
			if err != nil {
				return err
			}
			failed := false
			for i := range runs {
				r := &runs[i]
				if r.Error != "" {
					failed = true
					continue
				}
				s := r.suite
				if filter != nil {
					s.Cases = keepCases(s.Cases, filter)
					if len(s.Cases) == 0 {
						continue
					}
				}
				res, err := s.Run()
				if err != nil {
					r.Error, failed = errorLines(err), true
					continue
				}
				r.result, r.Checks = &res, res.Checks
				failed = failed || len(res.Failed()) > 0
			}
			if out.format != "" {
				if err := printItems(a.stdout, out.format, runs); err != nil {
					return err
				}
			} else {
				printTestRuns(a.stdout, runs, verbose, filter != nil)
			}
			if failed {
				return exitSilently(exitFailed)
			}
			return nil
		},
	}
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "print every check, passed or failed")
	c.Flags().StringVar(&runRe, "run", "", "run only the cases whose name matches this regular expression")
	out.register(c, "", "yaml", "json")
	return c
}

// loadTests loads every test file the paths name. A path that does not
// exist, or a directory without test files, is a usage error; a file
// that cannot be loaded is a failed run, reported with the others.
func loadTests(paths []string) ([]testRun, error) {
	var runs []testRun
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, usageErrorf("%s: %v", p, err)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		name := rootName(abs)
		if !st.IsDir() {
			runs = append(runs, loadTest(p, name))
			continue
		}
		files, err := policytest.Files(rootFS{}, name)
		if err != nil {
			var le *policytest.LoadError
			if errors.As(err, &le) {
				err = fmt.Errorf("%s: %w", p, le.Err)
			}
			return nil, usageErrorf("%v", err)
		}
		for _, f := range files {
			rel, _ := filepath.Rel(abs, "/"+f)
			runs = append(runs, loadTest(filepath.Join(p, rel), f))
		}
	}
	return runs, nil
}

func loadTest(display, name string) testRun {
	s, err := policytest.Load(rootFS{}, name)
	r := testRun{File: display, Suite: s.Name, suite: s}
	if s.Name == name {
		r.Suite = display
	}
	if err != nil {
		var le *policytest.LoadError
		if errors.As(err, &le) {
			err = le.Err
		}
		r.Error = errorLines(err)
	}
	return r
}

// errorLines is an error as lines: a validation error's problems one
// per line, with their fields.
func errorLines(err error) string {
	if ps := plan.ProblemsOf(err); len(ps) > 1 || len(ps) == 1 && ps[0].Field != "" {
		return joinProblems(ps, "\n")
	}
	return err.Error()
}

func keepCases(cs []policytest.Case, re *regexp.Regexp) []policytest.Case {
	var out []policytest.Case
	for _, c := range cs {
		if re.MatchString(c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// printTestRuns prints as go test does: the failed checks (every check
// with verbose), then a line per file, then FAIL or PASS.
func printTestRuns(w io.Writer, runs []testRun, verbose, filtered bool) {
	failed := false
	for _, r := range runs {
		if r.Error != "" {
			failed = true
			fmt.Fprintf(w, "FAIL\t%s [cannot run]\n", r.File)
			for _, line := range strings.Split(r.Error, "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
			continue
		}
		if r.result == nil {
			fmt.Fprintf(w, "ok  \t%s\t[no cases to run]\n", r.File)
			continue
		}
		bad := r.result.Failed()
		for _, c := range r.result.Checks {
			if c.Passed() && !verbose {
				continue
			}
			status := "PASS"
			if !c.Passed() {
				status = "FAIL"
			}
			fmt.Fprintf(w, "--- %s: %s [%s%s]\n", status, c.Case, c.Target, layoutNote(c.Layout))
			if !c.Passed() {
				fmt.Fprintf(w, "    %s at %s\n    %s\n", c.Request, c.At.Format(time.RFC3339), c.Failure)
			}
		}
		summary := plural(r.result.Cases(), "case") + ", " + plural(len(r.result.Checks), "check")
		if len(bad) > 0 {
			failed = true
			fmt.Fprintf(w, "FAIL\t%s\t%s, %d failed\n", r.File, summary, len(bad))
		} else {
			fmt.Fprintf(w, "ok  \t%s\t%s\n", r.File, summary)
		}
	}
	if failed {
		fmt.Fprintln(w, "FAIL")
	} else {
		fmt.Fprintln(w, "PASS")
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func layoutNote(l policytest.Layout) string {
	if l == policytest.Compact {
		return " compact"
	}
	return ""
}

// rootFS reads the machine's files by absolute path without the leading
// "/" (fs.FS names are relative): a test file's "../plans/x.yaml" then
// resolves wherever the file is, and errors name the real path.
type rootFS struct{}

func (rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := os.Open("/" + name)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// Name the file as the user would, from the working directory.
		if wd, werr := os.Getwd(); werr == nil {
			if rel, rerr := filepath.Rel(wd, pe.Path); rerr == nil {
				pe.Path = rel
			}
		}
	}
	return f, err
}

// rootName is an absolute path as a rootFS name.
func rootName(abs string) string {
	if n := strings.TrimPrefix(filepath.ToSlash(abs), "/"); n != "" {
		return n
	}
	return "."
}
