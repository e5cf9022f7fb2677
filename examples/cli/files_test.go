package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/examples/internal/buildinfo"
)

// Issue 17: validate kept only the last -f and exited 0, so a CI lint
// passed a broken plan. Every -f is read, every document of a stream and
// every plan file of a directory, each reported by file and index.
func TestFiles_EveryPlanIsRead(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "validate_bad_then_good", code: 1,
			args: []string{"validate", "-f", "testdata/invalid.yaml", "-f", holiday, "--now", "2026-11-01T10:00:00Z"}},
		{name: "validate_good_then_bad_commas", code: 1,
			args: []string{"validate", "-f", holiday + ",testdata/unknown-fields.yaml", "--now", "2026-11-01T10:00:00Z"}},
		{name: "validate_directory", code: 1,
			args: []string{"validate", "-f", "testdata/repo", "--now", "2026-12-01"}},
		{name: "validate_directory_table", code: 1,
			args: []string{"validate", "-f", "testdata/repo/", "--now", "2026-12-01", "-o", "table"}},
		{name: "validate_directory_json", code: 1,
			args: []string{"validate", "-f", "testdata/repo", "--now", "2026-12-01", "-o", "json"}},
		{name: "validate_samples", code: 0,
			args: []string{"validate", "-f", "../plans", "--cluster", cluster, "--now", "2026-11-01T10:00:00Z"}},
		{name: "render_two_plans_names", code: 0,
			args: []string{"render", "-f", holiday, "-f", nightly, "--cluster", cluster, "--now", "2026-12-25T23:00:00+01:00", "-o", "name"}},
		{name: "render_two_plans_table", code: 0,
			args: []string{"render", "-f", holiday, "-f", nightly, "--cluster", cluster, "--now", "2026-12-25T23:00:00+01:00", "-o", "table"}},
		{name: "explain_samples_table", code: 1,
			args: []string{"explain", "-f", "../plans", "--cluster", cluster, "--request", requests + "scale-payments-api.yaml", "--now", "2026-12-25T12:00:00+01:00", "-o", "table",
				"--calendar", "holidays/de.ics=../../calendar/testdata/holidays.ics"}},
		{name: "windows_two_plans", code: 0,
			args: []string{"windows", "-f", holiday, "-f", "testdata/permanent.yaml", "--now", "2026-12-20", "--to", "2026-12-28"}},
	})
}

// A stream whose documents fail is reported by document, each on its
// line of stderr, and render prints nothing.
func TestFiles_RenderReportsEveryBadDocument(t *testing.T) {
	res := protectctl(t, "", "render", "-f", "testdata/repo", "--now", "2026-12-05T12:00:00Z")
	want := []string{
		`protectctl: testdata/repo/freezes.yaml (document 2): spec.templates[0].parameters[kinds]: Unsupported value: "{{ request.object }}": supported values: `,
		`protectctl: testdata/repo/freezes.yaml (document 3): spec.window.endAt: "tomorrow" is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00; spec.window.startAt: "2026-12-24" is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00 (400)`,
	}
	lines := strings.Split(strings.TrimSuffix(res.stderr, "\n"), "\n")
	if res.code != 1 || res.stdout != "" || len(lines) != len(want) {
		t.Fatalf("exit status %d, stdout %q, stderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n got %s\nwant %s...", i+1, lines[i], w)
		}
	}
}

