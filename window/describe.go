package window

import (
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Describe returns a short human description of a window for CLIs, reports
// and dashboards, such as "every day at 22:00 Europe/Berlin for 8h" or
// "from 2026-12-24 22:00 to 2026-12-27 06:00 UTC". Times are read in the
// window's zone. It never fails: the parts of an invalid spec it cannot
// read are quoted as they are.
func Describe(spec Spec) string {
	loc, zoneName, note := describeZone(spec.TimeZone)
	var s string
	switch spec.Type {
	case Permanent:
		s = "permanent"
		if spec.StartAt != nil {
			s += " from " + formatWall(spec.StartAt, loc) + " " + zoneName
		}
	case TimeRange:
		s = strings.TrimPrefix(describePeriod(spec.StartAt, spec.EndAt, loc, zoneName), ", ")
		if s == "" {
			s = "time range without startAt and endAt"
		}
	case Recurring:
		parts := make([]string, 0, len(spec.Schedules))
		for _, sc := range spec.Schedules {
			parts = append(parts, describeSchedule(sc, zoneName))
		}
		s = strings.Join(parts, "; ")
		if s == "" {
			s = "recurring without schedules"
		}
		s += describePeriod(spec.StartAt, spec.EndAt, loc, zoneName)
	default:
		s = fmt.Sprintf("window of unknown type %q", spec.Type)
	}
	if len(spec.Except) > 0 {
		parts := make([]string, 0, len(spec.Except))
		for _, e := range spec.Except {
			parts = append(parts, describeException(e, zoneName))
		}
		s += ", except " + list(parts)
	}
	if spec.Freeze == FreezeOutside {
		s = "frozen outside: " + s
	}
	return s + note
}

// describeException renders one exception: "on 2026-12-24", "from A to B
// zone", a schedule as describeSchedule does, or "the calendar in
// ConfigMap holidays, key de.ics". Times are read in the window's zone.
func describeException(e Exception, zoneName string) string {
	loc, _, _ := describeZone(zoneName)
	var parts []string
	if e.Date != "" {
		parts = append(parts, "on "+e.Date)
	}
	if e.StartAt != nil || e.EndAt != nil {
		parts = append(parts, strings.TrimPrefix(describePeriod(e.StartAt, e.EndAt, loc, zoneName), ", "))
	}
	if e.Schedule != nil {
		parts = append(parts, describeSchedule(*e.Schedule, zoneName))
	}
	if e.Calendar != nil {
		r := e.Calendar.ConfigMapKeyRef
		parts = append(parts, fmt.Sprintf("the calendar in ConfigMap %q, key %q", r.Name, r.Key))
	}
	if len(parts) == 0 {
		return "an empty exception"
	}
	return strings.Join(parts, " and ")
}

func describeZone(name string) (loc *time.Location, label, note string) {
	if name == "" || name == "UTC" {
		return time.UTC, "UTC", ""
	}
	if l, err := time.LoadLocation(name); err == nil && name != "Local" {
		return l, name, ""
	}
	return time.UTC, "UTC", fmt.Sprintf(" (unknown time zone %q)", name)
}

// describePeriod renders ", from A to B zone", ", from A zone" or
// ", until B zone", or "" when neither is set.
func describePeriod(start, end *metav1.Time, loc *time.Location, zone string) string {
	switch {
	case start != nil && end != nil:
		return ", from " + formatWall(start, loc) + " to " + formatWall(end, loc) + " " + zone
	case start != nil:
		return ", from " + formatWall(start, loc) + " " + zone
	case end != nil:
		return ", until " + formatWall(end, loc) + " " + zone
	}
	return ""
}

func formatWall(t *metav1.Time, loc *time.Location) string {
	l := t.In(loc)
	if l.Second() != 0 || l.Nanosecond() != 0 {
		return l.Format("2006-01-02 15:04:05.999999999")
	}
	return l.Format("2006-01-02 15:04")
}

func describeSchedule(s Schedule, zone string) string {
	when := fmt.Sprintf("cron %q", strings.TrimSpace(s.Cron))
	if c, err := parseCron(s.Cron); err == nil {
		if text, ok := describeCron(c); ok {
			when = text
		}
	}
	dur := fmt.Sprintf("%q", s.Duration)
	if d, err := time.ParseDuration(s.Duration); err == nil {
		dur = formatDuration(d)
	}
	return when + " " + zone + " for " + dur
}

// formatDuration prints 8h rather than 8h0m0s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

const (
	allMinutes  = 1<<60 - 1
	allHours    = 1<<24 - 1
	allDom      = (1<<32 - 1) &^ 1
	allMonths   = (1<<13 - 1) &^ 1
	allWeekdays = 1<<7 - 1
)

var weekdayNames = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// describeCron renders the common shapes of cron expressions; ok is false
// for the others, which are then shown as written.
func describeCron(c *cron.SpecSchedule) (string, bool) {
	mins, hours := c.Minute&allMinutes, c.Hour&allHours
	days, ok := describeDays(c)
	if !ok {
		return "", false
	}
	switch {
	case mins == allMinutes && hours == allHours:
		return join(days, "every minute"), true
	case hours == allHours && bits.OnesCount64(mins) == 1:
		return join(days, fmt.Sprintf("every hour at :%02d", bits.TrailingZeros64(mins))), true
	case bits.OnesCount64(mins)*bits.OnesCount64(hours) > 4:
		return "", false
	}
	var times []string
	for h := range 24 {
		for m := range 60 {
			if hours&(1<<h) != 0 && mins&(1<<m) != 0 {
				times = append(times, fmt.Sprintf("%02d:%02d", h, m))
			}
		}
	}
	if days == "" {
		days = "every day"
	}
	return days + " at " + list(times), true
}

func join(days, times string) string {
	if days == "" {
		return times
	}
	return days + ", " + times
}

// describeDays renders the day fields ("" for every day).
func describeDays(c *cron.SpecSchedule) (string, bool) {
	dom, dow, months := c.Dom&allDom, c.Dow&allWeekdays, c.Month&allMonths
	andDays := c.Dom&starBit != 0 || c.Dow&starBit != 0
	in := ""
	if months != allMonths {
		in = " in " + list(names(months, 1, 12, func(i int) string { return time.Month(i).String() }))
	}
	switch {
	case dom == allDom && dow == allWeekdays, !andDays && (dom == allDom || dow == allWeekdays):
		if in == "" {
			return "", true
		}
		return "every day" + in, true
	case !andDays:
		return "", false
	case dom == allDom:
		return "every " + list(names(dow, 0, 6, func(i int) string { return weekdayNames[i] })) + in, true
	}
	days := names(dom, 1, 31, func(i int) string { return fmt.Sprint(i) })
	if bits.OnesCount64(dom) == 1 && bits.OnesCount64(months) == 1 {
		return "on " + days[0] + " " + time.Month(bits.TrailingZeros64(months)).String(), true
	}
	of := " of every month"
	if in != "" {
		of = " of" + strings.TrimPrefix(in, " in")
	}
	word := "on day "
	if len(days) > 1 {
		word = "on days "
	}
	return word + list(days) + of, true
}

// names lists the set bits of b in [lo, hi], writing runs of three or more
// as "A to B".
func names(b uint64, lo, hi int, name func(int) string) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		if b&(1<<i) == 0 {
			continue
		}
		j := i
		for j+1 <= hi && b&(1<<(j+1)) != 0 {
			j++
		}
		switch {
		case j-i >= 2:
			out = append(out, name(i)+" to "+name(j))
		case j > i:
			out = append(out, name(i), name(j))
		default:
			out = append(out, name(i))
		}
		i = j
	}
	return out
}

// list joins "a", "a and b", "a, b and c".
func list(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
