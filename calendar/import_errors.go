package calendar

import (
	"fmt"
	"net/http"
	"strings"
)

// ImportError is a calendar Import cannot read, at the line and property
// where it fails. It is the sender's fault: HTTPCode is 400.
type ImportError struct {
	// Line is the line of the file, from 1, that the problem is on (the
	// first line of a folded property); 0 when it is not known.
	Line int
	// Component is the component the property belongs to ("VEVENT",
	// "VTIMEZONE"), empty for the file's structure; UID is the event's
	// UID when it has one.
	Component, UID string
	// Property is the property ("DTSTART", "RRULE"), with the parameter
	// when the parameter is what is wrong ("DTSTART;TZID").
	Property string
	// Value is the value refused, cut to 80 characters.
	Value string
	// Reason says what is wrong.
	Reason string
}

// HTTPCode is 400 (Bad Request).
func (e *ImportError) HTTPCode() int { return http.StatusBadRequest }

// Error reads "calendar line 12: VEVENT "uid": DTSTART "2026x": neither a
// date ...".
func (e *ImportError) Error() string {
	return where(e.Line, e.Component, e.UID, e.Property, e.Value) + e.Reason
}

// LimitError is a calendar that asks for more work than Import does: a
// file over MaxImportBytes, a rule that expands to more than
// MaxExpansion instances before the range ends, more than MaxRules
// recurrence rules or MaxOccurrences occurrences. HTTPCode is 413.
type LimitError struct {
	// Line, UID and Property locate the rule, when one is to blame.
	Line     int
	UID      string
	Property string
	// What is what went over the limit, Limit the limit.
	What  string
	Limit int
}

// HTTPCode is 413 (Content Too Large).
func (e *LimitError) HTTPCode() int { return http.StatusRequestEntityTooLarge }

func (e *LimitError) Error() string {
	comp := ""
	if e.Property != "" {
		comp = "VEVENT"
	}
	return where(e.Line, comp, e.UID, e.Property, "") + fmt.Sprintf("%s: more than %d", e.What, e.Limit)
}

func where(line int, comp, uid, prop, value string) string {
	var b strings.Builder
	b.WriteString("calendar")
	if line > 0 {
		fmt.Fprintf(&b, " line %d", line)
	}
	b.WriteString(": ")
	if comp != "" {
		b.WriteString(comp)
		if uid != "" {
			fmt.Fprintf(&b, " %q", uid)
		}
		b.WriteString(": ")
	}
	if prop != "" {
		b.WriteString(prop)
		if value != "" {
			fmt.Fprintf(&b, " %q", cut(value, 80))
		}
		b.WriteString(": ")
	}
	return b.String()
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "..."
}
