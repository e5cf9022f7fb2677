package calendar

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func load(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// occ writes an occurrence as the tables expect it: start and end in
// the plan's zone, "all-day" when it is, and the summary.
func occ(o Occurrence) string {
	s := o.Start.Format(time.RFC3339) + " .. " + o.End.Format(time.RFC3339)
	if o.AllDay {
		s += " all-day"
	}
	return s + " " + o.Summary
}

func TestImport_Fixtures(t *testing.T) {
	cases := []struct {
		name     string
		file     string
		zone     string
		from, to string
		want     []string
	}{{
		name: "a Google weekly freeze across Berlin's spring change keeps its 8 elapsed hours, skips its EXDATE, stops at UNTIL and takes its moved instance",
		file: "google.ics", zone: "Europe/Berlin", from: "2026-03-01T00:00:00Z", to: "2026-05-01T00:00:00Z",
		want: []string{
			"2026-03-14T22:00:00+01:00 .. 2026-03-15T06:00:00+01:00 Release freeze (Saturday night)",
			"2026-03-21T23:00:00+01:00 .. 2026-03-22T07:00:00+01:00 Release freeze (Saturday night, moved)",
			"2026-03-28T22:00:00+01:00 .. 2026-03-29T07:00:00+02:00 Release freeze (Saturday night)",
		},
	}, {
		name: "a Google UTC event and an all-day event on Berlin's autumn change: the day lasts 25 hours, the cancelled event is left out",
		file: "google.ics", zone: "Europe/Berlin", from: "2026-10-01T00:00:00Z", to: "2026-11-01T00:00:00Z",
		want: []string{
			"2026-10-25T00:00:00+02:00 .. 2026-10-26T00:00:00+01:00 all-day Change advisory board offsite",
			"2026-10-25T01:00:00+02:00 .. 2026-10-25T04:00:00+01:00 Database migration",
		},
	}, {
		name: "an Outlook event in W. Europe Standard Time spans Berlin's spring change",
		file: "outlook.ics", zone: "Europe/Berlin", from: "2026-03-20T00:00:00Z", to: "2026-04-01T00:00:00Z",
		want: []string{
			"2026-03-27T18:00:00+01:00 .. 2026-03-31T18:00:00+02:00 Quarter-end freeze",
		},
	}, {
		name: "an Outlook daily rule in Eastern Standard Time reads 02:30 on New York's skipped night as 03:30 EDT",
		file: "outlook.ics", zone: "America/New_York", from: "2026-03-01T00:00:00Z", to: "2026-03-10T00:00:00Z",
		want: []string{
			"2026-03-06T02:30:00-05:00 .. 2026-03-06T03:30:00-05:00 Backup window (spring)",
			"2026-03-07T02:30:00-05:00 .. 2026-03-07T03:30:00-05:00 Backup window (spring)",
			"2026-03-08T03:30:00-04:00 .. 2026-03-08T04:30:00-04:00 Backup window (spring)",
		},
	}, {
		name: "an Outlook daily rule in Eastern Standard Time takes the first 01:30 of New York's repeated hour",
		file: "outlook.ics", zone: "America/New_York", from: "2026-10-29T00:00:00Z", to: "2026-11-05T00:00:00Z",
		want: []string{
			"2026-10-30T01:30:00-04:00 .. 2026-10-30T02:30:00-04:00 Backup window (autumn)",
			"2026-10-31T01:30:00-04:00 .. 2026-10-31T02:30:00-04:00 Backup window (autumn)",
			"2026-11-01T01:30:00-04:00 .. 2026-11-01T01:30:00-05:00 Backup window (autumn)",
			"2026-11-02T01:30:00-05:00 .. 2026-11-02T02:30:00-05:00 Backup window (autumn)",
		},
	}, {
		name: "an Outlook Customized Time Zone is read from its VTIMEZONE rules across the autumn change",
		file: "outlook.ics", zone: "Europe/Berlin", from: "2026-10-20T00:00:00Z", to: "2026-10-28T00:00:00Z",
		want: []string{
			"2026-10-24T22:00:00+02:00 .. 2026-10-25T06:00:00+01:00 Datacenter power maintenance",
		},
	}, {
		name: "an Outlook all-day event of three days covers its dates in the plan's zone, whatever zone that is",
		file: "outlook.ics", zone: "America/New_York", from: "2026-12-01T00:00:00Z", to: "2027-01-01T00:00:00Z",
		want: []string{
			"2026-12-24T00:00:00-05:00 .. 2026-12-27T00:00:00-05:00 all-day Christmas freeze",
		},
	}, {
		name: "an Apple weekly rule with COUNT takes the first 02:30 of Sydney's repeated hour and keeps its DURATION of one elapsed hour",
		file: "apple.ics", zone: "Australia/Sydney", from: "2026-03-01T00:00:00Z", to: "2026-05-01T00:00:00Z",
		want: []string{
			"2026-03-29T02:30:00+11:00 .. 2026-03-29T03:30:00+11:00 Weekly index rebuild",
			"2026-04-05T02:30:00+11:00 .. 2026-04-05T02:30:00+10:00 Weekly index rebuild",
			"2026-04-12T02:30:00+10:00 .. 2026-04-12T03:30:00+10:00 Weekly index rebuild",
		},
	}, {
		name: "an Apple daily rule skips its EXDATE with TZID and moves 02:00 on Sydney's skipped night to 03:00; floating and all-day events read Sydney's clock",
		file: "apple.ics", zone: "Australia/Sydney", from: "2026-09-01T00:00:00Z", to: "2026-11-01T00:00:00Z",
		want: []string{
			"2026-09-30T02:00:00+10:00 .. 2026-09-30T03:00:00+10:00 Patch window",
			"2026-10-01T02:00:00+10:00 .. 2026-10-01T03:00:00+10:00 Patch window",
			"2026-10-03T02:00:00+10:00 .. 2026-10-03T03:00:00+10:00 Patch window",
			"2026-10-04T03:00:00+11:00 .. 2026-10-04T04:00:00+11:00 Patch window",
			"2026-10-04T09:00:00+11:00 .. 2026-10-04T17:00:00+11:00 Team offsite (floating)",
			"2026-10-05T00:00:00+11:00 .. 2026-10-06T00:00:00+11:00 all-day Labour Day (NSW)",
			"2026-10-05T02:00:00+11:00 .. 2026-10-05T03:00:00+11:00 Patch window",
			"2026-10-06T02:00:00+11:00 .. 2026-10-06T03:00:00+11:00 Patch window",
		},
	}, {
		name: "the same calendar read for a Berlin plan: the floating event starts at 09:00 and the all-day event covers the date in Berlin, the timed one keeps its Sydney instant",
		file: "apple.ics", zone: "Europe/Berlin", from: "2026-10-04T00:00:00Z", to: "2026-10-05T00:00:00Z",
		want: []string{
			"2026-10-04T09:00:00+02:00 .. 2026-10-04T17:00:00+02:00 Team offsite (floating)",
			"2026-10-04T17:00:00+02:00 .. 2026-10-04T18:00:00+02:00 Patch window",
			"2026-10-05T00:00:00+02:00 .. 2026-10-06T00:00:00+02:00 all-day Labour Day (NSW)",
		},
	}, {
		name: "a holiday calendar's all-day events on Berlin's transition days last 23 and 25 hours",
		file: "holidays.ics", zone: "Europe/Berlin", from: "2026-03-28T00:00:00Z", to: "2026-04-05T00:00:00Z",
		want: []string{
			"2026-03-29T00:00:00+01:00 .. 2026-03-30T00:00:00+02:00 all-day Daylight Saving Time starts",
			"2026-04-03T00:00:00+02:00 .. 2026-04-04T00:00:00+02:00 all-day Good Friday",
		},
	}, {
		name: "a yearly all-day rule from 2023 gives 2026's date, and only the days that meet the range are listed",
		file: "holidays.ics", zone: "Europe/Berlin", from: "2026-12-24T12:00:00+01:00", to: "2026-12-25T00:00:01+01:00",
		want: []string{
			"2026-12-24T00:00:00+01:00 .. 2026-12-25T00:00:00+01:00 all-day Christmas Eve (office closed)",
			"2026-12-25T00:00:00+01:00 .. 2026-12-26T00:00:00+01:00 all-day Christmas Day",
		},
	}, {
		name: "an occurrence that ends exactly at from is not listed (ends are exclusive)",
		file: "holidays.ics", zone: "Europe/Berlin", from: "2026-01-02T00:00:00+01:00", to: "2026-01-03T00:00:00+01:00",
		want: []string{},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			from, _ := time.Parse(time.RFC3339, c.from)
			to, _ := time.Parse(time.RFC3339, c.to)
			got, err := Import(fixture(t, c.file), load(t, c.zone), from, to)
			if err != nil {
				t.Fatal(err)
			}
			lines := []string{}
			for _, o := range got {
				lines = append(lines, occ(o))
				if o.Start.Location().String() != c.zone {
					t.Errorf("%s: in %s, want the plan's zone %s", occ(o), o.Start.Location(), c.zone)
				}
			}
			if diff := cmp.Diff(c.want, lines); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// cal wraps VEVENT lines in a calendar.
func cal(lines ...string) []byte {
	return []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:test\r\n" + strings.Join(lines, "\r\n") + "\r\nEND:VCALENDAR\r\n")
}

func vevent(lines ...string) string {
	return strings.Join(append(append([]string{"BEGIN:VEVENT", "UID:e1@example.com"}, lines...), "END:VEVENT"), "\r\n")
}

func TestImport_Shapes(t *testing.T) {
	berlin := load(t, "Europe/Berlin")
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, berlin)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, berlin)
	cases := []struct {
		name string
		ics  []byte
		want []string
	}{{
		name: "a TZID written as an IANA name with a vendor prefix is read as that zone",
		ics:  cal(vevent("DTSTART;TZID=/mozilla.org/20050126_1/America/New_York:20260704T090000", "DTEND;TZID=/mozilla.org/20050126_1/America/New_York:20260704T100000", "SUMMARY:x")),
		want: []string{"2026-07-04T15:00:00+02:00 .. 2026-07-04T16:00:00+02:00 x"},
	}, {
		name: "a Windows zone name without a VTIMEZONE is mapped through CLDR's table",
		ics:  cal(vevent("DTSTART;TZID=Tokyo Standard Time:20260704T090000", "DURATION:PT30M", "SUMMARY:x")),
		want: []string{"2026-07-04T02:00:00+02:00 .. 2026-07-04T02:30:00+02:00 x"},
	}, {
		name: "a DURATION of one day is a calendar day: 23 hours across the spring change",
		ics:  cal(vevent("DTSTART;TZID=Europe/Berlin:20260328T120000", "DURATION:P1D", "SUMMARY:x")),
		want: []string{"2026-03-28T12:00:00+01:00 .. 2026-03-29T12:00:00+02:00 x"},
	}, {
		name: "an all-day event without DTEND lasts its one day",
		ics:  cal(vevent("DTSTART;VALUE=DATE:20261025", "SUMMARY:x")),
		want: []string{"2026-10-25T00:00:00+02:00 .. 2026-10-26T00:00:00+01:00 all-day x"},
	}, {
		name: "a timed event without DTEND or DURATION has no length and is listed at its start",
		ics:  cal(vevent("DTSTART:20260601T100000Z", "SUMMARY:x")),
		want: []string{"2026-06-01T12:00:00+02:00 .. 2026-06-01T12:00:00+02:00 x"},
	}, {
		name: "a monthly rule with BYDAY and BYSETPOS gives the last Friday of each month until UNTIL",
		ics:  cal(vevent("DTSTART;TZID=Europe/Berlin:20260130T180000", "DTEND;TZID=Europe/Berlin:20260130T200000", "RRULE:FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;UNTIL=20260401T000000Z", "SUMMARY:x")),
		want: []string{
			"2026-01-30T18:00:00+01:00 .. 2026-01-30T20:00:00+01:00 x",
			"2026-02-27T18:00:00+01:00 .. 2026-02-27T20:00:00+01:00 x",
			"2026-03-27T18:00:00+01:00 .. 2026-03-27T20:00:00+01:00 x",
		},
	}, {
		name: "a rule with no end is cut at the end of the range",
		ics:  cal(vevent("DTSTART;VALUE=DATE:20261228", "RRULE:FREQ=DAILY", "SUMMARY:x")),
		want: []string{
			"2026-12-28T00:00:00+01:00 .. 2026-12-29T00:00:00+01:00 all-day x",
			"2026-12-29T00:00:00+01:00 .. 2026-12-30T00:00:00+01:00 all-day x",
			"2026-12-30T00:00:00+01:00 .. 2026-12-31T00:00:00+01:00 all-day x",
			"2026-12-31T00:00:00+01:00 .. 2027-01-01T00:00:00+01:00 all-day x",
		},
	}, {
		name: "a yearly rule that started in 1601, as Outlook's do, still reaches 2026",
		ics:  cal(vevent("DTSTART;VALUE=DATE:16011225", "RRULE:FREQ=YEARLY", "SUMMARY:x")),
		want: []string{"2026-12-25T00:00:00+01:00 .. 2026-12-26T00:00:00+01:00 all-day x"},
	}, {
		name: "an EXDATE of a date removes that day's instance of a timed rule, and an RDATE adds one",
		ics:  cal(vevent("DTSTART;TZID=Europe/Berlin:20260601T100000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE;VALUE=DATE:20260602", "RDATE;TZID=Europe/Berlin:20260610T100000", "SUMMARY:x")),
		want: []string{
			"2026-06-01T10:00:00+02:00 .. 2026-06-01T11:00:00+02:00 x",
			"2026-06-03T10:00:00+02:00 .. 2026-06-03T11:00:00+02:00 x",
			"2026-06-10T10:00:00+02:00 .. 2026-06-10T11:00:00+02:00 x",
		},
	}, {
		name: "a cancelled override removes its instance",
		ics: cal(vevent("DTSTART;VALUE=DATE:20260601", "RRULE:FREQ=DAILY;COUNT=2", "SUMMARY:x"),
			vevent("RECURRENCE-ID;VALUE=DATE:20260601", "DTSTART;VALUE=DATE:20260601", "STATUS:CANCELLED", "SUMMARY:x")),
		want: []string{"2026-06-02T00:00:00+02:00 .. 2026-06-03T00:00:00+02:00 all-day x"},
	}, {
		name: "a VTIMEZONE that names no known zone and has only a STANDARD observance is read from its offset",
		ics: cal("BEGIN:VTIMEZONE", "TZID:Company Time", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:+0530", "TZOFFSETTO:+0530", "END:STANDARD", "END:VTIMEZONE",
			vevent("DTSTART;TZID=Company Time:20260704T090000", "DTEND;TZID=Company Time:20260704T100000", "SUMMARY:x")),
		want: []string{"2026-07-04T05:30:00+02:00 .. 2026-07-04T06:30:00+02:00 x"},
	}, {
		name: "a VTIMEZONE whose TZID is unknown but whose X-LIC-LOCATION is an IANA zone is read as that zone",
		ics: cal("BEGIN:VTIMEZONE", "TZID:Eastern", "X-LIC-LOCATION:America/New_York", "BEGIN:STANDARD", "DTSTART:19700101T000000", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0500", "END:STANDARD", "END:VTIMEZONE",
			vevent("DTSTART;TZID=Eastern:20260704T090000", "DURATION:PT1H", "SUMMARY:x")),
		want: []string{"2026-07-04T15:00:00+02:00 .. 2026-07-04T16:00:00+02:00 x"},
	}, {
		name: "a VTODO and other components are left out",
		ics:  cal("BEGIN:VTODO", "UID:t1", "DTSTART:20260601T100000Z", "SUMMARY:todo", "END:VTODO"),
		want: []string{},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Import(c.ics, berlin, from, to)
			if err != nil {
				t.Fatal(err)
			}
			lines := []string{}
			for _, o := range got {
				lines = append(lines, occ(o))
			}
			if diff := cmp.Diff(c.want, lines); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestImport_Errors(t *testing.T) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		ics  []byte
		want string
		code int
	}{{
		name: "an empty file is refused",
		ics:  nil,
		want: "calendar: empty: a calendar starts with BEGIN:VCALENDAR", code: 400,
	}, {
		name: "a file that is no calendar is refused at its first line",
		ics:  []byte("<html>\n"),
		want: `calendar line 1: not a content line (NAME:value or NAME;PARAM=x:value)`, code: 400,
	}, {
		name: "a component left open is refused at the end",
		ics:  []byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n"),
		want: "calendar line 4: BEGIN:VEVENT has no END", code: 400,
	}, {
		name: "an END that closes the wrong component names its line",
		ics:  []byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"),
		want: `calendar line 4: END "VTODO": does not match BEGIN:VEVENT`, code: 400,
	}, {
		name: "a bad DTSTART names its line, event and value",
		ics:  cal(vevent("SUMMARY:x", "DTSTART:2026-06-01")),
		want: `calendar line 7: VEVENT "e1@example.com": DTSTART "2026-06-01": neither a date (YYYYMMDD) nor a date-time (YYYYMMDDTHHMMSS, Z for UTC)`, code: 400,
	}, {
		name: "an unknown TZID names the parameter",
		ics:  cal(vevent("DTSTART;TZID=Mars/Olympus_Mons:20260601T100000")),
		want: `calendar line 6: VEVENT "e1@example.com": DTSTART;TZID "Mars/Olympus_Mons": names no zone: neither an IANA zone (Europe/Berlin), a Windows zone (W. Europe Standard Time) nor a VTIMEZONE of this calendar`, code: 400,
	}, {
		name: "a bad RRULE names its line",
		ics:  cal(vevent("DTSTART:20260601T100000Z", "RRULE:FREQ=FORTNIGHTLY")),
		want: `calendar line 7: VEVENT "e1@example.com": RRULE "FREQ=FORTNIGHTLY": undefined frequency: FORTNIGHTLY`, code: 400,
	}, {
		name: "a bad UNTIL names the RRULE",
		ics:  cal(vevent("DTSTART:20260601T100000Z", "RRULE:FREQ=DAILY;UNTIL=tomorrow")),
		want: `calendar line 7: VEVENT "e1@example.com": RRULE "FREQ=DAILY;UNTIL=tomorrow": UNTIL "tomorrow": neither a date (YYYYMMDD) nor a date-time (YYYYMMDDTHHMMSS, Z for UTC)`, code: 400,
	}, {
		name: "a negative DURATION is refused",
		ics:  cal(vevent("DTSTART:20260601T100000Z", "DURATION:-PT1H")),
		want: `calendar line 7: VEVENT "e1@example.com": DURATION "-PT1H": not a positive duration (P1D, PT1H30M, P2W)`, code: 400,
	}, {
		name: "DTEND before DTSTART is refused",
		ics:  cal(vevent("DTSTART:20260601T100000Z", "DTEND:20260601T090000Z")),
		want: `calendar line 7: VEVENT "e1@example.com": DTEND "20260601T090000Z": before DTSTART, or more than 3660 days after it`, code: 400,
	}, {
		name: "an event without UID is refused",
		ics:  cal("BEGIN:VEVENT", "DTSTART:20260601T100000Z", "END:VEVENT"),
		want: `calendar: VEVENT: UID: a VEVENT needs a UID`, code: 400,
	}, {
		name: "a rule on February 30 is refused: it never occurs",
		ics:  cal(vevent("DTSTART;VALUE=DATE:20260101", "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30,31")),
		want: `calendar line 7: VEVENT "e1@example.com": RRULE "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30,31": never occurs: no month of BYMONTH has a day of BYMONTHDAY`, code: 400,
	}, {
		name: "an hourly rule from 1990 expands past the limit and is refused, not run for long",
		ics:  cal(vevent("DTSTART:19900101T000000Z", "RRULE:FREQ=HOURLY")),
		want: `calendar line 7: VEVENT "e1@example.com": RRULE: instances from DTSTART to the end of the range: more than 200000`, code: 413,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import(c.ics, time.UTC, from, to)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
			var coded interface{ HTTPCode() int }
			if !errors.As(err, &coded) || coded.HTTPCode() != c.code {
				t.Errorf("code: got %v, want %d", coded, c.code)
			}
		})
	}
}

func TestImport_LimitErrorIsTyped(t *testing.T) {
	_, err := Import(make([]byte, MaxImportBytes+1), time.UTC, time.Time{}, time.Now())
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != MaxImportBytes {
		t.Fatalf("got %v, want a *LimitError at %d bytes", err, MaxImportBytes)
	}
}

func TestWindowsZones_Common(t *testing.T) {
	for win, want := range map[string]string{
		"W. Europe Standard Time":        "Europe/Berlin",
		"Romance Standard Time":          "Europe/Paris",
		"GMT Standard Time":              "Europe/London",
		"Eastern Standard Time":          "America/New_York",
		"Central Standard Time":          "America/Chicago",
		"Pacific Standard Time":          "America/Los_Angeles",
		"India Standard Time":            "Asia/Calcutta",
		"China Standard Time":            "Asia/Shanghai",
		"Tokyo Standard Time":            "Asia/Tokyo",
		"AUS Eastern Standard Time":      "Australia/Sydney",
		"E. South America Standard Time": "America/Sao_Paulo",
		"UTC":                            "Etc/UTC",
	} {
		if got := windowsZones[win]; got != want {
			t.Errorf("%q: got %q, want %q (CLDR windowsZones, territory 001)", win, got, want)
		}
	}
}

func TestWindowsZones_AllLoad(t *testing.T) {
	for win, iana := range windowsZones {
		if _, err := time.LoadLocation(iana); err != nil {
			t.Errorf("%q maps to %q: %v", win, iana, err)
		}
	}
	if got := len(windowsZones); got < 130 {
		t.Errorf("%d Windows zones, want CLDR's 001 rows (about 140)", got)
	}
}

func ExampleImport() {
	ics := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//example//EN\r\n" +
		"BEGIN:VEVENT\r\nUID:christmas@example.com\r\nDTSTART;VALUE=DATE:20261224\r\n" +
		"DTEND;VALUE=DATE:20261227\r\nSUMMARY:Christmas\r\nEND:VEVENT\r\n" +
		"BEGIN:VEVENT\r\nUID:release@example.com\r\nDTSTART;TZID=W. Europe Standard Time:20261203T220000\r\n" +
		"DURATION:PT8H\r\nRRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=2\r\nSUMMARY:Release night\r\nEND:VEVENT\r\n" +
		"END:VCALENDAR\r\n"
	berlin, _ := time.LoadLocation("Europe/Berlin")
	from := time.Date(2026, 12, 1, 0, 0, 0, 0, berlin)
	occs, err := Import([]byte(ics), berlin, from, from.AddDate(0, 1, 0))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range occs {
		fmt.Println(o.Start.Format("Mon 02 Jan 15:04"), "to", o.End.Format("Mon 02 Jan 15:04"), o.Summary)
	}
	// Output:
	// Thu 03 Dec 22:00 to Fri 04 Dec 06:00 Release night
	// Thu 10 Dec 22:00 to Fri 11 Dec 06:00 Release night
	// Thu 24 Dec 00:00 to Sun 27 Dec 00:00 Christmas
}
