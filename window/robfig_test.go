package window_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/robfig/cron/v3"
)

// TestRobfigNext pins down how robfig/cron's Next (v3.0.1) differs from the
// window's starts over all of 2026: it agrees in Europe/Berlin and
// America/New_York (and at the midnight transitions of Santiago and
// Havana), but at Lord Howe's 30-minute shifts it invents and misses
// starts. That is why the window does not step with Next.
func TestRobfigNext(t *testing.T) {
	zones := []string{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "America/Havana"}
	specs := []string{"30 2 * * *", "0 * * * *", "*/15 * * * *", "30 1 * * *", "45 1 * * *", "15 2 * * *", "0 0 * * *", "30 0 * * *", "30 23 * * *"}
	want := []string{
		`Australia/Lord_Howe "30 1 * * *": robfig adds Sun Oct 4 2026 02:30 +1100`,
		`Australia/Lord_Howe "45 1 * * *": robfig adds Sun Oct 4 2026 02:45 +1100`,
		`Australia/Lord_Howe "15 2 * * *": robfig misses Sun Apr 5 2026 02:15 +1030`,
		`Australia/Lord_Howe "0 0 * * *": robfig misses Mon Apr 6 2026 00:00 +1030`,
		`Australia/Lord_Howe "0 0 * * *": robfig misses Mon Oct 5 2026 00:00 +1100`,
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	var got []string
	for _, z := range zones {
		loc, _ := time.LoadLocation(z)
		for _, sp := range specs {
			w := mustParse(t, recurring(z, sp, "1s"))
			var ours []time.Time
			for _, iv := range w.Occurrences(from, to) {
				ours = append(ours, iv.Start)
			}
			c, _ := cron.ParseStandard(sp)
			c.(*cron.SpecSchedule).Location = loc
			var theirs []time.Time
			for x := c.Next(from.Add(-time.Second)); x.Before(to) && !x.IsZero(); x = c.Next(x) {
				theirs = append(theirs, x)
			}
			got = append(got, diffStarts(z, sp, loc, ours, theirs)...)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("robfig/cron's Next against the window (-want +got):\n%s", diff)
	}
}

func diffStarts(z, spec string, loc *time.Location, ours, theirs []time.Time) []string {
	var out []string
	i, j := 0, 0
	for i < len(ours) || j < len(theirs) {
		switch {
		case j >= len(theirs) || (i < len(ours) && ours[i].Before(theirs[j])):
			out = append(out, z+" \""+spec+"\": robfig misses "+show(ours[i].In(loc)))
			i++
		case i >= len(ours) || theirs[j].Before(ours[i]):
			out = append(out, z+" \""+spec+"\": robfig adds "+show(theirs[j].In(loc)))
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return out
}
