package window_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

func Example() {
	w, err := window.Parse(window.Spec{
		Type:      window.Recurring,
		TimeZone:  "Europe/Berlin",
		Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}},
	})
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 10, 24, 21, 0, 0, 0, time.UTC) // 23:00 in Berlin, the night clocks go back
	next, _ := w.NextEdge(now)
	fmt.Println(w.Describe())
	fmt.Println("active:", w.Active(now))
	fmt.Println("ends:", next)
	// Output:
	// every day at 22:00 Europe/Berlin for 8h
	// active: true
	// ends: 2026-10-25 05:00:00 +0100 CET
}

func ExampleWindow_Occurrences() {
	w, _ := window.Parse(window.Spec{
		Type:      window.Recurring,
		TimeZone:  "Europe/Berlin",
		Schedules: []window.Schedule{{Cron: "30 2 * * *", Duration: "30m"}},
	})
	// 02:30 does not exist on Mar 29 and happens twice on Oct 25.
	for _, day := range []string{"2026-03-28", "2026-10-24"} {
		from, _ := time.ParseInLocation("2006-01-02", day, w.Location())
		for _, iv := range w.Occurrences(from, from.AddDate(0, 0, 3)) {
			fmt.Println(iv.Start.Format("Mon Jan 2 15:04 MST"), "to", iv.End.Format("15:04 MST"))
		}
	}
	// Output:
	// Sat Mar 28 02:30 CET to 03:00 CET
	// Mon Mar 30 02:30 CEST to 03:00 CEST
	// Sat Oct 24 02:30 CEST to 03:00 CEST
	// Sun Oct 25 02:30 CEST to 02:00 CET
	// Sun Oct 25 02:30 CET to 03:00 CET
	// Mon Oct 26 02:30 CET to 03:00 CET
}

func ExampleWindow_Containing() {
	// Weekdays from 09:00 for 8h and from 17:00 for 16h chain into a week.
	w, _ := window.Parse(window.Spec{
		Type: window.Recurring,
		Schedules: []window.Schedule{
			{Cron: "0 9 * * 1-5", Duration: "8h"},
			{Cron: "0 17 * * 1-5", Duration: "16h"},
		},
	}, window.WithLookAround(3*24*time.Hour))
	iv, _ := w.Containing(time.Date(2026, 6, 3, 12, 0, 0, 0, time.UTC))
	fmt.Println(iv.Start, iv.OpenStart)
	fmt.Println(iv.End, iv.OpenEnd)
	// Output:
	// 2026-06-01 09:00:00 +0000 UTC false
	// 2026-06-06 09:00:00 +0000 UTC false
}

func ExampleParse_error() {
	_, err := window.Parse(window.Spec{
		Type:     window.TimeRange,
		StartAt:  &metav1.Time{Time: time.Date(2026, 12, 27, 6, 0, 0, 0, time.UTC)},
		EndAt:    &metav1.Time{Time: time.Date(2026, 12, 24, 22, 0, 0, 0, time.UTC)},
		TimeZone: "Europe/Berlín",
	})
	var perr *window.ParseError
	if errors.As(err, &perr) {
		for _, fe := range perr.Errs {
			fmt.Println(fe.Field+":", fe.Detail)
		}
	}
	// Output:
	// spec.window.timeZone: unknown time zone: must be an IANA name such as "Europe/Berlin" or "America/New_York"
	// spec.window.endAt: must be after startAt (2026-12-27T06:00:00Z)
}

func ExampleDescribe() {
	fmt.Println(window.Describe(window.Spec{
		Type:     window.Recurring,
		TimeZone: "America/New_York",
		Schedules: []window.Schedule{
			{Cron: "0 22 * * 1-5", Duration: "8h"},
			{Cron: "@weekly", Duration: "24h"},
		},
	}))
	// Output:
	// every Monday to Friday at 22:00 America/New_York for 8h; every Sunday at 00:00 America/New_York for 24h
}
