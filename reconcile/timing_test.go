package reconcile

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadTiming(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		want Timing
		errs []string
	}{
		"nothing set gives a 31 s tick and a 15 min checkpoint": {
			want: Timing{TickInterval: 31 * time.Second, ReportCheckpoint: 15 * time.Minute},
		},
		"empty values take the defaults": {
			env:  map[string]string{EnvTickInterval: "", EnvReportCheckpoint: " "},
			want: Timing{TickInterval: 31 * time.Second, ReportCheckpoint: 15 * time.Minute},
		},
		"both values are read as seconds": {
			env:  map[string]string{EnvTickInterval: "10", EnvReportCheckpoint: " 300 "},
			want: Timing{TickInterval: 10 * time.Second, ReportCheckpoint: 5 * time.Minute},
		},
		"the bounds themselves are accepted": {
			env:  map[string]string{EnvTickInterval: "3600", EnvReportCheckpoint: "10"},
			want: Timing{TickInterval: time.Hour, ReportCheckpoint: 10 * time.Second},
		},
		"a value that is not a positive whole number is refused, quoted": {
			env: map[string]string{EnvTickInterval: "31s", EnvReportCheckpoint: "-5"},
			errs: []string{
				`PROTECTION_PLAN_TICK_INTERVAL_SEC="31s": must be a positive whole number of seconds`,
				`PROTECTION_PLAN_REPORT_CHECKPOINT_SEC="-5": must be a positive whole number of seconds`,
			},
		},
		"zero is refused": {
			env:  map[string]string{EnvTickInterval: "0"},
			errs: []string{`PROTECTION_PLAN_TICK_INTERVAL_SEC="0": must be a positive whole number of seconds`},
		},
		"absurd values are refused with their bounds": {
			env: map[string]string{EnvTickInterval: "86400", EnvReportCheckpoint: "5"},
			errs: []string{
				`PROTECTION_PLAN_TICK_INTERVAL_SEC="86400": must be between 1 and 3600 seconds`,
				`PROTECTION_PLAN_REPORT_CHECKPOINT_SEC="5": must be between 10 and 3300 seconds`,
			},
		},
		"a number too large for a duration is refused, not wrapped around": {
			env:  map[string]string{EnvReportCheckpoint: "99999999999999999"},
			errs: []string{`PROTECTION_PLAN_REPORT_CHECKPOINT_SEC="99999999999999999": must be between 10 and 3300 seconds`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := LoadTiming(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			var msgs []string
			for _, e := range unjoin(err) {
				var ce *TimingError
				if !errors.As(e, &ce) {
					t.Fatalf("%v is not a *TimingError", e)
				}
				msgs = append(msgs, ce.Error())
			}
			if diff := cmp.Diff(tc.errs, msgs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
