package window

import (
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxDuration is the longest duration of one occurrence.
const MaxDuration = 168 * time.Hour

var knownTypes = []Type{Permanent, TimeRange, Recurring}

// Validate checks a window spec and returns every problem at once, each with
// its field path under fldPath (for example spec.window.schedules[1].cron)
// and the bad value quoted. It never changes spec.
//
// Rules: type is required and one of permanent, time_range, recurring.
// time_range needs startAt and endAt, endAt after startAt, and no
// schedules. permanent takes an optional startAt and neither endAt nor
// schedules. recurring needs at least one schedule; its optional startAt
// and endAt bound a validity period (endAt after startAt). Each schedule's
// cron is five fields (minute hour day-of-month month day-of-week, in
// robfig/cron's syntax) or one of @yearly, @annually, @monthly, @weekly,
// @daily, @midnight, @hourly; @every and TZ=/CRON_TZ= prefixes are refused
// (the zone is timeZone). Each duration is Go syntax ("8h", "90m"),
// greater than zero and at most 168h. timeZone, when set, is an IANA name
// that time.LoadLocation knows; "Local" is refused because it depends on
// the machine. freeze is during (default) or outside, and outside only for
// a recurring window. Each entry of except is exactly one of a date
// (YYYY-MM-DD), startAt and endAt (endAt after startAt), a schedule (as
// above) or a calendar (a ConfigMap name and key); at most 500 entries.
func Validate(spec Spec, fldPath *field.Path) field.ErrorList {
	_, errs := check(&spec, fldPath)
	return errs
}

// checked is what check learned while validating: Parse compiles from it
// rather than parsing everything twice.
type checked struct {
	loc    *time.Location
	crons  []*cron.SpecSchedule
	durs   []time.Duration
	except checkedExcept
}

func check(spec *Spec, fldPath *field.Path) (checked, field.ErrorList) {
	var c checked
	var errs field.ErrorList
	c.loc, errs = checkZone(spec.TimeZone, fldPath.Child("timeZone"))
	typePath := fldPath.Child("type")
	switch spec.Type {
	case "":
		errs = append(errs, field.Required(typePath, "must be one of permanent, time_range, recurring"))
	case Permanent:
		errs = append(errs, forbid(spec, fldPath, false, "a permanent window")...)
	case TimeRange:
		if spec.StartAt == nil {
			errs = append(errs, field.Required(fldPath.Child("startAt"), "a time_range window needs startAt"))
		}
		if spec.EndAt == nil {
			errs = append(errs, field.Required(fldPath.Child("endAt"), "a time_range window needs endAt"))
		}
		errs = append(errs, checkOrder(spec, fldPath)...)
		errs = append(errs, forbid(spec, fldPath, true, "a time_range window")...)
	case Recurring:
		var serrs field.ErrorList
		c.crons, c.durs, serrs = checkSchedules(spec.Schedules, fldPath.Child("schedules"))
		errs = append(errs, serrs...)
		errs = append(errs, checkOrder(spec, fldPath)...)
	default:
		errs = append(errs, field.NotSupported(typePath, string(spec.Type), knownTypes))
	}
	errs = append(errs, checkFreeze(spec, fldPath)...)
	var eerrs field.ErrorList
	c.except, eerrs = checkExcept(spec.Except, fldPath)
	return c, append(errs, eerrs...)
}

// forbid refuses the fields a permanent (endAt, schedules) or time_range
// (schedules) window does not take.
func forbid(spec *Spec, fldPath *field.Path, allowEnd bool, what string) field.ErrorList {
	var errs field.ErrorList
	if spec.EndAt != nil && !allowEnd {
		errs = append(errs, field.Forbidden(fldPath.Child("endAt"), what+" has no end: cancel the plan to end it"))
	}
	if len(spec.Schedules) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("schedules"), what+" takes no schedules: use type recurring"))
	}
	return errs
}

func checkOrder(spec *Spec, fldPath *field.Path) field.ErrorList {
	if spec.StartAt == nil || spec.EndAt == nil || spec.EndAt.After(spec.StartAt.Time) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath.Child("endAt"), formatRFC3339(spec.EndAt.Time),
		fmt.Sprintf("must be after startAt (%s)", formatRFC3339(spec.StartAt.Time)))}
}

func formatRFC3339(t time.Time) string { return t.Format(time.RFC3339Nano) }

func checkZone(name string, p *field.Path) (*time.Location, field.ErrorList) {
	switch name {
	case "", "UTC":
		return time.UTC, nil
	case "Local":
		return nil, field.ErrorList{field.Invalid(p, name, `must be an IANA time zone name such as "Europe/Berlin": "Local" depends on the machine`)}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(p, name, `unknown time zone: must be an IANA name such as "Europe/Berlin" or "America/New_York"`)}
	}
	return loc, nil
}

func checkSchedules(scheds []Schedule, p *field.Path) ([]*cron.SpecSchedule, []time.Duration, field.ErrorList) {
	if len(scheds) == 0 {
		return nil, nil, field.ErrorList{field.Required(p, "a recurring window needs at least one schedule")}
	}
	var errs field.ErrorList
	crons := make([]*cron.SpecSchedule, len(scheds))
	durs := make([]time.Duration, len(scheds))
	for i, s := range scheds {
		ip := p.Index(i)
		c, err := parseCron(s.Cron)
		if err != nil {
			errs = append(errs, field.Invalid(ip.Child("cron"), s.Cron, err.Error()))
		}
		d, derr := checkDuration(s.Duration, ip.Child("duration"))
		errs = append(errs, derr...)
		crons[i], durs[i] = c, d
	}
	return crons, durs, errs
}

func checkDuration(s string, p *field.Path) (time.Duration, field.ErrorList) {
	if s == "" {
		return 0, field.ErrorList{field.Required(p, `a Go duration such as "8h" or "90m"`)}
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, field.ErrorList{field.Invalid(p, s, `must be a Go duration such as "8h" or "90m"`)}
	case d <= 0:
		return 0, field.ErrorList{field.Invalid(p, s, "must be greater than 0")}
	case d > MaxDuration:
		return 0, field.ErrorList{field.Invalid(p, s, "must be at most 168h")}
	}
	return d, nil
}
