package calendar

import (
	"strings"
	"time"

	ical "github.com/arran4/golang-ical"
)

// event is a VEVENT as Import reads it: a series master, a single event,
// or an override of one instance (RECURRENCE-ID).
type event struct {
	im   *importer
	comp int // the component's index in the calendar
	uid  string
	// summary is SUMMARY, unescaped.
	summary   string
	cancelled bool
	allDay    bool
	// z is the zone DTSTART is read in: the plan's for all-day and
	// floating times, UTC for the Z form, the TZID's zone otherwise. The
	// rule expands on z's clock.
	z     zone
	start time.Time // the first instance's start
	// length is DTEND - DTSTART (exact, or whole days for all-day
	// events) or DURATION.
	length duration
	rrule  string
	rdates []time.Time
	// exdates are instants excluded; exdays dates (midnight, floating)
	// excluded from a timed event by an EXDATE;VALUE=DATE.
	exdates      map[int64]bool
	exdays       map[time.Time]bool
	recurrenceID *time.Time
}

// line is where the nth property name of the event starts.
func (ev *event) line(name string, nth int) int {
	return ev.im.idx.line(ev.comp, "VEVENT", name, nth)
}

// fail is an *ImportError at the nth property name of the event.
func (ev *event) fail(name string, nth int, value, reason string) *ImportError {
	return &ImportError{Line: ev.line(strings.SplitN(name, ";", 2)[0], nth), Component: "VEVENT", UID: ev.uid,
		Property: name, Value: value, Reason: reason}
}

func props(c *ical.ComponentBase, name string) []*ical.IANAProperty {
	var out []*ical.IANAProperty
	for i := range c.Properties {
		if strings.EqualFold(c.Properties[i].IANAToken, name) {
			out = append(out, &c.Properties[i])
		}
	}
	return out
}

