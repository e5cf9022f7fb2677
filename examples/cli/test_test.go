package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTest: protectctl test runs the sample plans' suite in ../tests (the
// files the Go test in ../tests runs too), fails what the plans do not
// do, and names every field of a broken test file.
func TestTest(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "test_samples", args: []string{"test", "../tests"}},
		{name: "test_samples_run_verbose", args: []string{"test", "../tests/production-release_test.yaml", "--run", "sharp", "-v"}},
		{name: "test_wrong", args: []string{"test", "testdata/tests/wrong_test.yaml"}, code: exitFailed},
		{name: "test_invalid", args: []string{"test", "testdata/tests/invalid_test.yaml", "testdata/tests/unknown-field_test.yaml"}, code: exitFailed},
		{name: "test_no_test_files", args: []string{"test", "samples"}, code: exitUsage,
			stderr: "protectctl: samples: no test file (*_test.yaml, *_test.yml or *_test.json) in this directory\n"},
		{name: "test_missing_path", args: []string{"test", "no/such/dir"}, code: exitUsage,
			stderr: "protectctl: stat no/such/dir: no such file or directory\n"},
		{name: "test_bad_run", args: []string{"test", "../tests", "--run", "a(b"}, code: exitUsage,
			stderr: "protectctl: --run \"a(b\": error parsing regexp: missing closing ): `a(b`\n"},
	})
}

// TestTest_JSON: -o json is every check of every file, with what each
// plan decided.
func TestTest_JSON(t *testing.T) {
	res := protectctl(t, "", "test", "../tests", "testdata/tests/wrong_test.yaml", "-o", "json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; %s", res.code, exitFailed, res.stderr)
	}
	var out struct {
		Items []struct {
			File   string `json:"file"`
			Checks []struct {
				Case    string `json:"case"`
				Failure string `json:"failure"`
				Got     struct {
					Decision string `json:"decision"`
				} `json:"got"`
			} `json:"checks"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatal(err)
	}
	cases, checks, failed := map[string]bool{}, 0, 0
	for _, it := range out.Items {
		for _, c := range it.Checks {
			checks++
			cases[it.File+"/"+c.Case] = true
			if c.Failure != "" {
				failed++
				if !strings.HasSuffix(it.File, "wrong_test.yaml") {
					t.Errorf("%s: %s failed: %s", it.File, c.Case, c.Failure)
				}
			}
		}
	}
	// The sample suite is the "at least 40 cases".
	if len(cases) < 44 || failed != 5 {
		t.Errorf("%d cases, %d checks, %d failed; want at least 44 cases and the 5 failures of wrong_test.yaml", len(cases), checks, failed)
	}
}
