package window

import "time"

// Listing is a window's intervals in a range, as a person reads them: the
// window's description and zone, the range, and each interval in the
// window's zone and in UTC. Its JSON is what protectctl windows -o json
// prints (with the plan's names beside it).
type Listing struct {
	// Window is the window's description (Describe).
	Window string `json:"window"`
	// TimeZone is the name of the window's zone.
	TimeZone string `json:"timeZone"`
	// From and To are the range [From, To) the intervals meet.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Intervals are the intervals that meet the range, sorted; never nil.
	Intervals []ListedInterval `json:"intervals"`
	// Now is the instant ListAt marked the active interval at; nil for
	// List. Table has an ACTIVE column when it is set.
	Now *time.Time `json:"now,omitempty"`
}

// ListedInterval is one interval of a Listing, in the window's zone and in
// UTC. A nil edge is one that does not exist: a permanent window without
// startAt was always active, and a permanent window never ends. An open
// side lies beyond the look-around: the instant given is a bound, not the
// edge.
type ListedInterval struct {
	Start     *time.Time `json:"start,omitempty"`
	End       *time.Time `json:"end,omitempty"`
	StartUTC  *time.Time `json:"startUTC,omitempty"`
	EndUTC    *time.Time `json:"endUTC,omitempty"`
	OpenStart bool       `json:"openStart,omitempty"`
	OpenEnd   bool       `json:"openEnd,omitempty"`
	// Active marks the interval the window is active in at the
	// listing's Now (ListAt).
	Active bool `json:"active,omitempty"`
}

// ListEnd is where a listing from from ends when its caller names no end:
// the end of a time range that ends after from, else from plus the
// window's look-around (14 days unless WithLookAround says otherwise).
func (w *Window) ListEnd(from time.Time) time.Time {
	if w.spec.Type == TimeRange && w.hasEnd && w.end.After(from) {
		return w.end
	}
	return from.Add(w.look)
}

// List lists the intervals that meet [from, to) (Occurrences). A zero to
// is ListEnd(from). A range that is empty lists no intervals.
func (w *Window) List(from, to time.Time) Listing {
	if to.IsZero() {
		to = w.ListEnd(from)
	}
	l := Listing{Window: w.Describe(), TimeZone: w.loc.String(), From: from, To: to, Intervals: []ListedInterval{}}
	for _, iv := range w.Occurrences(from, to) {
		l.Intervals = append(l.Intervals, listed(iv))
	}
	return l
}

// ListAt is List, with Now set and the interval the window is active in
// at now (Containing) marked Active: the listed interval it overlaps.
func (w *Window) ListAt(from, to, now time.Time) Listing {
	l := w.List(from, to)
	l.Now = &now
	if in, ok := w.Containing(now); ok {
		for i, iv := range l.Intervals {
			l.Intervals[i].Active = (iv.End == nil || in.Start.IsZero() || in.Start.Before(*iv.End)) &&
				(iv.Start == nil || in.End.IsZero() || iv.Start.Before(in.End))
		}
	}
	return l
}

func listed(iv Interval) ListedInterval {
	out := ListedInterval{OpenStart: iv.OpenStart, OpenEnd: iv.OpenEnd}
	if !iv.Start.IsZero() {
		s, u := iv.Start, iv.Start.UTC()
		out.Start, out.StartUTC = &s, &u
	}
	if !iv.End.IsZero() {
		e, u := iv.End, iv.End.UTC()
		out.End, out.EndUTC = &e, &u
	}
	return out
}

// WallLayout is how Table writes instants.
const WallLayout = "Mon 2006-01-02 15:04 MST"

// Table is the listing as a table: a header and one row per interval.
// Each row has the start and end in the window's zone, again in UTC
// unless the zone is UTC, and the length. An open edge is written as a
// bound ("<= " before a start, ">= " before an end, and a length that is
// at least what it says); a start that does not exist reads "since ever",
// an end that does not exist "until canceled" (its length is "-").
// Lengths are rounded to the minute and written as 8h, 30m or 1h30m.
func (l Listing) Table() (header []string, rows [][]string) {
	zone := l.TimeZone
	utc := zone != "UTC"
	header = []string{"START (" + zone + ")", "END (" + zone + ")"}
	if utc {
		header = append(header, "START (UTC)", "END (UTC)")
	}
	header = append(header, "LENGTH")
	if l.Now != nil {
		header = append(header, "ACTIVE")
	}
	rows = [][]string{}
	for _, iv := range l.Intervals {
		row := []string{edgeText(iv.Start, iv.OpenStart, "<= ", "since ever"), edgeText(iv.End, iv.OpenEnd, ">= ", "until canceled")}
		if utc {
			row = append(row, edgeText(iv.StartUTC, iv.OpenStart, "<= ", "since ever"), edgeText(iv.EndUTC, iv.OpenEnd, ">= ", "until canceled"))
		}
		row = append(row, iv.length())
		if l.Now != nil {
			row = append(row, map[bool]string{true: "yes", false: "no"}[iv.Active])
		}
		rows = append(rows, row)
	}
	return header, rows
}

func edgeText(t *time.Time, open bool, bound, none string) string {
	switch {
	case t == nil:
		return none
	case open:
		return bound + t.Format(WallLayout)
	}
	return t.Format(WallLayout)
}

// length is the interval's length as Table writes it.
func (iv ListedInterval) length() string {
	if iv.Start == nil || iv.End == nil {
		return "-"
	}
	s := formatDuration(iv.End.Sub(*iv.Start).Round(time.Minute))
	if iv.OpenStart || iv.OpenEnd {
		s = ">= " + s
	}
	return s
}