// A line of a stream's document is counted in the file.
func TestFiles_LinesAreCountedInTheStream(t *testing.T) {
	dir := t.TempDir()
	stream := filepath.Join(dir, "plans.yaml")
	good, err := os.ReadFile(holiday)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := os.ReadFile("testdata/syntax.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stream, append(append(good, "---\n"...), bad...), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(string(good), "\n") + 1 + 9
	res := protectctl(t, "", "render", "-f", stream, "--now", "2026-12-25T12:00:00+01:00")
	want := "protectctl: " + stream + ":" + strconv.Itoa(line) + " (document 2): did not find expected ',' or ']' (400)\n"
	if res.code != 1 || res.stderr != want || res.stdout != "" {
		t.Errorf("exit status %d, stderr:\n got %q\nwant %q", res.code, res.stderr, want)
	}
}

// report -f takes several plans and reports the ledger's.
func TestFiles_ReportPicksTheLedgersPlan(t *testing.T) {
	res := protectctl(t, "", "report", "-f", "../plans/", "--ledger", ledger, "--now", "2026-12-28T09:00:00+01:00", "-o", "json")
	var r struct {
		Plan struct {
			ID string `json:"id"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &r); res.code != 0 || err != nil || r.Plan.ID != "holiday-freeze" {
		t.Errorf("exit status %d, %v, plan %q; stderr %s", res.code, err, r.Plan.ID, res.stderr)
	}
	res = protectctl(t, "", "report", "-f", nightly, "-f", production, "--ledger", ledger)
	if want := "protectctl: --ledger: the ledger is plan \"holiday-freeze\"'s, and no plan of -f is \"holiday-freeze\"\n"; res.code != 2 || res.stderr != want {
		t.Errorf("exit status %d, stderr %q", res.code, res.stderr)
	}
}

// A date is accepted wherever an instant is (as the API accepts them): its
// midnight in UTC.
func TestFlags_DatesAreInstants(t *testing.T) {
	for _, pair := range [][2][]string{
		{{"render", "-f", holiday, "--now", "2026-12-25"}, {"render", "-f", holiday, "--now", "2026-12-25T00:00:00Z"}},
		{{"windows", "-f", nightly, "--from", "2026-10-20", "--to", "2026-11-03"},
			{"windows", "-f", nightly, "--from", "2026-10-20T00:00:00Z", "--to", "2026-11-03T00:00:00Z"}},
	} {
		date, instant := protectctl(t, "", pair[0]...), protectctl(t, "", pair[1]...)
		if date.code != 0 || date != instant || date.stdout == "" {
			t.Errorf("%v: exit status %d, stderr %q; differs from %v: %v", pair[0], date.code, date.stderr, pair[1], date != instant)
		}
	}
}

func TestOutput_NoHeaders(t *testing.T) {
	res := protectctl(t, "", "templates", "--no-headers")
	if res.code != 0 || strings.Contains(res.stdout, "NAME") || !strings.HasPrefix(res.stdout, "create ") {
		t.Errorf("exit status %d, stdout:\n%s", res.code, res.stdout)
	}
	res = protectctl(t, "", "windows", "-f", nightly, "--from", "2026-10-23", "--to", "2026-10-24", "--no-headers", "--now", "2026-10-23T01:00:00Z")
	if res.code != 0 || res.stdout != "Thu 2026-10-22 22:00 CEST   Fri 2026-10-23 06:00 CEST   Thu 2026-10-22 20:00 UTC   Fri 2026-10-23 04:00 UTC   8h   yes\n"+
		"Fri 2026-10-23 22:00 CEST   Sat 2026-10-24 06:00 CEST   Fri 2026-10-23 20:00 UTC   Sat 2026-10-24 04:00 UTC   8h   no\n" {
		t.Errorf("exit status %d, stdout:\n%s", res.code, res.stdout)
	}
}

func TestOutput_Names(t *testing.T) {
	cases := map[string]struct {
		args []string
		code int
		want string
	}{
		"validate names the valid plans as kubectl does": {
			[]string{"validate", "-f", "../plans", "-o", "name", "--now", "2026-11-01"}, 0,
			"protectionplan.telark.io/holiday-freeze\nprotectionplan.telark.io/maintenance-windows\nprotectionplan.telark.io/nightly-image-freeze\nprotectionplan.telark.io/production-release\n"},
		"templates names the templates": {
			[]string{"templates", "-o", "name"}, 0,
			"create\ndelete\nimage-change\nscaling\nconfigmap-edits\nsecret-edits\nstorage\nrollout-restart\nall-writes\n"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			res := protectctl(t, "", tc.args...)
			if res.code != tc.code || res.stdout != tc.want || res.stderr != "" {
				t.Errorf("exit status %d, stderr %q, stdout:\n%s", res.code, res.stderr, res.stdout)
			}
		})
	}
	res := protectctl(t, "", "validate", "-f", "testdata/repo", "-o", "name", "--now", "2026-12-01")
	if res.code != 1 || res.stdout != "protectionplan.telark.io/shop-weekend\nprotectionplan.telark.io/payments-secrets\n" ||
		strings.Count(res.stderr, "\nprotectctl: testdata/repo/freezes.yaml (document ") != 1 {
		t.Errorf("exit status %d, stdout %q, stderr:\n%s", res.code, res.stdout, res.stderr)
	}
}

func TestVersion(t *testing.T) {
	res := protectctl(t, "", "version", "-o", "json")
	var v buildinfo.Info
	if err := json.Unmarshal([]byte(res.stdout), &v); err != nil || res.code != 0 {
		t.Fatalf("exit status %d, %v: %s", res.code, err, res.stdout)
	}
	if v.Go != runtime.Version() || v.Version == "" || !strings.Contains(v.Library, "..") {
		t.Errorf("%+v", v)
	}
	res = protectctl(t, "", "version")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "protectctl:   ") || !strings.Contains(res.stdout, "\ngo:           "+runtime.Version()+"\n") {
		t.Errorf("exit status %d:\n%s", res.code, res.stdout)
	}
	if res := protectctl(t, "", "--version"); res.code != 0 || !strings.HasPrefix(res.stdout, "protectctl version ") {
		t.Errorf("--version: exit status %d: %q", res.code, res.stdout)
	}
}

func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash": "# bash completion V2 for protectctl", "zsh": "#compdef protectctl",
		"fish": "# fish completion for protectctl", "powershell": "# powershell completion for protectctl",
	} {
		t.Run(shell, func(t *testing.T) {
			res := protectctl(t, "", "completion", shell)
			if res.code != 0 || !strings.Contains(res.stdout, marker) {
				t.Errorf("exit status %d, stderr %q, stdout starts %.200q", res.code, res.stderr, res.stdout)
			}
		})
	}
	// The values of -o and --target complete.
	res := protectctl(t, "", "__complete", "render", "-o", "")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "yaml\njson\nname\ntable\n") {
		t.Errorf("exit status %d, stdout %q", res.code, res.stdout)
	}
	res = protectctl(t, "", "__complete", "explain", "--target", "")
	if res.code != 0 || !strings.HasPrefix(res.stdout, "kyverno\nkyverno-cel\nvap\n") {
		t.Errorf("exit status %d, stdout %q", res.code, res.stdout)
	}
}

// Issue 17: a sample plan had expired, so the README's commands failed.
// Every sample validates against the real current time (a test may read
// the clock): the samples are recurring windows, and one that expires
// fails here the day it does.
func TestSamples_ValidToday(t *testing.T) {
	var out, errb bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, clock: time.Now}
	if code := a.run([]string{"validate", "-f", "../plans", "--cluster", cluster}); code != 0 {
		t.Errorf("exit status %d at %s:\n%s%s", code, time.Now().Format(time.RFC3339), out.String(), errb.String())
	}
	if n := strings.Count(out.String(), ": valid\n"); n != 4 {
		t.Errorf("%d valid samples:\n%s", n, out.String())
	}
}
