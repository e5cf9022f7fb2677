package window_test

import (
	"testing"

	"github.com/telark/protectionplans/window"
)

func TestDescribe(t *testing.T) {
	christmas := window.Spec{Type: window.TimeRange,
		StartAt: mt(when(t, "Thu Dec 24 2026 22:00 UTC")), EndAt: mt(when(t, "Sun Dec 27 2026 06:00 UTC"))}
	for _, c := range []struct {
		name string
		spec window.Spec
		want string
	}{
		{"a nightly window names its zone", recurring("Europe/Berlin", "0 22 * * *", "8h"),
			"every day at 22:00 Europe/Berlin for 8h"},
		{"a time range shows both ends in its zone", christmas,
			"from 2026-12-24 22:00 to 2026-12-27 06:00 UTC"},
		{"a time range is read in the window's zone", func() window.Spec { s := christmas; s.TimeZone = "Europe/Berlin"; return s }(),
			"from 2026-12-24 23:00 to 2026-12-27 07:00 Europe/Berlin"},
		{"weekdays read as a range", recurring("UTC", "0 22 * * 1-5", "8h"),
			"every Monday to Friday at 22:00 UTC for 8h"},
		{"a list of weekdays", recurring("UTC", "30 6 * * 2,4", "90m"),
			"every Tuesday and Thursday at 06:30 UTC for 1h30m"},
		{"a day of every month", recurring("UTC", "@monthly", "24h"),
			"on day 1 of every month at 00:00 UTC for 24h"},
		{"a date once a year", recurring("America/New_York", "0 22 24 12 *", "56h"),
			"on 24 December at 22:00 America/New_York for 56h"},
		{"several days of chosen months", recurring("UTC", "0 0 1,15 1,7 *", "2h"),
			"on days 1 and 15 of January and July at 00:00 UTC for 2h"},
		{"every day of a month", recurring("UTC", "0 0 * 12 *", "2h"),
			"every day in December at 00:00 UTC for 2h"},
		{"two times a day", recurring("UTC", "0 8,20 * * *", "1h"),
			"every day at 08:00 and 20:00 UTC for 1h"},
		{"every hour", recurring("UTC", "30 * * * *", "15m"),
			"every hour at :30 UTC for 15m"},
		{"every hour on weekdays", recurring("UTC", "0 * * * 1-5", "30m"),
			"every Monday to Friday, every hour at :00 UTC for 30m"},
		{"every minute", recurring("UTC", "* * * * *", "1m"),
			"every minute UTC for 1m"},
		{"an unusual expression is quoted", recurring("UTC", "*/5 9-17 * * 1-5", "1m"),
			`cron "*/5 9-17 * * 1-5" UTC for 1m`},
		{"day of month or weekday is quoted", recurring("UTC", "0 0 1 * 1", "1h"),
			`cron "0 0 1 * 1" UTC for 1h`},
		{"several schedules and a validity period",
			withValidity(recurring("Europe/Berlin", "0 22 * * *", "8h", "0 0 * * 6", "48h"),
				when(t, "Tue Dec 15 2026 00:00 Europe/Berlin"), when(t, "Sun Jan 3 2027 00:00 Europe/Berlin")),
			"every day at 22:00 Europe/Berlin for 8h; every Saturday at 00:00 Europe/Berlin for 48h, from 2026-12-15 00:00 to 2027-01-03 00:00 Europe/Berlin"},
		{"a permanent window without start", window.Spec{Type: window.Permanent}, "permanent"},
		{"a permanent window with start", window.Spec{Type: window.Permanent, StartAt: christmas.StartAt},
			"permanent from 2026-12-24 22:00 UTC"},
		{"an invalid cron is quoted", recurring("UTC", "0 22 * *", "8h"), `cron "0 22 * *" UTC for 8h`},
		{"an invalid duration is quoted", recurring("UTC", "0 22 * * *", "soon"), `every day at 22:00 UTC for "soon"`},
		{"an unknown zone is named", func() window.Spec { s := christmas; s.TimeZone = "Mars/Base"; return s }(),
			`from 2026-12-24 22:00 to 2026-12-27 06:00 UTC (unknown time zone "Mars/Base")`},
		{"an unknown type is named", window.Spec{Type: "weekly"}, `window of unknown type "weekly"`},
		{"a time range without ends says so", window.Spec{Type: window.TimeRange}, "time range without startAt and endAt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := window.Describe(c.spec); got != c.want {
				t.Errorf("Describe = %q, want %q", got, c.want)
			}
		})
	}
}
