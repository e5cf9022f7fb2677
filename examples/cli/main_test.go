package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// Paths of the fixtures, relative to this package.
const (
	holiday    = "../plans/holiday-freeze.yaml"
	nightly    = "../plans/nightly-image-freeze.yaml"
	production = "../plans/production-release.yaml"
	cluster    = "samples/cluster.yaml"
	ledger     = "samples/holiday-freeze.ledger.json"
	requests   = "samples/requests/"
)

// wallClock is what the tests' app reads when no --now is given: a fixed
// instant, so that no test depends on the real clock.
var wallClock = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// result is one in-process run of protectctl.
type result struct {
	code           int
	stdout, stderr string
}

// protectctl runs the command line in-process, as main would.
func protectctl(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, clock: func() time.Time { return wallClock }}
	code := a.run(args)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// golden compares got with testdata/<name>.golden, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// goldenCase is a command line whose standard output is a golden file.
type goldenCase struct {
	name string
	args []string
	// code is the exit status expected.
	code int
	// stderr is the exact standard error expected.
	stderr string
}

func runGolden(t *testing.T, cases []goldenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := protectctl(t, "", tc.args...)
			if res.code != tc.code {
				t.Errorf("exit status %d, want %d; stderr: %s", res.code, tc.code, res.stderr)
			}
			if res.stderr != tc.stderr {
				t.Errorf("stderr:\n got %q\nwant %q", res.stderr, tc.stderr)
			}
			golden(t, tc.name, res.stdout)
		})
	}
}

func TestRun_MainSignature(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"templates", "-o", "json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit status %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `"image-change"`) || errb.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}
