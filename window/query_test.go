package window_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/window"
)

// showInterval prints an interval with the offsets of the window's zone.
func showInterval(iv window.Interval) string {
	s, e := show(iv.Start), show(iv.End)
	switch {
	case iv.OpenStart && iv.Start.IsZero():
		s = "always"
	case iv.OpenStart:
		s = "before " + s
	}
	switch {
	case iv.OpenEnd && iv.End.IsZero():
		e = "forever"
	case iv.OpenEnd:
		e = "after " + e
	}
	return s + " to " + e
}

func withValidity(s window.Spec, from, to time.Time) window.Spec {
	if !from.IsZero() {
		s.StartAt = mt(from)
	}
	if !to.IsZero() {
		s.EndAt = mt(to)
	}
	return s
}

func TestQueries(t *testing.T) {
	berlinNights := withValidity(recurring("Europe/Berlin", "0 22 * * *", "8h"),
		when(t, "Tue Dec 15 2026 00:00 Europe/Berlin"), when(t, "Sun Jan 3 2027 00:00 Europe/Berlin"))
	for _, c := range []struct {
		name   string
		spec   window.Spec
		opts   []window.Option
		at     string
		active bool
		next   string // "" when there is no edge
		in     string // Containing; "" when inactive
		ended  bool
	}{
		// Starts inclusive, ends exclusive; midnight and month ends.
		{name: "a nightly window is active at its first instant",
			spec: recurring("UTC", "0 22 * * *", "8h"), at: "Mon Jun 1 2026 22:00 UTC",
			active: true, next: "Tue Jun 2 2026 06:00 +0000", in: "Mon Jun 1 2026 22:00 +0000 to Tue Jun 2 2026 06:00 +0000"},
		{name: "a nightly window is inactive at its end",
			spec: recurring("UTC", "0 22 * * *", "8h"), at: "Tue Jun 2 2026 06:00 UTC",
			next: "Tue Jun 2 2026 22:00 +0000"},
		{name: "a window spanning midnight is active after midnight",
			spec: recurring("UTC", "0 22 * * *", "4h"), at: "Tue Jun 2 2026 01:00 UTC",
			active: true, next: "Tue Jun 2 2026 02:00 +0000", in: "Mon Jun 1 2026 22:00 +0000 to Tue Jun 2 2026 02:00 +0000"},
		{name: "a window starting on the 31st runs into the next month",
			spec: recurring("UTC", "0 20 31 * *", "8h"), at: "Sun Feb 1 2026 03:59 UTC",
			active: true, next: "Sun Feb 1 2026 04:00 +0000", in: "Sat Jan 31 2026 20:00 +0000 to Sun Feb 1 2026 04:00 +0000"},
		{name: "a monthly start further than the look-ahead is no edge yet",
			spec: recurring("UTC", "0 20 31 * *", "8h"), at: "Sun Feb 1 2026 04:00 UTC"},
		{name: "a window spanning new year's eve runs into the next year",
			spec: recurring("Europe/Berlin", "0 22 31 12 *", "8h"), at: "Fri Jan 1 2027 05:00 Europe/Berlin",
			active: true, next: "Fri Jan 1 2027 06:00 +0100", in: "Thu Dec 31 2026 22:00 +0100 to Fri Jan 1 2027 06:00 +0100"},
		{name: "a window that never fires is never active and has ended",
			spec: recurring("UTC", "0 0 30 2 *", "1h"), at: "Mon Feb 2 2026 00:00 UTC", ended: true},

		// Overlapping and adjacent schedules merge.
		{name: "overlapping schedules form one interval",
			spec: recurring("UTC", "0 22 * * *", "8h", "0 4 * * *", "4h"), at: "Wed Jul 1 2026 05:00 UTC",
			active: true, next: "Wed Jul 1 2026 08:00 +0000", in: "Tue Jun 30 2026 22:00 +0000 to Wed Jul 1 2026 08:00 +0000"},
		{name: "adjacent schedules form one interval and the edge between them is no edge",
			spec: recurring("UTC", "0 9 * * *", "3h", "0 12 * * *", "1h"), at: "Wed Jul 1 2026 11:00 UTC",
			active: true, next: "Wed Jul 1 2026 13:00 +0000", in: "Wed Jul 1 2026 09:00 +0000 to Wed Jul 1 2026 13:00 +0000"},
		{name: "a window active around the clock has open edges and no next edge",
			spec: recurring("UTC", "0 * * * *", "1h"), at: "Wed Jul 1 2026 12:00 UTC",
			active: true, in: "before Wed Jun 17 2026 12:00 +0000 to after Wed Jul 15 2026 12:00 +0000"},
		{name: "the look-around option moves the open edges",
			spec: recurring("UTC", "0 * * * *", "1h"), opts: []window.Option{window.WithLookAround(48 * time.Hour)}, at: "Wed Jul 1 2026 12:00 UTC",
			active: true, in: "before Mon Jun 29 2026 12:00 +0000 to after Fri Jul 3 2026 12:00 +0000"},

		// Europe/Berlin: clocks go forward on Mar 29 (02:00 -> 03:00) and back on Oct 25 (03:00 -> 02:00).
		{name: "Berlin: a start inside the skipped hour is skipped",
			spec: recurring("Europe/Berlin", "30 2 * * *", "1h"), at: "Sun Mar 29 2026 03:30 Europe/Berlin",
			next: "Mon Mar 30 2026 02:30 +0200"},
		{name: "Berlin: 22:00 plus 8h ends at 07:00 on the night clocks go forward",
			spec: recurring("Europe/Berlin", "0 22 * * *", "8h"), at: "Sun Mar 29 2026 06:59 Europe/Berlin",
			active: true, next: "Sun Mar 29 2026 07:00 +0200", in: "Sat Mar 28 2026 22:00 +0100 to Sun Mar 29 2026 07:00 +0200"},
		{name: "Berlin: 22:00 plus 8h ends at 05:00 on the night clocks go back",
			spec: recurring("Europe/Berlin", "0 22 * * *", "8h"), at: "Sun Oct 25 2026 04:59 Europe/Berlin",
			active: true, next: "Sun Oct 25 2026 05:00 +0100", in: "Sat Oct 24 2026 22:00 +0200 to Sun Oct 25 2026 05:00 +0100"},
		{name: "Berlin: a start inside the repeated hour fires twice and the two touching occurrences merge",
			spec: recurring("Europe/Berlin", "30 2 * * *", "1h"), at: "Sun Oct 25 2026 02:45 +0100 Europe/Berlin",
			active: true, next: "Sun Oct 25 2026 03:30 +0100", in: "Sun Oct 25 2026 02:30 +0200 to Sun Oct 25 2026 03:30 +0100"},
		{name: "Berlin: a short start inside the repeated hour fires twice, apart (first reading)",
			spec: recurring("Europe/Berlin", "30 2 * * *", "30m"), at: "Sun Oct 25 2026 02:45 +0200 Europe/Berlin",
			active: true, next: "Sun Oct 25 2026 02:00 +0100", in: "Sun Oct 25 2026 02:30 +0200 to Sun Oct 25 2026 02:00 +0100"},
		{name: "Berlin: a short start inside the repeated hour fires twice, apart (between the readings)",
			spec: recurring("Europe/Berlin", "30 2 * * *", "30m"), at: "Sun Oct 25 2026 02:15 +0100 Europe/Berlin",
			next: "Sun Oct 25 2026 02:30 +0100"},

		// America/New_York: forward on Mar 8 (02:00 -> 03:00), back on Nov 1 (02:00 -> 01:00).
		{name: "New York: a start inside the skipped hour is skipped",
			spec: recurring("America/New_York", "30 2 * * *", "1h"), at: "Sun Mar 8 2026 01:00 America/New_York",
			next: "Mon Mar 9 2026 02:30 -0400"},
		{name: "New York: 22:00 plus 8h ends at 07:00 on the night clocks go forward",
			spec: recurring("America/New_York", "0 22 * * *", "8h"), at: "Sun Mar 8 2026 03:00 America/New_York",
			active: true, next: "Sun Mar 8 2026 07:00 -0400", in: "Sat Mar 7 2026 22:00 -0500 to Sun Mar 8 2026 07:00 -0400"},
		{name: "New York: 22:00 plus 8h ends at 05:00 on the night clocks go back",
			spec: recurring("America/New_York", "0 22 * * *", "8h"), at: "Sun Nov 1 2026 01:30 -0500 America/New_York",
			active: true, next: "Sun Nov 1 2026 05:00 -0500", in: "Sat Oct 31 2026 22:00 -0400 to Sun Nov 1 2026 05:00 -0500"},
		{name: "New York: a start inside the repeated hour fires on the second reading too",
			spec: recurring("America/New_York", "30 1 * * *", "30m"), at: "Sun Nov 1 2026 01:45 -0500 America/New_York",
			active: true, next: "Sun Nov 1 2026 02:00 -0500", in: "Sun Nov 1 2026 01:30 -0500 to Sun Nov 1 2026 02:00 -0500"},

		// Australia/Lord_Howe shifts by 30 minutes: back on Apr 5 (02:00 -> 01:30), forward on Oct 4 (02:00 -> 02:30).
		{name: "Lord Howe: a start inside the repeated half hour fires twice",
			spec: recurring("Australia/Lord_Howe", "45 1 * * *", "15m"), at: "Sun Apr 5 2026 01:35 +1030 Australia/Lord_Howe",
			next: "Sun Apr 5 2026 01:45 +1030"},
		{name: "Lord Howe: two readings 30 minutes apart merge when they touch",
			spec: recurring("Australia/Lord_Howe", "45 1 * * *", "30m"), at: "Sun Apr 5 2026 01:35 +1030 Australia/Lord_Howe",
			active: true, next: "Sun Apr 5 2026 02:15 +1030", in: "Sun Apr 5 2026 01:45 +1100 to Sun Apr 5 2026 02:15 +1030"},
		{name: "Lord Howe: a start inside the skipped half hour is skipped",
			spec: recurring("Australia/Lord_Howe", "15 2 * * *", "1h"), at: "Sun Oct 4 2026 01:00 Australia/Lord_Howe",
			next: "Mon Oct 5 2026 02:15 +1100"},
		{name: "Lord Howe: 22:00 plus 8h ends at 06:30 on the night clocks go forward",
			spec: recurring("Australia/Lord_Howe", "0 22 * * *", "8h"), at: "Sun Oct 4 2026 06:00 Australia/Lord_Howe",
			active: true, next: "Sun Oct 4 2026 06:30 +1100", in: "Sat Oct 3 2026 22:00 +1030 to Sun Oct 4 2026 06:30 +1100"},

		// A validity period cuts the occurrences.
		{name: "an occurrence that began before the validity period is cut at its start",
			spec: berlinNights, at: "Mon Dec 14 2026 23:00 Europe/Berlin", next: "Tue Dec 15 2026 00:00 +0100"},
		{name: "inside the validity period the cut start is exact",
			spec: berlinNights, at: "Tue Dec 15 2026 03:00 Europe/Berlin",
			active: true, next: "Tue Dec 15 2026 06:00 +0100", in: "Tue Dec 15 2026 00:00 +0100 to Tue Dec 15 2026 06:00 +0100"},
		{name: "the last occurrence is cut at the end of validity",
			spec: berlinNights, at: "Sat Jan 2 2027 23:00 Europe/Berlin",
			active: true, next: "Sun Jan 3 2027 00:00 +0100", in: "Sat Jan 2 2027 22:00 +0100 to Sun Jan 3 2027 00:00 +0100"},
		{name: "a recurring window has ended at the end of validity",
			spec: berlinNights, at: "Sun Jan 3 2027 00:00 Europe/Berlin", ended: true},
		{name: "a recurring window with nothing left to start before its validity ends has ended",
			spec: withValidity(recurring("UTC", "0 22 * * 1", "2h"), time.Time{}, when(t, "Sun Jul 5 2026 00:00 UTC")),
			at:   "Tue Jun 30 2026 12:00 UTC", ended: true},
		{name: "a recurring window whose validity ends beyond the look-ahead has not ended",
			spec: withValidity(recurring("UTC", "0 22 31 * *", "2h"), time.Time{}, when(t, "Tue Sep 1 2026 00:00 UTC")),
			at:   "Tue Jun 30 2026 12:00 UTC"},
		{name: "a validity period far ahead is exact at any distance",
			spec: withValidity(recurring("UTC", "0 22 * * *", "8h"), when(t, "Sat Jun 1 2030 00:00 UTC"), time.Time{}),
			at:   "Wed Jul 1 2026 12:00 UTC", next: "Sat Jun 1 2030 00:00 +0000"},

		// Permanent and time range windows.
		{name: "a permanent window without startAt has always been active",
			spec: window.Spec{Type: window.Permanent}, at: "Wed Jul 1 2026 12:00 UTC", active: true, in: "always to forever"},
		{name: "a permanent window waits for its start",
			spec: window.Spec{Type: window.Permanent, StartAt: mt(when(t, "Fri Dec 24 2027 22:00 UTC"))},
			at:   "Wed Jul 1 2026 12:00 UTC", next: "Fri Dec 24 2027 22:00 +0000"},
		{name: "a started permanent window has no next edge",
			spec: window.Spec{Type: window.Permanent, StartAt: mt(when(t, "Fri Dec 24 2027 22:00 UTC"))},
			at:   "Fri Dec 24 2027 22:00 UTC", active: true, in: "Fri Dec 24 2027 22:00 +0000 to forever"},
		{name: "a time range years long is exact at both ends",
			spec: window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin",
				StartAt: mt(when(t, "Thu Dec 24 2026 22:00 Europe/Berlin")), EndAt: mt(when(t, "Sun Dec 27 2037 06:00 Europe/Berlin"))},
			at: "Wed Jul 1 2026 12:00 UTC", next: "Thu Dec 24 2026 22:00 +0100"},
		{name: "a time range is active up to its end",
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(when(t, "Thu Dec 24 2026 22:00 UTC")), EndAt: mt(when(t, "Sun Dec 27 2026 06:00 UTC"))},
			at:   "Sun Dec 27 2026 05:59 UTC", active: true, next: "Sun Dec 27 2026 06:00 +0000", in: "Thu Dec 24 2026 22:00 +0000 to Sun Dec 27 2026 06:00 +0000"},
		{name: "a time range has ended at its end",
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(when(t, "Thu Dec 24 2026 22:00 UTC")), EndAt: mt(when(t, "Sun Dec 27 2026 06:00 UTC"))},
			at:   "Sun Dec 27 2026 06:00 UTC", ended: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := mustParse(t, c.spec, c.opts...)
			at := when(t, c.at)
			if got := w.Active(at); got != c.active {
				t.Errorf("Active(%s) = %v, want %v", c.at, got, c.active)
			}
			next, ok := w.NextEdge(at)
			gotNext := ""
			if ok {
				gotNext = show(next)
			}
			if gotNext != c.next {
				t.Errorf("NextEdge(%s) = %q, want %q", c.at, gotNext, c.next)
			}
			iv, ok := w.Containing(at)
			gotIn := ""
			if ok {
				gotIn = showInterval(iv)
			}
			if gotIn != c.in {
				t.Errorf("Containing(%s) = %q, want %q", c.at, gotIn, c.in)
			}
			if got := w.Ended(at); got != c.ended {
				t.Errorf("Ended(%s) = %v, want %v", c.at, got, c.ended)
			}
		})
	}
}

