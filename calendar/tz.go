package calendar

import (
	"slices"
	"strconv"
	"strings"
	"time"

	ical "github.com/arran4/golang-ical"
	"github.com/teambition/rrule-go"
)

// zones resolves the TZIDs of a calendar, once each.
type zones struct {
	im    *importer
	vtz   map[string]int // TZID -> component index of its VTIMEZONE
	comps []ical.Component
	cache map[string]zoneOrReason
}

type zoneOrReason struct {
	z      zone
	reason string
}

func newZones(cal *ical.Calendar, im *importer) *zones {
	zs := &zones{im: im, vtz: map[string]int{}, comps: cal.Components, cache: map[string]zoneOrReason{}}
	for i, c := range cal.Components {
		if tz, ok := c.(*ical.VTimezone); ok {
			if p := prop(&tz.ComponentBase, "TZID"); p != nil {
				zs.vtz[p.Value] = i
			}
		}
	}
	return zs
}

// lookup resolves a TZID parameter, in this order:
//
//  1. an IANA name ("Europe/Berlin"), also at the end of a prefixed one
//     ("/mozilla.org/20050126_1/Europe/Berlin");
//  2. a Windows name ("W. Europe Standard Time"), through CLDR's table;
//  3. the calendar's VTIMEZONE of that TZID: its X-LIC-LOCATION when that
//     is an IANA name, else its STANDARD and DAYLIGHT rules.
//
// Go's zone database wins over a VTIMEZONE's rules where it knows the
// zone: exporters write only the current rules (Outlook a single year's),
// which are wrong for other years. The reason is empty on success.
func (zs *zones) lookup(tzid string) (zone, string) {
	if r, ok := zs.cache[tzid]; ok {
		return r.z, r.reason
	}
	var r zoneOrReason
	if loc := ianaZone(tzid); loc != nil {
		r.z = locZone(loc)
	} else if loc := ianaZone(windowsZones[tzid]); loc != nil {
		r.z = locZone(loc)
	} else if i, ok := zs.vtz[tzid]; ok {
		r.z, r.reason = zs.fromVTimezone(i, tzid)
	} else {
		r.reason = "names no zone: neither an IANA zone (Europe/Berlin), a Windows zone (W. Europe Standard Time) nor a VTIMEZONE of this calendar"
	}
	zs.cache[tzid] = r
	return r.z, r.reason
}

// ianaZone loads an IANA zone name, or the IANA name a prefixed TZID ends
// with; nil when there is none. "Local" and the empty name are not
// zones a calendar can mean.
func ianaZone(name string) *time.Location {
	name = strings.Trim(name, `"`)
	if name == "" || strings.EqualFold(name, "local") || len(name) > 128 {
		return nil
	}
	cands := []string{name}
	if parts := strings.Split(strings.Trim(name, "/"), "/"); len(parts) > 2 {
		cands = append(cands, strings.Join(parts[len(parts)-3:], "/"), strings.Join(parts[len(parts)-2:], "/"))
	}
	for _, c := range cands {
		if strings.EqualFold(c, "local") {
			continue
		}
		if loc, err := time.LoadLocation(c); err == nil {
			return loc
		}
	}
	return nil
}

// maxOnsets bounds the onsets one observance of a VTIMEZONE expands to
// (Outlook's start in 1601: 430 yearly onsets to 2030).
const maxOnsets = 5000

