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

// An allow window: changes only Tuesday and Thursday 10:00-12:00 in
// Berlin, frozen outside, and frozen on Christmas Eve (an exception closes
// the allowed time it covers).
func ExampleSpec_allow() {
	w, err := window.Parse(window.Spec{
		Type:      window.Recurring,
		TimeZone:  "Europe/Berlin",
		Schedules: []window.Schedule{{Cron: "0 10 * * 2,4", Duration: "2h"}},
		Freeze:    window.FreezeOutside,
		Except:    []window.Exception{{Date: "2026-12-24"}},
	})
	if err != nil {
		panic(err)
	}
	berlin := w.Location()
	fmt.Println(w.Describe())
	for _, at := range []time.Time{
		time.Date(2026, 12, 22, 11, 0, 0, 0, berlin), // Tuesday, inside
		time.Date(2026, 12, 22, 13, 0, 0, 0, berlin), // Tuesday, outside
		time.Date(2026, 12, 24, 11, 0, 0, 0, berlin), // Thursday, Christmas Eve
	} {
		fmt.Println(at.Format("Mon 15:04"), "frozen:", w.Active(at))
	}
	// Output:
	// frozen outside: every Tuesday and Thursday at 10:00 Europe/Berlin for 2h, except on 2026-12-24
	// Tue 11:00 frozen: false
	// Tue 13:00 frozen: true
	// Thu 11:00 frozen: true
}

// A nightly freeze lifted on a holiday: the date is read in the window's
// zone, and the night before ends at its midnight.
func ExampleException_date() {
	w, _ := window.Parse(window.Spec{
		Type:      window.Recurring,
		TimeZone:  "America/New_York",
		Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}},
		Except:    []window.Exception{{Date: "2026-07-04"}},
	})
	ny := w.Location()
	eve := time.Date(2026, 7, 3, 23, 0, 0, 0, ny)
	next, _ := w.NextEdge(eve)
	fmt.Println("July 3, 23:00 frozen:", w.Active(eve), "until", next.Format("Jan 2 15:04"))
	fmt.Println("July 4, 23:00 frozen:", w.Active(eve.AddDate(0, 0, 1)))
	fmt.Println("July 5, 23:00 frozen:", w.Active(eve.AddDate(0, 0, 2)))
	// Output:
	// July 3, 23:00 frozen: true until Jul 4 00:00
	// July 4, 23:00 frozen: false
	// July 5, 23:00 frozen: true
}
