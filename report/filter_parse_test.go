package report_test

import (
	"net/url"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
)

func TestParseFilter(t *testing.T) {
	cases := map[string]struct {
		query    string
		want     report.Filter
		wantCode int
	}{
		"nothing is no filter": {},
		"every parameter is read": {query: "plan=xmas&environment=Production&trigger=end&from=2026-12-24&to=2026-12-27T06:00:00Z",
			want: report.Filter{Plan: "xmas", Environment: "Production", Trigger: report.TriggerEnd,
				From: time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 27, 6, 0, 0, 0, time.UTC)}},
		"an unknown trigger is 400":  {query: "trigger=later", wantCode: 400},
		"a bad instant is 400 on to": {query: "to=tomorrow", wantCode: 400},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			got, err := report.ParseFilter(q)
			if tc.wantCode != 0 {
				if plan.CodeOf(err) != tc.wantCode {
					t.Fatalf("err = %v (code %d), want %d", err, plan.CodeOf(err), tc.wantCode)
				}
				return
			}
			if err != nil || got.Plan != tc.want.Plan || got.Environment != tc.want.Environment || got.Trigger != tc.want.Trigger ||
				!got.From.Equal(tc.want.From) || !got.To.Equal(tc.want.To) {
				t.Errorf("ParseFilter = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
