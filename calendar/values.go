package calendar

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// value is a DATE or DATE-TIME value of a property (RFC 5545 3.3.4,
// 3.3.5): a wall reading, and how to read it.
type value struct {
	// wall is the date (at midnight) or date-time, as written.
	wall time.Time
	// date is a DATE: a whole day.
	date bool
	// utc is a DATE-TIME in UTC form (ending in Z).
	utc bool
}

const (
	dateLayout     = "20060102"
	dateTimeLayout = "20060102T150405"
)

// parseValue reads "20261225", "20261225T090000" or "20261225T090000Z".
func parseValue(s string) (value, error) {
	switch {
	case len(s) == len(dateLayout) && digits(s):
		t, err := time.Parse(dateLayout, s)
		if err != nil {
			return value{}, fmt.Errorf("not a date (YYYYMMDD): %v", errText(err))
		}
		return value{wall: t, date: true}, nil
	case len(s) == len(dateTimeLayout)+1 && (s[len(s)-1] == 'Z' || s[len(s)-1] == 'z'):
		v, err := parseValue(s[:len(s)-1])
		if err != nil || v.date {
			return value{}, fmt.Errorf("not a date-time (YYYYMMDDTHHMMSSZ)")
		}
		v.utc = true
		return v, nil
	case len(s) == len(dateTimeLayout) && digits(s[:8]) && (s[8] == 'T' || s[8] == 't') && digits(s[9:]):
		t, err := time.Parse(dateTimeLayout, strings.ToUpper(s))
		if err != nil {
			return value{}, fmt.Errorf("not a date-time (YYYYMMDDTHHMMSS): %v", errText(err))
		}
		return value{wall: t}, nil
	}
	return value{}, fmt.Errorf("neither a date (YYYYMMDD) nor a date-time (YYYYMMDDTHHMMSS, Z for UTC)")
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// errText drops the quoted input time.Parse repeats.
func errText(err error) string {
	if pe, ok := err.(*time.ParseError); ok && pe.Message != "" {
		return strings.TrimPrefix(pe.Message, ": ")
	}
	return "out of range"
}

// duration is a DURATION value (RFC 5545 3.3.6): days and weeks are
// nominal (a day is a calendar day, 23 or 25 hours across a DST change),
// hours, minutes and seconds exact.
type duration struct {
	days  int
	exact time.Duration
}

// maxDurationDays bounds a DURATION: no event lasts longer than ten
// years.
const maxDurationDays = 3660

// parseDuration reads "P1D", "PT1H30M", "P2W", "P1DT12H". A negative or
// zero duration is refused: an event's DURATION must be positive.
func parseDuration(s string) (duration, error) {
	bad := fmt.Errorf("not a positive duration (P1D, PT1H30M, P2W)")
	u := strings.ToUpper(strings.TrimPrefix(s, "+"))
	if !strings.HasPrefix(u, "P") || len(u) < 3 {
		return duration{}, bad
	}
	var d duration
	inTime, seen := false, ""
	num := ""
	for _, r := range u[1:] {
		switch {
		case r >= '0' && r <= '9':
			if len(num) >= 9 {
				return duration{}, bad
			}
			num += string(r)
		case r == 'T' && !inTime && num == "":
			inTime = true
		case num != "" && strings.ContainsRune(map[bool]string{false: "WD", true: "HMS"}[inTime], r) && !strings.ContainsRune(seen, r):
			n, _ := strconv.Atoi(num)
			switch r {
			case 'W':
				d.days += 7 * n
			case 'D':
				d.days += n
			case 'H':
				d.exact += time.Duration(n) * time.Hour
			case 'M':
				d.exact += time.Duration(n) * time.Minute
			case 'S':
				d.exact += time.Duration(n) * time.Second
			}
			seen += string(r)
			num = ""
		default:
			return duration{}, bad
		}
	}
	if num != "" || (inTime && d.exact == 0 && !strings.ContainsAny(seen, "HMS")) {
		return duration{}, bad
	}
	if d.days > maxDurationDays || d.exact > maxDurationDays*24*time.Hour {
		return duration{}, fmt.Errorf("longer than %d days", maxDurationDays)
	}
	if d.days == 0 && d.exact == 0 {
		return duration{}, bad
	}
	return d, nil
}

// parseOffset reads a UTC-OFFSET value (RFC 5545 3.3.14): +0100, -0500,
// +053000. The result is in seconds.
func parseOffset(s string) (int64, error) {
	bad := fmt.Errorf("not a UTC offset (+HHMM or -HHMM)")
	if (len(s) != 5 && len(s) != 7) || (s[0] != '+' && s[0] != '-') || !digits(s[1:]) {
		return 0, bad
	}
	h, _ := strconv.Atoi(s[1:3])
	m, _ := strconv.Atoi(s[3:5])
	sec := 0
	if len(s) == 7 {
		sec, _ = strconv.Atoi(s[5:7])
	}
	if h > 23 || m > 59 || sec > 59 {
		return 0, bad
	}
	off := int64(h*3600 + m*60 + sec)
	if s[0] == '-' {
		off = -off
	}
	return off, nil
}