func TestOccurrences(t *testing.T) {
	for _, c := range []struct {
		name     string
		spec     window.Spec
		from, to string
		want     []string
	}{
		{name: "Berlin: the night clocks go forward has no 02:30",
			spec: recurring("Europe/Berlin", "30 2 * * *", "1h"),
			from: "Sat Mar 28 2026 00:00 Europe/Berlin", to: "Tue Mar 31 2026 00:00 Europe/Berlin",
			want: []string{
				"Sat Mar 28 2026 02:30 +0100 to Sat Mar 28 2026 03:30 +0100",
				"Mon Mar 30 2026 02:30 +0200 to Mon Mar 30 2026 03:30 +0200",
			}},
		{name: "Berlin: the night clocks go back has two 02:30s",
			spec: recurring("Europe/Berlin", "30 2 * * *", "30m"),
			from: "Sun Oct 25 2026 00:00 Europe/Berlin", to: "Mon Oct 26 2026 00:00 Europe/Berlin",
			want: []string{
				"Sun Oct 25 2026 02:30 +0200 to Sun Oct 25 2026 02:00 +0100",
				"Sun Oct 25 2026 02:30 +0100 to Sun Oct 25 2026 03:00 +0100",
			}},
		{name: "New York: the night clocks go back has two 01:30s",
			spec: recurring("America/New_York", "30 1 * * *", "30m"),
			from: "Sun Nov 1 2026 00:00 America/New_York", to: "Mon Nov 2 2026 00:00 America/New_York",
			want: []string{
				"Sun Nov 1 2026 01:30 -0400 to Sun Nov 1 2026 01:00 -0500",
				"Sun Nov 1 2026 01:30 -0500 to Sun Nov 1 2026 02:00 -0500",
			}},
		{name: "New York: the night clocks go forward has no 02:30",
			spec: recurring("America/New_York", "30 2 * * *", "1h"),
			from: "Sat Mar 7 2026 00:00 America/New_York", to: "Tue Mar 10 2026 00:00 America/New_York",
			want: []string{
				"Sat Mar 7 2026 02:30 -0500 to Sat Mar 7 2026 03:30 -0500",
				"Mon Mar 9 2026 02:30 -0400 to Mon Mar 9 2026 03:30 -0400",
			}},
		{name: "Lord Howe: the night clocks go forward has no 02:15",
			spec: recurring("Australia/Lord_Howe", "15 2 * * *", "1h"),
			from: "Sat Oct 3 2026 00:00 Australia/Lord_Howe", to: "Mon Oct 5 2026 12:00 Australia/Lord_Howe",
			want: []string{
				"Sat Oct 3 2026 02:15 +1030 to Sat Oct 3 2026 03:15 +1030",
				"Mon Oct 5 2026 02:15 +1100 to Mon Oct 5 2026 03:15 +1100",
			}},
		{name: "Lord Howe: the night clocks go back has two 01:45s, half an hour apart",
			spec: recurring("Australia/Lord_Howe", "45 1 * * *", "15m"),
			from: "Sun Apr 5 2026 00:00 Australia/Lord_Howe", to: "Sun Apr 5 2026 12:00 Australia/Lord_Howe",
			want: []string{
				"Sun Apr 5 2026 01:45 +1100 to Sun Apr 5 2026 01:30 +1030",
				"Sun Apr 5 2026 01:45 +1030 to Sun Apr 5 2026 02:00 +1030",
			}},
		{name: "intervals are not cut at the range and the first may start before it",
			spec: recurring("UTC", "0 22 * * 1-5", "8h"),
			from: "Tue Jun 2 2026 03:00 UTC", to: "Wed Jun 3 2026 23:00 UTC",
			want: []string{
				"Mon Jun 1 2026 22:00 +0000 to Tue Jun 2 2026 06:00 +0000",
				"Tue Jun 2 2026 22:00 +0000 to Wed Jun 3 2026 06:00 +0000",
				"Wed Jun 3 2026 22:00 +0000 to Thu Jun 4 2026 06:00 +0000",
			}},
		{name: "weekdays from 09:00 and nights from 17:00 chain into one working week",
			spec: recurring("UTC", "0 9 * * 1-5", "8h", "0 17 * * 1-5", "16h"),
			from: "Mon Jun 1 2026 00:00 UTC", to: "Mon Jun 15 2026 00:00 UTC",
			want: []string{
				"Mon Jun 1 2026 09:00 +0000 to Sat Jun 6 2026 09:00 +0000",
				"Mon Jun 8 2026 09:00 +0000 to Sat Jun 13 2026 09:00 +0000",
			}},
		{name: "a window that never fires has no occurrences",
			spec: recurring("UTC", "0 0 31 4,6,9,11 *", "1h"),
			from: "Thu Jan 1 2026 00:00 UTC", to: "Fri Jan 1 2027 00:00 UTC"},
		{name: "an empty range has no occurrences",
			spec: window.Spec{Type: window.Permanent},
			from: "Thu Jan 1 2026 00:00 UTC", to: "Thu Jan 1 2026 00:00 UTC"},
		{name: "a permanent window has one interval without end",
			spec: window.Spec{Type: window.Permanent, StartAt: mt(when(t, "Thu Jan 1 2026 00:00 UTC"))},
			from: "Wed Jul 1 2026 00:00 UTC", to: "Thu Jul 2 2026 00:00 UTC",
			want: []string{"Thu Jan 1 2026 00:00 +0000 to forever"}},
		{name: "a time range outside the range has no interval",
			spec: window.Spec{Type: window.TimeRange, StartAt: mt(when(t, "Thu Jan 1 2026 00:00 UTC")), EndAt: mt(when(t, "Fri Jan 2 2026 00:00 UTC"))},
			from: "Fri Jan 2 2026 00:00 UTC", to: "Sat Jan 3 2026 00:00 UTC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := mustParse(t, c.spec)
			var got []string
			for _, iv := range w.Occurrences(when(t, c.from), when(t, c.to)) {
				got = append(got, showInterval(iv))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Occurrences(%s, %s) (-want +got):\n%s", c.from, c.to, diff)
			}
		})
	}
}

// TestExtremeInstants: queries at the ends of time.Time's range answer
// without panicking.
func TestExtremeInstants(t *testing.T) {
	specs := []window.Spec{
		recurring("Europe/Berlin", "0 22 * * *", "8h"),
		recurring("Australia/Lord_Howe", "* * * * *", "1m"),
		{Type: window.Permanent},
		{Type: window.TimeRange, StartAt: mt(jan1), EndAt: mt(jan2)},
	}
	instants := []time.Time{{}, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1883, 11, 18, 12, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)}
	for _, s := range specs {
		w := mustParse(t, s)
		for _, at := range instants {
			w.Active(at)
			w.NextEdge(at)
			w.Containing(at)
			w.Ended(at)
			w.Occurrences(at, at.Add(48*time.Hour))
		}
	}
}
