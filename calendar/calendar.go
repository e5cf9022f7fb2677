package calendar

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// UIDDomain ends every UID.
const UIDDomain = "protectionplans.telark.io"

// DefaultProductID is the PRODID of a Calendar that names none.
const DefaultProductID = "-//telark//protectionplans//EN"

// stampLayout is the UTC date-time form.
const stampLayout = "20060102T150405Z"

// maxLineOctets is the longest line RFC 5545 allows, without its CRLF.
const maxLineOctets = 75

// Calendar is an iCalendar object holding events.
type Calendar struct {
	// ProductID is the PRODID: who wrote the file (DefaultProductID when
	// empty).
	ProductID string
	// Name is the calendar's name (X-WR-CALNAME).
	Name string
	// Stamp is every event's DTSTAMP: when the file was made.
	Stamp time.Time
	// Events are the events, in order.
	Events []Event
}

// Event is one VEVENT: a transparent (not busy) event.
type Event struct {
	// UID identifies the event across files.
	UID string
	// Start and End are DTSTART and DTEND, written in UTC.
	Start, End time.Time
	// Summary and Description are the event's text.
	Summary, Description string
}

// ForPlan is the calendar of the intervals of l, a listing of p's window:
// one event per interval. An interval whose edge lies beyond the listing
// (a permanent window never ends; a recurring one may reach past the
// look-around) is cut at the listing's range, and its description says so.
func ForPlan(p *plan.ProtectionPlan, l window.Listing, now time.Time) Calendar {
	id := p.Name
	if id == "" {
		id = "plan"
	}
	cal := Calendar{Name: "Change freeze: " + p.Spec.Name, Stamp: now}
	for _, iv := range l.Intervals {
		ev := Event{Start: l.From, End: l.To}
		if iv.StartUTC != nil {
			ev.Start = *iv.StartUTC
		}
		if iv.EndUTC != nil {
			ev.End = *iv.EndUTC
		}
		ev.UID = fmt.Sprintf("%s-%d@%s", id, ev.Start.Unix(), UIDDomain)
		ev.Summary = fmt.Sprintf("Change freeze (%s): %s", p.Spec.Mode, p.Spec.Name)
		ev.Description = description(p, l.Window, iv)
		cal.Events = append(cal.Events, ev)
	}
	return cal
}

func description(p *plan.ProtectionPlan, win string, iv window.ListedInterval) string {
	var b strings.Builder
	if p.Spec.Description != "" {
		b.WriteString(p.Spec.Description)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Protection plan %s, mode %s.\n", p.Name, p.Spec.Mode)
	names := make([]string, len(p.Spec.Templates))
	for i, t := range p.Spec.Templates {
		names[i] = t.Name
	}
	fmt.Fprintf(&b, "Frozen: %s.\n", strings.Join(names, ", "))
	if s := p.Spec.Scope; s.Type() == plan.ScopeApplications {
		fmt.Fprintf(&b, "Scope: applications %s.\n", strings.Join(s.Applications, ", "))
	} else {
		fmt.Fprintf(&b, "Scope: namespaces %s.\n", strings.Join(s.Namespaces, ", "))
	}
	fmt.Fprintf(&b, "Window: %s.", win)
	switch {
	case iv.EndUTC == nil:
		b.WriteString("\nThe freeze lasts until the plan is canceled; the event ends where the listed range ends.")
	case iv.OpenEnd:
		b.WriteString("\nThe freeze lasts past the end of this event (beyond the look-ahead).")
	}
	if iv.OpenStart {
		b.WriteString("\nThe freeze started before the start of this event (beyond the look-back).")
	}
	return b.String()
}

// Encode writes the calendar as an iCalendar stream.
func (c Calendar) Encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	put := func(name, value string) { writeLine(bw, name+":"+value) }
	prodID := c.ProductID
	if prodID == "" {
		prodID = DefaultProductID
	}
	put("BEGIN", "VCALENDAR")
	put("VERSION", "2.0")
	put("PRODID", EscapeText(prodID))
	put("CALSCALE", "GREGORIAN")
	put("METHOD", "PUBLISH")
	put("X-WR-CALNAME", EscapeText(c.Name))
	for _, ev := range c.Events {
		put("BEGIN", "VEVENT")
		put("UID", EscapeText(ev.UID))
		put("DTSTAMP", c.Stamp.UTC().Format(stampLayout))
		put("DTSTART", ev.Start.UTC().Format(stampLayout))
		put("DTEND", ev.End.UTC().Format(stampLayout))
		put("SUMMARY", EscapeText(ev.Summary))
		put("DESCRIPTION", EscapeText(ev.Description))
		put("TRANSP", "TRANSPARENT")
		put("END", "VEVENT")
	}
	put("END", "VCALENDAR")
	return bw.Flush()
}

// EscapeText escapes a TEXT value (RFC 5545 3.3.11): backslash, semicolon
// and comma get a backslash, a line break (CRLF, LF or CR) becomes \n, and
// other control characters, which TEXT does not allow, become spaces.
func EscapeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == ';' || r == ',':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n' || r == '\r':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || r == utf8.RuneError:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// writeLine writes one content line, folded at 75 octets without
// splitting a UTF-8 sequence: every continuation line starts with a space,
// which counts towards its 75.
func writeLine(w *bufio.Writer, line string) {
	limit := maxLineOctets
	for len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		w.WriteString(line[:cut])
		w.WriteString("\r\n ")
		line = line[cut:]
		limit = maxLineOctets - 1
	}
	w.WriteString(line)
	w.WriteString("\r\n")
}
