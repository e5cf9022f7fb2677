package report_test

import (
	"testing"
	"time"

	"github.com/telark/protectionplans/report"
)

func TestWritten(t *testing.T) {
	at := time.Date(2026, 12, 25, 6, 0, 0, 0, time.UTC)
	id := report.DefaultID("xmas", report.TriggerEnd, at)
	all := func(id string) []string {
		var out []string
		for _, f := range report.Formats() {
			out = append(out, report.FileName(id, f))
		}
		return out
	}
	later := report.DefaultID("xmas", report.TriggerEnd, at.Add(time.Minute))
	for _, tc := range []struct {
		name      string
		files     []string
		wantID    string
		wantWhole bool
	}{
		{"no report of the trigger: nothing written", []string{"ledger.json", "health.json", "observed.json"}, "", false},
		{"a report in every format is whole", append(all(id), "ledger.json"), id, true},
		{"a report missing a format is found in part", all(id)[:2], id, false},
		{"a manual report or another plan's is not the final one",
			append(all(report.DefaultID("xmas", report.TriggerManual, at)), all(report.DefaultID("xmas-eve", report.TriggerEnd, at))...), "", false},
		{"of two, the more complete wins", append(all(later), all(id)[:1]...), later, true},
		{"of two as complete, the earlier wins", append(all(later)[:1], all(id)[:1]...), id, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gotID, whole := report.Written("xmas", report.TriggerEnd, tc.files)
			if gotID != tc.wantID || whole != tc.wantWhole {
				t.Fatalf("Written = %q, %v; want %q, %v", gotID, whole, tc.wantID, tc.wantWhole)
			}
		})
	}
	if id != "xmas-end-20261225T060000Z" {
		t.Fatalf("DefaultID = %q", id)
	}
}
