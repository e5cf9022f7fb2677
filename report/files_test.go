package report_test

import (
	"testing"
	"time"

	"github.com/telark/protectionplans/report"
)

func TestWhole(t *testing.T) {
	at := time.Date(2026, 12, 25, 6, 0, 0, 0, time.UTC)
	id := report.DefaultID("xmas", report.TriggerEnd, at)
	all := func(id string) []string {
		var out []string
		for _, f := range report.Formats() {
			out = append(out, report.FileName(id, f))
		}
		return out
	}
	cases := map[string]struct {
		files []string
		want  bool
	}{
		"no report: not whole":                          {[]string{"ledger.json", "health.json", "observed.json"}, false},
		"a report in every format is whole":             {append(all(id), "ledger.json"), true},
		"a report missing a format is only in part":     {all(id)[:2], false},
		"another report in every format does not count": {all(report.DefaultID("xmas", report.TriggerEnd, at.Add(time.Minute))), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := report.Whole(id, tc.files); got != tc.want {
				t.Errorf("Whole = %v, want %v", got, tc.want)
			}
		})
	}
	if id != "xmas-end-20261225T060000Z" {
		t.Fatalf("DefaultID = %q", id)
	}
}
