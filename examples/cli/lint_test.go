package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLint: protectctl lint reads several files or a directory, prints
// each finding with its plan's file, and exits 1 on an error finding.
func TestLint(t *testing.T) {
	runGolden(t, []goldenCase{
		{name: "lint_mistakes", args: []string{"lint", "testdata/lint", "--now", "2026-03-01T12:00:00Z"}, code: exitFailed},
		{name: "lint_warnings_only", args: []string{"lint", "testdata/lint/release-nights.yaml", "--now", "2026-03-01T12:00:00Z", "--horizon", "720h"}},
		{name: "lint_samples", args: []string{"lint", "../plans", "--now", "2026-03-01"}},
		{name: "lint_undecodable", args: []string{"lint", "testdata/lint-undecodable.yaml", "../plans/nightly-image-freeze.yaml", "--now", "2026-03-01"}, code: exitFailed},
		{name: "lint_calendar_given", args: []string{"lint", "testdata/lint-calendar", "--now", "2026-03-01T12:00:00Z",
			"--calendar", "holidays/de.ics=../../calendar/testdata/holidays.ics"}},
		{name: "lint_calendar_not_given", args: []string{"lint", "testdata/lint-calendar", "--now", "2026-03-01T12:00:00Z"}},
		{name: "lint_calendar_unreadable", args: []string{"lint", "testdata/lint-calendar", "--now", "2026-03-01T12:00:00Z",
			"--calendar", "holidays/de.ics=testdata/lint-calendar/plans.yaml"}, code: exitFailed},
		{name: "lint_calendar_malformed", args: []string{"lint", "testdata/lint-calendar", "--calendar", "holidays.ics"}, code: exitUsage,
			stderr: "protectctl: --calendar \"holidays.ics\": want NAME/KEY=FILE (the ConfigMap and key the plans' exceptions name, and the ICS file)\n"},
		{name: "lint_selectors_with_labels", args: []string{"lint", "testdata/lint-selectors", "--now", "2026-03-01T12:00:00Z",
			"--cluster", "testdata/lint-selectors-cluster.yaml"}},
		{name: "lint_selectors_without_labels", args: []string{"lint", "testdata/lint-selectors", "--now", "2026-03-01T12:00:00Z"}},
		{name: "lint_missing_path", args: []string{"lint", "no/such.yaml"}, code: exitUsage,
			stderr: "protectctl: no/such.yaml: no such file or directory\n"},
	})
}

// TestLint_JSON: -o json is the findings as the library types them.
func TestLint_JSON(t *testing.T) {
	res := protectctl(t, "", "lint", "testdata/lint/mistakes.yaml", "testdata/lint/release-nights.yaml", "--now", "2026-03-01T12:00:00Z", "-o", "json")
	if res.code != exitFailed {
		t.Fatalf("exit %d, want %d; %s", res.code, exitFailed, res.stderr)
	}
	var out struct {
		Plans    int `json:"plans"`
		Findings []struct {
			Severity string   `json:"severity"`
			Code     string   `json:"code"`
			Plans    []string `json:"plans"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		got = append(got, f.Severity+" "+f.Code)
	}
	want := []string{"error CronNeverFires", "error WindowEnded", "warning PlansOverlap", "warning ScheduleShadowed",
		"warning StartInSkippedHour", "warning WindowNeverEnds", "info StartInRepeatedHour"}
	if diff := cmp.Diff(want, got); diff != "" || out.Plans != 5 {
		t.Errorf("%d plans, want 5; findings (-want +got):\n%s", out.Plans, diff)
	}
}
