package calendar

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"time"

	ical "github.com/arran4/golang-ical"
)

// Occurrence is one occurrence of a VEVENT: a single event, or an
// instance of a recurring one.
type Occurrence struct {
	// UID is the event's UID (an override shares its series' UID).
	UID string `json:"uid"`
	// Summary is the event's SUMMARY, unescaped.
	Summary string `json:"summary,omitempty"`
	// Start is inclusive, End exclusive, both in the plan's zone. End
	// equals Start for an event that has no length.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// AllDay is an event of whole days (DTSTART;VALUE=DATE): it covers
	// its dates in the plan's zone.
	AllDay bool `json:"allDay,omitempty"`
}

// Limits of Import, so that no calendar makes it run long.
const (
	// MaxImportBytes is the largest calendar Import reads (4 MiB).
	MaxImportBytes = 4 << 20
	// MaxRules is the most recurrence rules (RRULE) a calendar may have:
	// a rule that can never occur costs rrule-go a search to the year
	// 9999 (up to half a second; see never).
	MaxRules = 500
	// MaxExpansion is the most instances one rule may produce from its
	// DTSTART until the end of the range asked for.
	MaxExpansion = 200_000
	// MaxOccurrences is the most occurrences Import returns.
	MaxOccurrences = 100_000
)

// Import reads an RFC 5545 calendar and returns its VEVENT occurrences
// that overlap [from, to), sorted by Start.
// zone is the plan's zone: all-day events (DTSTART;VALUE=DATE) cover their
// date in it; floating times are read in it.
//
// A nil zone is UTC. An occurrence overlaps the range when it starts
// before to and ends after from; one without length when it starts in the
// range. Events whose STATUS is CANCELLED, and VTODO, VJOURNAL and other
// components, are left out. The error is an *ImportError naming the line
// and property, or a *LimitError.
func Import(ics []byte, zone *time.Location, from, to time.Time) ([]Occurrence, error) {
	if zone == nil {
		zone = time.UTC
	}
	if len(ics) > MaxImportBytes {
		return nil, &LimitError{What: "calendar size in bytes", Limit: MaxImportBytes}
	}
	idx, ierr := indexLines(ics)
	if ierr != nil {
		return nil, ierr
	}
	cal, err := parse(ics)
	if err != nil {
		return nil, err
	}
	im := &importer{idx: idx, plan: locZone(zone), from: from, to: to}
	im.zones = newZones(cal, im)
	if !from.Before(to) {
		return []Occurrence{}, nil
	}
	var (
		masters   []*event
		overrides = map[string]map[int64]*event{}
	)
	for i, c := range cal.Components {
		ve, ok := c.(*ical.VEvent)
		if !ok {
			continue
		}
		ev, err := im.readEvent(i, &ve.ComponentBase)
		if err != nil {
			return nil, err
		}
		if ev.recurrenceID == nil {
			masters = append(masters, ev)
			continue
		}
		if overrides[ev.uid] == nil {
			overrides[ev.uid] = map[int64]*event{}
		}
		overrides[ev.uid][ev.recurrenceID.UnixNano()] = ev
	}
	out := []Occurrence{}
	add := func(ev *event, start time.Time) error {
		o := ev.occurrence(start, im.plan)
		if o.Start.Before(to) && (o.End.After(from) || o.End.Equal(o.Start) && !o.Start.Before(from)) {
			if len(out) == MaxOccurrences {
				return &LimitError{What: "occurrences in the range", Limit: MaxOccurrences}
			}
			out = append(out, o)
		}
		return nil
	}
	rules := 0
	for _, ev := range masters {
		if ev.rrule != "" {
			if rules++; rules > MaxRules {
				return nil, &LimitError{Line: ev.line("RRULE", 0), UID: ev.uid, Property: "RRULE", What: "recurrence rules in the calendar", Limit: MaxRules}
			}
		}
		starts, err := im.starts(ev)
		if err != nil {
			return nil, err
		}
		for _, s := range starts {
			if _, moved := overrides[ev.uid][s.UnixNano()]; moved || ev.cancelled {
				continue
			}
			if err := add(ev, s); err != nil {
				return nil, err
			}
		}
	}
	for _, byID := range overrides {
		for _, ev := range byID {
			if ev.cancelled {
				continue
			}
			if err := add(ev, ev.start); err != nil {
				return nil, err
			}
		}
	}
	slices.SortFunc(out, func(a, b Occurrence) int {
		return cmp.Or(a.Start.Compare(b.Start), a.End.Compare(b.End), strings.Compare(a.UID, b.UID), strings.Compare(a.Summary, b.Summary))
	})
	return out, nil
}

// parse runs golang-ical on a calendar indexLines accepted.
func parse(data []byte) (*ical.Calendar, error) {
	cal, err := ical.ParseCalendarWithOptions(bytes.NewReader(data), ical.WithUnknownPropertyHandler(ical.AcceptUnknownPropertyHandler))
	if err != nil {
		return nil, &ImportError{Reason: err.Error()}
	}
	return cal, nil
}

// importer is one Import: what every event needs.
type importer struct {
	idx      lineIndex
	plan     zone
	zones    *zones
	from, to time.Time
}
