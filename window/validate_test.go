package window_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/window"
)

var (
	jan1 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	jan2 = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
)

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		spec window.Spec
		want []string
	}{
		{name: "a nightly recurring window is valid",
			spec: recurring("Europe/Berlin", "0 22 * * *", "8h")},
		{name: "named descriptors other than @every are valid",
			spec: recurring("", "@daily", "1h", "@weekly", "2h", "@hourly", "1m")},
		{name: "a permanent window without startAt is valid",
			spec: window.Spec{Type: window.Permanent}},
		{name: "a recurring window with a validity period is valid",
			spec: withValidity(recurring("UTC", "0 22 * * *", "8h"), jan1, jan2)},
		{name: "a missing type is required",
			spec: window.Spec{},
			want: []string{`spec.window.type: Required value: must be one of permanent, time_range, recurring`}},
		{name: "an unknown type is not supported",
			spec: window.Spec{Type: "weekly"},
			want: []string{`spec.window.type: Unsupported value: "weekly": supported values: "permanent", "time_range", "recurring"`}},
		{name: "a time range needs both ends",
			spec: window.Spec{Type: window.TimeRange},
			want: []string{
				`spec.window.startAt: Required value: a time_range window needs startAt`,
				`spec.window.endAt: Required value: a time_range window needs endAt`,
			}},
		{name: "a time range ending at its start is refused, quoting both",
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(jan1), EndAt: mt(jan1)},
			want: []string{`spec.window.endAt: Invalid value: "2026-01-01T00:00:00Z": must be after startAt (2026-01-01T00:00:00Z)`}},
		{name: "a time range takes no schedules",
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(jan1), EndAt: mt(jan2), Schedules: []window.Schedule{{Cron: "0 0 * * *", Duration: "1h"}}},
			want: []string{`spec.window.schedules: Forbidden: a time_range window takes no schedules: use type recurring`}},
		{name: "a permanent window takes no end and no schedules",
			spec: window.Spec{Type: window.Permanent, EndAt: mt(jan2), Schedules: []window.Schedule{{Cron: "0 0 * * *", Duration: "1h"}}},
			want: []string{
				`spec.window.endAt: Forbidden: a permanent window has no end: cancel the plan to end it`,
				`spec.window.schedules: Forbidden: a permanent window takes no schedules: use type recurring`,
			}},
		{name: "a recurring window needs a schedule",
			spec: window.Spec{Type: window.Recurring},
			want: []string{`spec.window.schedules: Required value: a recurring window needs at least one schedule`}},
		{name: "every bad schedule is reported at once, with its index",
			spec: recurring("UTC",
				"0 22 * * *", "8h",
				"0 22 * *", "0s",
				"61 22 * * *", "169h",
				"@every 1h", "soon",
				"TZ=Europe/Berlin 0 22 * * *", "",
				"0 0 * * 7", "-1h",
				"@fortnightly", "1h",
				"", "1h"),
			want: []string{
				`spec.window.schedules[1].cron: Invalid value: "0 22 * *": invalid cron expression: expected exactly 5 fields, found 4: [0 22 * *]`,
				`spec.window.schedules[1].duration: Invalid value: "0s": must be greater than 0`,
				`spec.window.schedules[2].cron: Invalid value: "61 22 * * *": invalid cron expression: end of range (61) above maximum (59): 61`,
				`spec.window.schedules[2].duration: Invalid value: "169h": must be at most 168h`,
				`spec.window.schedules[3].cron: Invalid value: "@every 1h": @every is an interval from whenever a process starts, not a time of day: use a five-field cron expression`,
				`spec.window.schedules[3].duration: Invalid value: "soon": must be a Go duration such as "8h" or "90m"`,
				`spec.window.schedules[4].cron: Invalid value: "TZ=Europe/Berlin 0 22 * * *": must not carry a TZ= or CRON_TZ= prefix: set timeZone instead`,
				`spec.window.schedules[4].duration: Required value: a Go duration such as "8h" or "90m"`,
				`spec.window.schedules[5].cron: Invalid value: "0 0 * * 7": invalid cron expression: end of range (7) above maximum (6): 7`,
				`spec.window.schedules[5].duration: Invalid value: "-1h": must be greater than 0`,
				`spec.window.schedules[6].cron: Invalid value: "@fortnightly": unknown descriptor: use a five-field cron expression or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly`,
				`spec.window.schedules[7].cron: Invalid value: "": must not be empty`,
			}},
		{name: "a TZ= prefix without a space is refused, not a panic",
			spec: recurring("UTC", "TZ=UTC", "1h"),
			want: []string{`spec.window.schedules[0].cron: Invalid value: "TZ=UTC": must not carry a TZ= or CRON_TZ= prefix: set timeZone instead`}},
		{name: "168h is the longest duration",
			spec: recurring("UTC", "0 0 * * 1", "168h")},
		{name: "an unknown zone is refused",
			spec: recurring("Mars/Olympus_Mons", "0 22 * * *", "8h"),
			want: []string{`spec.window.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone: must be an IANA name such as "Europe/Berlin" or "America/New_York"`}},
		{name: "the machine's Local zone is refused",
			spec: recurring("Local", "0 22 * * *", "8h"),
			want: []string{`spec.window.timeZone: Invalid value: "Local": must be an IANA time zone name such as "Europe/Berlin": "Local" depends on the machine`}},
		{name: "a validity period must end after it starts",
			spec: withValidity(recurring("UTC", "0 22 * * *", "8h"), jan2, jan1),
			want: []string{`spec.window.endAt: Invalid value: "2026-01-01T00:00:00Z": must be after startAt (2026-01-02T00:00:00Z)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := c.spec.DeepCopy()
			errs := window.Validate(c.spec, field.NewPath("spec", "window"))
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, &c.spec); diff != "" {
				t.Errorf("Validate changed its input (-before +after):\n%s", diff)
			}
			_, err := window.Parse(c.spec)
			if (err == nil) != (len(c.want) == 0) {
				t.Errorf("Parse error = %v, want %d problems", err, len(c.want))
			}
		})
	}
}

func TestParseError(t *testing.T) {
	_, err := window.Parse(recurring("Mars/Base", "0 22 * *", "8h"), window.WithFieldPath(field.NewPath("spec").Index(2).Child("window")))
	var perr *window.ParseError
	if !errors.As(err, &perr) {
		t.Fatalf("Parse error %T is not a *window.ParseError", err)
	}
	if len(perr.Errs) != 2 {
		t.Fatalf("got %d field errors, want 2: %v", len(perr.Errs), perr.Errs)
	}
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "spec[2].window.timeZone" {
		t.Errorf("errors.As(*field.Error) = %v, want the timeZone error first", fe)
	}
	want := "invalid window:\n" +
		`  spec[2].window.timeZone: Invalid value: "Mars/Base": unknown time zone: must be an IANA name such as "Europe/Berlin" or "America/New_York"` + "\n" +
		`  spec[2].window.schedules[0].cron: Invalid value: "0 22 * *": invalid cron expression: expected exactly 5 fields, found 4: [0 22 * *]`
	if code := perr.HTTPCode(); code != 400 {
		t.Errorf("HTTPCode() = %d, want 400", code)
	}
	if err.Error() != want {
		t.Errorf("Error() =\n%s\nwant\n%s", err, want)
	}
}