func prop(c *ical.ComponentBase, name string) *ical.IANAProperty {
	if ps := props(c, name); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

// param is a property's parameter (names are case-insensitive), and
// whether it has one value.
func param(p *ical.IANAProperty, name string) (string, bool) {
	for k, v := range p.ICalParameters {
		if strings.EqualFold(k, name) {
			if len(v) != 1 {
				return "", false
			}
			return strings.Trim(v[0], `"`), true
		}
	}
	return "", true
}

// readEvent reads the VEVENT at component index i.
func (im *importer) readEvent(i int, c *ical.ComponentBase) (*event, error) {
	ev := &event{im: im, comp: i}
	if p := prop(c, "UID"); p != nil {
		ev.uid = p.Value
	}
	if ev.uid == "" {
		return nil, ev.fail("UID", 0, "", "a VEVENT needs a UID")
	}
	if p := prop(c, "SUMMARY"); p != nil {
		ev.summary = p.Value
	}
	if p := prop(c, "STATUS"); p != nil && strings.EqualFold(p.Value, "CANCELLED") {
		ev.cancelled = true
	}
	p := prop(c, "DTSTART")
	if p == nil {
		return nil, ev.fail("DTSTART", 0, "", "a VEVENT needs a DTSTART (this importer reads events, not METHOD:REQUEST replies without one)")
	}
	v, z, err := ev.readTime(p, "DTSTART", 0)
	if err != nil {
		return nil, err
	}
	ev.allDay, ev.z, ev.start = v.date, z, z.instant(v.wall)
	if err := ev.readLength(c, v); err != nil {
		return nil, err
	}
	if rs := props(c, "RRULE"); len(rs) > 1 {
		return nil, ev.fail("RRULE", 1, rs[1].Value, "more than one RRULE (RFC 5545 allows one)")
	} else if len(rs) == 1 {
		ev.rrule = rs[0].Value
	}
	if err := ev.readDates(c, v); err != nil {
		return nil, err
	}
	if p := prop(c, "RECURRENCE-ID"); p != nil {
		rv, rz, err := ev.readTime(p, "RECURRENCE-ID", 0)
		if err != nil {
			return nil, err
		}
		t := rz.instant(rv.wall)
		ev.recurrenceID = &t
	}
	return ev, nil
}

// readTime reads a DATE or DATE-TIME property and the zone it is in.
func (ev *event) readTime(p *ical.IANAProperty, name string, nth int) (value, zone, error) {
	v, err := parseValue(p.Value)
	if err != nil {
		return value{}, zone{}, ev.fail(name, nth, p.Value, err.Error())
	}
	z, err := ev.zoneOf(p, name, nth, v)
	return v, z, err
}

// zoneOf is the zone a value of p is read in.
func (ev *event) zoneOf(p *ical.IANAProperty, name string, nth int, v value) (zone, error) {
	switch {
	case v.date:
		return ev.im.plan, nil
	case v.utc:
		return locZone(time.UTC), nil
	}
	tzid, one := param(p, "TZID")
	if !one {
		return zone{}, ev.fail(name+";TZID", nth, p.Value, "more than one TZID")
	}
	if tzid == "" {
		return ev.im.plan, nil // floating: the plan's clock
	}
	z, reason := ev.im.zones.lookup(tzid)
	if reason != "" {
		return zone{}, ev.fail(name+";TZID", nth, tzid, reason)
	}
	return z, nil
}

// readLength reads DTEND or DURATION.
func (ev *event) readLength(c *ical.ComponentBase, start value) error {
	end, dur := prop(c, "DTEND"), prop(c, "DURATION")
	switch {
	case end != nil && dur != nil:
		return ev.fail("DURATION", 0, dur.Value, "DTEND and DURATION both given (RFC 5545 allows one)")
	case dur != nil:
		d, err := parseDuration(dur.Value)
		if err != nil {
			return ev.fail("DURATION", 0, dur.Value, err.Error())
		}
		ev.length = d
	case end != nil:
		v, z, err := ev.readTime(end, "DTEND", 0)
		if err != nil {
			return err
		}
		if v.date != start.date {
			return ev.fail("DTEND", 0, end.Value, "a DATE and a DATE-TIME mixed: DTEND must be of DTSTART's type")
		}
		if v.date {
			days := int(v.wall.Sub(start.wall) / (24 * time.Hour))
			if days < 0 || days > maxDurationDays {
				return ev.fail("DTEND", 0, end.Value, "before DTSTART, or more than 3660 days after it")
			}
			ev.length = duration{days: days}
			return nil
		}
		d := z.instant(v.wall).Sub(ev.start)
		if d < 0 || d > maxDurationDays*24*time.Hour {
			return ev.fail("DTEND", 0, end.Value, "before DTSTART, or more than 3660 days after it")
		}
		ev.length = duration{exact: d}
	case start.date:
		ev.length = duration{days: 1} // RFC 5545 3.6.1: one day
	}
	return nil
}

// readDates reads RDATE and EXDATE, each a list of values.
func (ev *event) readDates(c *ical.ComponentBase, start value) error {
	ev.exdates, ev.exdays = map[int64]bool{}, map[time.Time]bool{}
	for _, name := range []string{"RDATE", "EXDATE"} {
		for nth, p := range props(c, name) {
			if kind, _ := param(p, "VALUE"); strings.EqualFold(kind, "PERIOD") {
				return ev.fail(name+";VALUE", nth, p.Value, "PERIOD values are not read; list the start dates")
			}
			for _, s := range strings.Split(p.Value, ",") {
				v, err := parseValue(strings.TrimSpace(s))
				if err != nil {
					return ev.fail(name, nth, s, err.Error())
				}
				switch {
				case name == "EXDATE" && v.date && !start.date:
					ev.exdays[v.wall] = true
				case name == "RDATE" && v.date != start.date:
					return ev.fail(name, nth, s, "a DATE and a DATE-TIME mixed: RDATE must be of DTSTART's type")
				default:
					z, err := ev.zoneOf(p, name, nth, v)
					if err != nil {
						return err
					}
					t := z.instant(v.wall)
					if name == "RDATE" {
						ev.rdates = append(ev.rdates, t)
					} else {
						ev.exdates[t.UnixNano()] = true
					}
				}
			}
		}
	}
	return nil
}

// occurrence is the instance starting at start, in the plan's zone.
func (ev *event) occurrence(start time.Time, plan zone) Occurrence {
	z := ev.z
	w := z.wall(start)
	end := start
	if ev.length.days != 0 {
		end = z.instant(w.AddDate(0, 0, ev.length.days))
	}
	end = end.Add(ev.length.exact)
	return Occurrence{UID: ev.uid, Summary: ev.summary, Start: start.In(plan.loc), End: end.In(plan.loc), AllDay: ev.allDay}
}
