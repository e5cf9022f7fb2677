package window_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/telark/protectionplans/window"
)

// allocZones are zones with the transitions NextEdge has to get right: none
// (UTC), spring forward and fall back at 02:00-03:00 (Europe/Berlin,
// America/New_York), a half-hour change (Australia/Lord_Howe), a change at
// midnight (America/Santiago) and a negative summer time (Europe/Dublin).
var allocZones = []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Europe/Dublin"}

// allocWindows are recurring windows whose starts meet those transitions:
// the benchmark's 50 schedules, a start inside the repeated or skipped
// hour, one at midnight, and many short ones a day.
func allocWindows(zone string) map[string]window.Spec {
	return map[string]window.Spec{
		"the benchmark's 50 schedules":       {Type: window.Recurring, TimeZone: zone, Schedules: benchSchedules()},
		"a start at 02:30 for an hour":       recurring(zone, "30 2 * * *", "1h"),
		"a start at midnight for 30 minutes": recurring(zone, "0 0 * * *", "30m", "30 23 * * *", "1h"),
		"a start every 15 minutes for 5":     recurring(zone, "*/15 * * * *", "5m"),
		"weekend nights across the week end": recurring(zone, "0 22 * * 5", "56h", "0 1 * * 0", "2h"),
	}
}

// TestNextEdgeAllocs: NextEdge allocates nothing on any day of a year, in
// zones with every kind of transition, transition days included: each day
// is asked about every half hour.
func TestNextEdgeAllocs(t *testing.T) {
	for _, zone := range allocZones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for name, spec := range allocWindows(zone) {
			w := mustParse(t, spec)
			for day := time.Date(2026, 1, 1, 0, 0, 0, 0, loc); day.Year() == 2026; day = day.AddDate(0, 0, 1) {
				if raceEnabled && day.Day()%7 != 0 && !transitionDay(day) {
					continue
				}
				allocs := testing.AllocsPerRun(1, func() {
					for i := range 48 {
						sinkTime, sinkBool = w.NextEdge(day.Add(time.Duration(i) * 30 * time.Minute))
					}
				})
				if allocs != 0 {
					t.Errorf("%s, %s: %s: NextEdge allocates %v times in 48 calls, want 0", zone, name, day.Format("Mon Jan 2 2006"), allocs)
				}
			}
		}
	}
}

// transitionDay reports whether the zone's offset changes within the day
// after day's midnight.
func transitionDay(day time.Time) bool {
	_, a := day.Zone()
	_, b := day.Add(25 * time.Hour).Zone()
	return a != b
}

// BenchmarkNextEdgeSpansPerDay measures NextEdge on windows with 1 to 1,440
// occurrences a day (30 seconds each, so none merge), at instants spread
// over a day, against Active at the same instants in the same iterations
// (x-of-active): Active searches a day's spans, so a NextEdge that does
// too keeps the ratio flat as the spans grow.
func BenchmarkNextEdgeSpansPerDay(b *testing.B) {
	var at []time.Time
	day := time.Date(2026, 7, 15, 0, 0, 0, 0, time.UTC)
	for i := range 997 {
		at = append(at, day.Add(time.Duration(i)*86400*time.Second/997))
	}
	for _, c := range []struct {
		spans int
		cron  string
	}{{1, "0 12 * * *"}, {24, "0 * * * *"}, {288, "*/5 * * * *"}, {1440, "* * * * *"}} {
		for _, zone := range []string{"UTC", "Europe/Berlin"} {
			w := mustParse(b, recurring(zone, c.cron, "30s"))
			b.Run(fmt.Sprintf("spans=%d/%s", c.spans, zone), func(b *testing.B) {
				b.ReportAllocs()
				var edgeNs, activeNs int64
				for i := 0; b.Loop(); i++ {
					t := at[i%len(at)]
					t0 := time.Now()
					sinkTime, sinkBool = w.NextEdge(t)
					t1 := time.Now()
					sinkBool = w.Active(t)
					edgeNs += t1.Sub(t0).Nanoseconds()
					activeNs += time.Since(t1).Nanoseconds()
				}
				b.ReportMetric(float64(edgeNs)/float64(b.N), "nextedge-ns/op")
				b.ReportMetric(float64(activeNs)/float64(b.N), "active-ns/op")
				b.ReportMetric(float64(edgeNs)/float64(activeNs), "x-of-active")
			})
		}
	}
}

// BenchmarkNextEdgeTransitionDays measures NextEdge every 10 minutes of
// the 2026 transition days in Europe/Berlin and America/New_York, on the
// benchmark's 50 schedules, against the same zone's queries on the day
// before (x-of-day-before, in the same run).
func BenchmarkNextEdgeTransitionDays(b *testing.B) {
	for _, c := range []struct{ zone, day string }{
		{"Europe/Berlin", "2026-03-29"}, {"Europe/Berlin", "2026-10-25"},
		{"America/New_York", "2026-03-08"}, {"America/New_York", "2026-11-01"},
	} {
		loc, _ := time.LoadLocation(c.zone)
		d, _ := time.ParseInLocation("2006-01-02", c.day, loc)
		w := mustParse(b, window.Spec{Type: window.Recurring, TimeZone: c.zone, Schedules: benchSchedules()})
		var on, before []time.Time
		for m := 0; m < 24*60; m += 10 {
			on = append(on, d.Add(time.Duration(m)*time.Minute))
			before = append(before, d.AddDate(0, 0, -1).Add(time.Duration(m)*time.Minute))
		}
		b.Run(c.zone+"/"+c.day, func(b *testing.B) {
			b.ReportAllocs()
			var onNs, beforeNs int64
			for i := 0; b.Loop(); i++ {
				t0 := time.Now()
				sinkTime, sinkBool = w.NextEdge(on[i%len(on)])
				t1 := time.Now()
				sinkTime, sinkBool = w.NextEdge(before[i%len(before)])
				onNs += t1.Sub(t0).Nanoseconds()
				beforeNs += time.Since(t1).Nanoseconds()
			}
			b.ReportMetric(float64(onNs)/float64(b.N), "transition-ns/op")
			b.ReportMetric(float64(onNs)/float64(beforeNs), "x-of-day-before")
		})
	}
}
