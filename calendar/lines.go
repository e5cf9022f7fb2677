package calendar

import (
	"bytes"
	"strings"
)

// lineIndex knows the line each property of a top-level component
// (VEVENT, VTIMEZONE) starts on, so that errors can name it: golang-ical
// keeps no positions. Its pass also checks what golang-ical would refuse
// without saying where: a content line without a name and a colon, and
// BEGIN and END that do not pair.
type lineIndex struct {
	comps []compLines
}

type compLines struct {
	name  string
	line  int
	props []propLine
}

type propLine struct {
	name string
	line int
}

// maxDepth bounds the nesting of components (VCALENDAR, VTIMEZONE,
// STANDARD is three).
const maxDepth = 8

// indexLines indexes ics, or says where it is malformed.
func indexLines(ics []byte) (lineIndex, *ImportError) {
	var (
		x     lineIndex
		stack []string
		n     = 0 // physical line
		first = true
	)
	for _, raw := range bytes.Split(ics, []byte("\n")) {
		n++
		l := strings.TrimSuffix(string(raw), "\r")
		if l == "" {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			if first {
				return x, &ImportError{Line: n, Reason: "a folded line continues nothing"}
			}
			continue // a fold of the line before
		}
		name, val, ok := splitContentLine(l)
		if !ok {
			return x, &ImportError{Line: n, Value: l, Reason: "not a content line (NAME:value or NAME;PARAM=x:value)"}
		}
		switch {
		case first && !(name == "BEGIN" && strings.EqualFold(val, "VCALENDAR")):
			return x, &ImportError{Line: n, Value: l, Reason: "a calendar starts with BEGIN:VCALENDAR"}
		case name == "BEGIN":
			if len(stack) == maxDepth {
				return x, &ImportError{Line: n, Value: l, Reason: "components nested too deep"}
			}
			stack = append(stack, strings.ToUpper(val))
			if len(stack) == 2 {
				x.comps = append(x.comps, compLines{name: strings.ToUpper(val), line: n})
			}
		case name == "END":
			if len(stack) == 0 || !strings.EqualFold(stack[len(stack)-1], val) {
				open := "nothing"
				if len(stack) > 0 {
					open = "BEGIN:" + stack[len(stack)-1]
				}
				return x, &ImportError{Line: n, Property: "END", Value: val, Reason: "does not match " + open}
			}
			stack = stack[:len(stack)-1]
		case len(stack) == 0:
			return x, &ImportError{Line: n, Value: l, Reason: "a property after END:VCALENDAR"}
		case len(stack) >= 2:
			c := &x.comps[len(x.comps)-1]
			c.props = append(c.props, propLine{name: name, line: n})
		}
		first = false
	}
	switch {
	case first:
		return x, &ImportError{Reason: "empty: a calendar starts with BEGIN:VCALENDAR"}
	case len(stack) > 0:
		return x, &ImportError{Line: n, Reason: "BEGIN:" + stack[len(stack)-1] + " has no END"}
	}
	return x, nil
}

// splitContentLine returns a content line's name (upper case) and its
// value.
func splitContentLine(l string) (name, value string, ok bool) {
	i := 0
	for i < len(l) && (l[i] == '-' || l[i] >= '0' && l[i] <= '9' || l[i] >= 'A' && l[i] <= 'Z' || l[i] >= 'a' && l[i] <= 'z') {
		i++
	}
	if i == 0 || i == len(l) || (l[i] != ':' && l[i] != ';') {
		return "", "", false
	}
	name = strings.ToUpper(l[:i])
	// The value follows the first colon outside a quoted parameter value.
	quoted := false
	for j := i; j < len(l); j++ {
		switch l[j] {
		case '"':
			quoted = !quoted
		case ':':
			if !quoted {
				return name, strings.TrimSpace(l[j+1:]), true
			}
		}
	}
	return "", "", false
}

// line is where the nth (from 0) property name of component c starts; 0
// when not known. want is the component's name, checked against the
// index so that a mismatch says 0 rather than a wrong line.
func (x lineIndex) line(c int, want, name string, nth int) int {
	if c < 0 || c >= len(x.comps) || x.comps[c].name != want {
		return 0
	}
	if name == "" {
		return x.comps[c].line
	}
	for _, p := range x.comps[c].props {
		if p.name == name {
			if nth == 0 {
				return p.line
			}
			nth--
		}
	}
	return 0
}
