package window

import (
	"errors"
	"fmt"
	"strings"

	"github.com/robfig/cron/v3"
)

// descriptors maps the named schedules that Kubernetes CronJobs also accept
// to the five-field expression they stand for. "@every" is refused: it is an
// interval counted from whenever a process starts, not a time of day.
var descriptors = map[string]string{
	"@yearly":   "0 0 1 1 *",
	"@annually": "0 0 1 1 *",
	"@monthly":  "0 0 1 * *",
	"@weekly":   "0 0 * * 0",
	"@daily":    "0 0 * * *",
	"@midnight": "0 0 * * *",
	"@hourly":   "0 * * * *",
}

// fiveField is robfig/cron's standard syntax without descriptors:
// minute hour day-of-month month day-of-week, with *, ?, lists, ranges,
// steps and the names jan-dec and sun-sat. Day of week is 0-6 (7 is not
// Sunday). When either day field is * (or ?), a day must match both day
// fields; otherwise it must match either of them.
var fiveField = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// parseCron compiles a schedule expression. The time zone is not part of
// the expression: the window's timeZone applies.
func parseCron(expr string) (sched *cron.SpecSchedule, err error) {
	defer func() {
		if r := recover(); r != nil { // robfig/cron panics on a few malformed inputs
			sched, err = nil, fmt.Errorf("invalid cron expression: %v", r)
		}
	}()
	e := strings.TrimSpace(expr)
	switch {
	case e == "":
		return nil, errors.New("must not be empty")
	case strings.HasPrefix(e, "TZ=") || strings.HasPrefix(e, "CRON_TZ="):
		return nil, errors.New("must not carry a TZ= or CRON_TZ= prefix: set timeZone instead")
	case strings.HasPrefix(e, "@every"):
		return nil, errors.New("@every is an interval from whenever a process starts, not a time of day: use a five-field cron expression")
	case strings.HasPrefix(e, "@"):
		f, ok := descriptors[e]
		if !ok {
			return nil, errors.New("unknown descriptor: use a five-field cron expression or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly")
		}
		e = f
	}
	s, err := fiveField.Parse(e)
	if err != nil {
		return nil, fmt.Errorf("invalid cron expression: %v", err)
	}
	return s.(*cron.SpecSchedule), nil
}
