package window_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/window"
)

func TestListing_Table(t *testing.T) {
	from := when(t, "Mon Nov 2 2026 00:00 UTC")
	cases := map[string]struct {
		spec     window.Spec
		from, to time.Time
		opts     []window.Option
		header   string
		rows     []string
	}{
		"a length of 30 minutes reads 30m, not 3": {
			spec: recurring("UTC", "0 12 * * *", "30m"), from: from, to: from.Add(24 * time.Hour),
			header: "START (UTC) | END (UTC) | LENGTH",
			rows:   []string{"Mon 2026-11-02 12:00 UTC | Mon 2026-11-02 12:30 UTC | 30m"},
		},
		"a length of 1h30m reads 1h30m, not 1h3": {
			spec: recurring("UTC", "0 12 * * *", "90m"), from: from, to: from.Add(24 * time.Hour),
			header: "START (UTC) | END (UTC) | LENGTH",
			rows:   []string{"Mon 2026-11-02 12:00 UTC | Mon 2026-11-02 13:30 UTC | 1h30m"},
		},
		"a length of whole hours reads 8h": {
			spec: recurring("UTC", "0 22 * * *", "8h"), from: from, to: from.Add(24 * time.Hour),
			header: "START (UTC) | END (UTC) | LENGTH",
			rows: []string{
				"Sun 2026-11-01 22:00 UTC | Mon 2026-11-02 06:00 UTC | 8h",
				"Mon 2026-11-02 22:00 UTC | Tue 2026-11-03 06:00 UTC | 8h",
			},
		},
		"a zone other than UTC gets the UTC columns too, and elapsed lengths across a DST change": {
			spec: recurring("America/New_York", "30 1 * * *", "2h"),
			from: when(t, "Sun Mar 8 2026 00:00 UTC"), to: when(t, "Sun Mar 8 2026 12:00 UTC"),
			header: "START (America/New_York) | END (America/New_York) | START (UTC) | END (UTC) | LENGTH",
			rows:   []string{"Sun 2026-03-08 01:30 EST | Sun 2026-03-08 04:30 EDT | Sun 2026-03-08 06:30 UTC | Sun 2026-03-08 08:30 UTC | 2h"},
		},
		"a permanent window runs until canceled and has no length": {
			spec: window.Spec{Type: window.Permanent, StartAt: mt(from)}, from: from.Add(time.Hour), to: from.Add(48 * time.Hour),
			header: "START (UTC) | END (UTC) | LENGTH",
			rows:   []string{"Mon 2026-11-02 00:00 UTC | until canceled | -"},
		},
		"a permanent window without a start was always active": {
			spec: window.Spec{Type: window.Permanent}, from: from, to: from.Add(time.Hour),
			header: "START (UTC) | END (UTC) | LENGTH",
			rows:   []string{"since ever | until canceled | -"},
		},
		"an interval past the look-ahead is a bound, and so is its length": {
			spec: recurring("UTC", "0 0 * * *", "24h"), from: from, to: from.Add(time.Hour),
			opts:   []window.Option{window.WithLookAround(48 * time.Hour)},
			header: "START (UTC) | END (UTC) | LENGTH",
			rows:   []string{"<= Sat 2026-10-31 00:00 UTC | >= Wed 2026-11-04 01:00 UTC | >= 97h"},
		},
		"a range without intervals has no rows": {
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(from), EndAt: mt(from.Add(time.Hour))},
			from: from.Add(2 * time.Hour), to: from.Add(3 * time.Hour),
			header: "START (UTC) | END (UTC) | LENGTH",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := mustParse(t, c.spec, c.opts...)
			header, rows := w.List(c.from, c.to).Table()
			if got := strings.Join(header, " | "); got != c.header {
				t.Errorf("header %q, want %q", got, c.header)
			}
			got := []string{}
			for _, r := range rows {
				got = append(got, strings.Join(r, " | "))
			}
			if diff := cmp.Diff(append([]string{}, c.rows...), got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWindow_ListEnd(t *testing.T) {
	start, end := when(t, "Thu Dec 24 2026 18:00 UTC"), when(t, "Sun Dec 27 2026 06:00 UTC")
	christmas := window.Spec{Type: window.TimeRange, StartAt: mt(start), EndAt: mt(end)}
	cases := map[string]struct {
		spec window.Spec
		opts []window.Option
		from time.Time
		want time.Time
	}{
		"a time range is listed to its end": {
			spec: christmas, from: start.AddDate(0, -1, 0), want: end,
		},
		"a time range that has ended is listed for the look-around": {
			spec: christmas, from: end, want: end.Add(window.DefaultLookAround),
		},
		"a recurring window is listed for the look-around": {
			spec: recurring("UTC", "0 22 * * *", "8h"), from: start, want: start.Add(14 * 24 * time.Hour),
		},
		"a look-around of its own sets the default range": {
			spec: recurring("UTC", "0 22 * * *", "8h"), opts: []window.Option{window.WithLookAround(72 * time.Hour)},
			from: start, want: start.Add(72 * time.Hour),
		},
		"a permanent window is listed for the look-around": {
			spec: window.Spec{Type: window.Permanent, StartAt: mt(start)}, from: start, want: start.Add(window.DefaultLookAround),
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := mustParse(t, c.spec, c.opts...)
			if got := w.ListEnd(c.from); !got.Equal(c.want) {
				t.Errorf("ListEnd = %s, want %s", got, c.want)
			}
			if got := w.List(c.from, time.Time{}); !got.To.Equal(c.want) || !got.From.Equal(c.from) {
				t.Errorf("List(from, zero) covers [%s, %s), want [%s, %s)", got.From, got.To, c.from, c.want)
			}
		})
	}
}

// The JSON of a listing has both readings of every known edge, and no
// edge that does not exist.
func TestListing_JSON(t *testing.T) {
	w := mustParse(t, window.Spec{Type: window.Permanent, StartAt: mt(when(t, "Mon Nov 2 2026 09:00 Europe/Berlin")), TimeZone: "Europe/Berlin"})
	from := when(t, "Fri Nov 20 2026 00:00 UTC")
	data, err := json.Marshal(w.List(from, from.Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"window":"permanent from 2026-11-02 09:00 Europe/Berlin","timeZone":"Europe/Berlin",` +
		`"from":"2026-11-20T00:00:00Z","to":"2026-11-20T01:00:00Z",` +
		`"intervals":[{"start":"2026-11-02T09:00:00+01:00","startUTC":"2026-11-02T08:00:00Z","openEnd":true}]}`
	if string(data) != want {
		t.Errorf("JSON:\n got %s\nwant %s", data, want)
	}
	// An empty range lists no intervals, as [] rather than null.
	data, _ = json.Marshal(w.List(from, from))
	if !strings.Contains(string(data), `"intervals":[]`) {
		t.Errorf("empty listing: %s", data)
	}
}

func ExampleListing_Table() {
	w, _ := window.Parse(window.Spec{
		Type:      window.Recurring,
		TimeZone:  "Europe/Berlin",
		Schedules: []window.Schedule{{Cron: "30 22 * * 5", Duration: "90m"}},
	})
	from := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)
	l := w.List(from, time.Time{}) // the default range: 14 days
	fmt.Println(l.Window)
	header, rows := l.Table()
	fmt.Println(strings.Join(header, " | "))
	for _, r := range rows {
		fmt.Println(strings.Join(r, " | "))
	}
	// Output:
	// every Friday at 22:30 Europe/Berlin for 1h30m
	// START (Europe/Berlin) | END (Europe/Berlin) | START (UTC) | END (UTC) | LENGTH
	// Fri 2026-10-23 22:30 CEST | Sat 2026-10-24 00:00 CEST | Fri 2026-10-23 20:30 UTC | Fri 2026-10-23 22:00 UTC | 1h30m
	// Fri 2026-10-30 22:30 CET | Sat 2026-10-31 00:00 CET | Fri 2026-10-30 21:30 UTC | Fri 2026-10-30 23:00 UTC | 1h30m
}
