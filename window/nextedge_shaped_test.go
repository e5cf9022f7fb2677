package window_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

// shapedAllocZones are three zones with transitions of every kind the
// shaped windows meet: at 02:00-03:00 both ways (Europe/Berlin), a
// half-hour change (Australia/Lord_Howe) and a change at midnight
// (America/Santiago), which moves the dates an exception names.
var shapedAllocZones = []string{"Europe/Berlin", "Australia/Lord_Howe", "America/Santiago"}

// shapedAllocWindows are windows with exceptions and allow windows, in
// zone: dates on and around the zone's 2026 transition days, an exact
// interval, a holiday calendar, exception schedules (weekends, and short
// breaks inside a window of many occurrences a day), allow windows with
// and without a validity period, and a time range and a permanent window
// with exceptions.
func shapedAllocWindows(tb testing.TB, zone string) map[string]*window.Window {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		tb.Fatal(err)
	}
	at := func(s string) *metav1.Time {
		t, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			tb.Fatal(err)
		}
		return &metav1.Time{Time: t}
	}
	var dates []string
	for d := time.Date(2026, 1, 1, 0, 0, 0, 0, loc); d.Year() == 2026; d = d.AddDate(0, 0, 1) {
		if transitionDay(d) {
			dates = append(dates, d.Format(time.DateOnly), d.AddDate(0, 0, 1).Format(time.DateOnly))
		}
	}
	dates = append(dates, "2026-12-24", "2026-12-25", "2026-12-31")
	cal := []window.Interval{
		{Start: at("2026-05-01 00:00").Time, End: at("2026-05-02 00:00").Time},
		{Start: at("2026-08-10 00:00").Time, End: at("2026-08-24 00:00").Time},
	}
	weekends := exceptSchedule(recurring(zone, "0 20 * * *", "10h"), "0 0 * * 6", "48h")
	breaks := exceptSchedule(recurring(zone, "*/15 * * * *", "10m"), "0 12 * * *", "1h")
	validity := allow(recurring(zone, "0 1 * * 2", "3h"))
	validity.StartAt, validity.EndAt = at("2026-02-01 00:00"), at("2026-11-15 12:00")
	interval := nightly(zone)
	interval.Except = []window.Exception{{StartAt: at("2026-06-01 03:00"), EndAt: at("2026-06-15 23:30")}}
	calendar := nightly(zone)
	calendar.Except = []window.Exception{{Calendar: &window.CalendarSource{ConfigMapKeyRef: holidays}}}
	timeRange := exceptDates(window.Spec{Type: window.TimeRange, TimeZone: zone, StartAt: at("2026-03-01 00:00"), EndAt: at("2026-11-30 00:00")}, dates...)
	permanent := exceptDates(window.Spec{Type: window.Permanent, TimeZone: zone, StartAt: at("2026-01-10 08:00")}, dates...)
	return map[string]*window.Window{
		"a nightly freeze lifted on transition days and holidays": mustParse(tb, exceptDates(nightly(zone), dates...)),
		"a nightly freeze lifted for two weeks":                   mustParse(tb, interval),
		"a nightly freeze lifted on a calendar's holidays":        mustParse(tb, calendar, window.WithCalendar(holidays, cal)),
		"evenings frozen except weekends (a schedule)":            mustParse(tb, weekends),
		"10 minutes of every 15 frozen but at noon (a schedule)":  mustParse(tb, breaks),
		"an allow window at night, frozen otherwise":              mustParse(tb, allow(nightly(zone))),
		"an allow window with a validity period":                  mustParse(tb, validity),
		"an allow window but on transition days and holidays":     mustParse(tb, exceptDates(allow(recurring(zone, "30 1 * * *", "2h")), dates...)),
		"a time range with excepted dates":                        mustParse(tb, timeRange),
		"a permanent freeze with excepted dates":                  mustParse(tb, permanent),
	}
}

// TestShapedNextEdgeAllocs: NextEdge of windows with exceptions and of
// allow windows allocates nothing on any day of 2026 (asked every half
// hour) in three zones, transition days included, and finds the edge the
// interval lists of the look-around find (KnownNextEdge, asked every
// 7 hours, and every half hour of the days around a transition).
func TestShapedNextEdgeAllocs(t *testing.T) {
	for _, zone := range shapedAllocZones {
		loc, _ := time.LoadLocation(zone)
		for name, w := range shapedAllocWindows(t, zone) {
			for day := time.Date(2026, 1, 1, 0, 0, 0, 0, loc); day.Year() == 2026; day = day.AddDate(0, 0, 1) {
				near := transitionDay(day) || transitionDay(day.AddDate(0, 0, -1))
				if raceEnabled && day.Day()%7 != 0 && !near {
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
				for i := range 48 {
					if !near && (day.YearDay()*48+i)%14 != 0 {
						continue
					}
					at := day.Add(time.Duration(i) * 30 * time.Minute)
					got, gotOK := w.NextEdge(at)
					want, wantOK := w.KnownNextEdge(at)
					if gotOK != wantOK || !got.Equal(want) {
						t.Errorf("%s, %s: NextEdge(%s) = %s, %v; the look-around's lists say %s, %v", zone, name, show(at), show(got), gotOK, show(want), wantOK)
					}
				}
			}
		}
	}
}

// BenchmarkNextEdgeShapes measures NextEdge on the benchmark's 50
// schedules with 20 exception dates, and as an allow window, against
// plain NextEdge on the same schedules at the same instants in the same
// iterations (x-of-plain), and against the interval lists of the
// look-around NextEdge used before (x-of-lists, measured the same way;
// B/op and allocs/op are those lists', one call in 16).
func BenchmarkNextEdgeShapes(b *testing.B) {
	fx := newBenchFixture(b)
	except, allowed := shapedWindows(b, fx)
	for _, c := range []struct {
		name string
		ws   []*window.Window
	}{{"20 dates", except}, {"allow, 20 dates", allowed}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var shapedNs, plainNs, listsNs int64
			for i := 0; b.Loop(); i++ {
				z, at := fx.call(i)
				t0 := time.Now()
				sinkTime, sinkBool = c.ws[z].NextEdge(at)
				t1 := time.Now()
				sinkTime, sinkBool = fx.windows[z].NextEdge(at)
				t2 := time.Now()
				if i%16 == 0 { // the lists are slow: one call in 16
					sinkTime, sinkBool = c.ws[z].KnownNextEdge(at)
					listsNs += 16 * time.Since(t2).Nanoseconds()
				}
				shapedNs += t1.Sub(t0).Nanoseconds()
				plainNs += t2.Sub(t1).Nanoseconds()
			}
			b.ReportMetric(float64(shapedNs)/float64(b.N), "nextedge-ns/op")
			b.ReportMetric(float64(shapedNs)/float64(plainNs), "x-of-plain")
			b.ReportMetric(float64(shapedNs)/float64(listsNs), "x-of-lists")
		})
	}
}