// fromVTimezone builds a zone from the VTIMEZONE at component index i.
func (zs *zones) fromVTimezone(i int, tzid string) (zone, string) {
	tz := zs.comps[i].(*ical.VTimezone)
	if p := prop(&tz.ComponentBase, "X-LIC-LOCATION"); p != nil {
		if loc := ianaZone(p.Value); loc != nil {
			return locZone(loc), ""
		}
	}
	rz := &ruleZone{tzid: tzid}
	high := zs.im.to.AddDate(1, 0, 0)
	firstAt := int64(0)
	for n, c := range tz.Components {
		var base *ical.ComponentBase
		switch o := c.(type) {
		case *ical.Standard:
			base = &o.ComponentBase
		case *ical.Daylight:
			base = &o.ComponentBase
		default:
			continue
		}
		onsets, fromOff, reason := observance(base, high)
		if reason != "" {
			return zone{}, "its VTIMEZONE (line " + itoa(zs.im.idx.line(i, "VTIMEZONE", "", 0)) + "), observance " + itoa(n+1) + ": " + reason
		}
		if len(onsets) > 0 && (len(rz.onsets) == 0 || onsets[0].at < firstAt) {
			firstAt, rz.first = onsets[0].at, fromOff
		}
		rz.onsets = append(rz.onsets, onsets...)
	}
	if len(rz.onsets) == 0 {
		return zone{}, "its VTIMEZONE has no STANDARD or DAYLIGHT observance"
	}
	slices.SortFunc(rz.onsets, func(a, b onset) int { return int(a.at - b.at) })
	return zone{rules: rz}, ""
}

// observance lists the onsets of a STANDARD or DAYLIGHT up to high, and
// its TZOFFSETFROM.
func observance(c *ical.ComponentBase, high time.Time) ([]onset, int64, string) {
	get := func(name string) string {
		if p := prop(c, name); p != nil {
			return p.Value
		}
		return ""
	}
	from, err := parseOffset(get("TZOFFSETFROM"))
	if err != nil {
		return nil, 0, "TZOFFSETFROM " + quote(get("TZOFFSETFROM")) + ": " + err.Error()
	}
	to, err := parseOffset(get("TZOFFSETTO"))
	if err != nil {
		return nil, 0, "TZOFFSETTO " + quote(get("TZOFFSETTO")) + ": " + err.Error()
	}
	start, err := parseValue(get("DTSTART"))
	if err != nil || start.date || start.utc {
		return nil, 0, "DTSTART " + quote(get("DTSTART")) + ": a local date-time (YYYYMMDDTHHMMSS)"
	}
	walls := []time.Time{start.wall}
	if r := get("RRULE"); r != "" {
		opt, err := rrule.StrToROption(r) // UNTIL is UTC here (RFC 5545 3.6.5)
		if err != nil {
			return nil, 0, "RRULE " + quote(r) + ": " + err.Error()
		}
		opt.Dtstart = start.wall
		if opt.Until.IsZero() || opt.Until.After(high) {
			// rrule-go's default end is DTSTART plus 292 years (the
			// longest time.Duration): Outlook's rules start in 1601.
			opt.Until = high
		} else {
			opt.Until = opt.Until.Add(time.Duration(from) * time.Second)
		}
		rule, err := rrule.NewRRule(*opt)
		if err != nil {
			return nil, 0, "RRULE " + quote(r) + ": " + err.Error()
		}
		next := rule.Iterator()
		for n := 0; ; n++ {
			w, ok := next()
			if !ok || w.After(high) {
				break
			}
			if n == maxOnsets {
				return nil, 0, "RRULE " + quote(r) + ": more than " + itoa(maxOnsets) + " onsets"
			}
			walls = append(walls, w)
		}
	}
	for _, p := range props(c, "RDATE") {
		for _, s := range strings.Split(p.Value, ",") {
			v, err := parseValue(s)
			if err != nil || v.date {
				return nil, 0, "RDATE " + quote(s) + ": a local date-time (YYYYMMDDTHHMMSS)"
			}
			walls = append(walls, v.wall)
		}
	}
	out := make([]onset, 0, len(walls))
	for _, w := range walls {
		out = append(out, onset{at: w.Unix() - from, off: to})
	}
	slices.SortFunc(out, func(a, b onset) int { return int(a.at - b.at) })
	return out, from, ""
}

func quote(s string) string { return `"` + cut(s, 80) + `"` }

func itoa(n int) string {
	if n == 0 {
		return "?"
	}
	return strconv.Itoa(n)
}
