package main

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

// An iCalendar file (RFC 5545) with one VEVENT per interval of a plan's
// window. What matters for calendar apps, and is tested:
//
//   - lines end with CRLF and are folded at 75 octets (a CRLF and a space;
//     never inside a UTF-8 sequence);
//   - TEXT values escape backslash, semicolon, comma and line breaks, and
//     drop other control characters, so a plan's name or description can
//     never start a property or an event of its own;
//   - UIDs are "<plan ID>-<start as Unix seconds>@protectionplans.telark.io",
//     the same on every run for the same plan and interval, so importing
//     the file again updates the events instead of doubling them;
//   - DTSTAMP is --now; DTSTART and DTEND are UTC ("Z" form), which every
//     calendar app reads without a VTIMEZONE.

// uidDomain ends every UID.
const uidDomain = "protectionplans.telark.io"

// icsStamp is the UTC date-time form.
const icsStamp = "20060102T150405Z"

// maxLineOctets is the longest line RFC 5545 allows, without its CRLF.
const maxLineOctets = 75

type calendar struct {
	name   string
	stamp  time.Time
	events []event
}

type event struct {
	uid          string
	start, end   time.Time
	summary      string
	description  string
	openStart    bool
	openEnd      bool
	endUnbounded bool
}

// calendarOf builds the calendar of the intervals in rep. An interval
// without a known edge (a permanent window never ends) is cut at the
// range asked for, and its description says so.
func calendarOf(p *plan.ProtectionPlan, w *window.Window, rep windowsReport, now time.Time) calendar {
	id := p.Name
	if id == "" {
		id = "plan"
	}
	cal := calendar{name: "Change freeze: " + p.Spec.Name, stamp: now}
	for _, iv := range rep.Intervals {
		ev := event{start: rep.From, end: rep.To, openStart: iv.OpenStart, openEnd: iv.OpenEnd}
		if iv.StartUTC != nil {
			ev.start = *iv.StartUTC
		}
		if iv.EndUTC != nil {
			ev.end = *iv.EndUTC
		} else {
			ev.endUnbounded = true
		}
		ev.uid = fmt.Sprintf("%s-%d@%s", id, ev.start.Unix(), uidDomain)
		ev.summary = fmt.Sprintf("Change freeze (%s): %s", p.Spec.Mode, p.Spec.Name)
		ev.description = eventDescription(p, w, ev)
		cal.events = append(cal.events, ev)
	}
	return cal
}

func eventDescription(p *plan.ProtectionPlan, w *window.Window, ev event) string {
	var b strings.Builder
	if p.Spec.Description != "" {
		b.WriteString(p.Spec.Description)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "Protection plan %s, mode %s.\n", p.Name, p.Spec.Mode)
	fmt.Fprintf(&b, "Frozen: %s.\n", templateNames(p))
	fmt.Fprintf(&b, "Scope: %s.\n", scopeText(p.Spec.Scope))
	fmt.Fprintf(&b, "Window: %s.", w.Describe())
	switch {
	case ev.endUnbounded:
		b.WriteString("\nThe freeze lasts until the plan is canceled; the event ends where the listed range ends.")
	case ev.openEnd:
		b.WriteString("\nThe freeze lasts past the end of this event (beyond the look-ahead).")
	}
	if ev.openStart {
		b.WriteString("\nThe freeze started before the start of this event (beyond the look-back).")
	}
	return b.String()
}

func templateNames(p *plan.ProtectionPlan) string {
	names := make([]string, len(p.Spec.Templates))
	for i, t := range p.Spec.Templates {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func scopeText(s plan.Scope) string {
	if s.Type() == plan.ScopeApplications {
		return "applications " + strings.Join(s.Applications, ", ")
	}
	return "namespaces " + strings.Join(s.Namespaces, ", ")
}

// writeICS writes cal as an iCalendar stream.
func writeICS(w io.Writer, cal calendar) error {
	bw := bufio.NewWriter(w)
	put := func(name, value string) { writeLine(bw, name+":"+value) }
	put("BEGIN", "VCALENDAR")
	put("VERSION", "2.0")
	put("PRODID", "-//telark//protectctl//EN")
	put("CALSCALE", "GREGORIAN")
	put("METHOD", "PUBLISH")
	put("X-WR-CALNAME", escapeText(cal.name))
	for _, ev := range cal.events {
		put("BEGIN", "VEVENT")
		put("UID", escapeText(ev.uid))
		put("DTSTAMP", cal.stamp.UTC().Format(icsStamp))
		put("DTSTART", ev.start.UTC().Format(icsStamp))
		put("DTEND", ev.end.UTC().Format(icsStamp))
		put("SUMMARY", escapeText(ev.summary))
		put("DESCRIPTION", escapeText(ev.description))
		put("TRANSP", "TRANSPARENT")
		put("END", "VEVENT")
	}
	put("END", "VCALENDAR")
	return bw.Flush()
}

// escapeText escapes a TEXT value (RFC 5545 3.3.11): backslash, semicolon
// and comma get a backslash, a line break (CRLF, LF or CR) becomes \n, and
// other control characters, which TEXT does not allow, become spaces.
func escapeText(s string) string {
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
