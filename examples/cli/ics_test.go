package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// vcalendar is a calendar as parseICS reads it.
type vcalendar struct {
	props  map[string]string
	events []map[string]string
}

// icsProps are the properties each component may hold; anything else is
// an injected property.
var icsProps = map[string][]string{
	"VCALENDAR": {"VERSION", "PRODID", "CALSCALE", "METHOD", "X-WR-CALNAME"},
	"VEVENT":    {"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "DESCRIPTION", "TRANSP"},
}

var (
	icsDateTime = regexp.MustCompile(`^\d{8}T\d{6}Z$`)
	icsName     = regexp.MustCompile(`^[A-Z][A-Z0-9-]*$`)
)

// parseICS is a strict RFC 5545 reader for what protectctl writes: CRLF
// line ends and nothing else, physical lines of at most 75 octets, valid
// UTF-8, folding by CRLF plus one space, one VCALENDAR holding VEVENTs,
// no property parameters, only the expected properties, each at most once
// per component, TEXT values with only the four escapes (\\ \; \, \n) and
// no bare ; or , or control characters, and UTC date-times. Text values
// are returned unescaped.
func parseICS(data []byte) (vcalendar, error) {
	cal := vcalendar{props: map[string]string{}}
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		return cal, fmt.Errorf("does not end with CRLF")
	}
	physical := strings.Split(strings.TrimSuffix(string(data), "\r\n"), "\r\n")
	var logical []string
	for i, line := range physical {
		switch {
		case strings.ContainsAny(line, "\r\n"):
			return cal, fmt.Errorf("line %d: a bare CR or LF", i+1)
		case len(line) > maxLineOctets:
			return cal, fmt.Errorf("line %d: %d octets", i+1, len(line))
		case !utf8.ValidString(line):
			return cal, fmt.Errorf("line %d: a fold split a UTF-8 sequence, or invalid UTF-8", i+1)
		case strings.HasPrefix(line, " "):
			if len(logical) == 0 {
				return cal, fmt.Errorf("line %d: continuation first", i+1)
			}
			logical[len(logical)-1] += line[1:]
		default:
			logical = append(logical, line)
		}
	}
	var stack []string
	var cur map[string]string
	for i, line := range logical {
		name, value, ok := strings.Cut(line, ":")
		if !ok || !icsName.MatchString(name) {
			return cal, fmt.Errorf("content line %d: not NAME:value (parameters are not expected): %q", i+1, line)
		}
		switch name {
		case "BEGIN":
			switch {
			case value == "VCALENDAR" && len(stack) == 0 && i == 0:
				cur = cal.props
			case value == "VEVENT" && len(stack) == 1:
				cur = map[string]string{}
			default:
				return cal, fmt.Errorf("content line %d: BEGIN:%s here", i+1, value)
			}
			stack = append(stack, value)
			continue
		case "END":
			if len(stack) == 0 || stack[len(stack)-1] != value {
				return cal, fmt.Errorf("content line %d: END:%s does not close %v", i+1, value, stack)
			}
			if value == "VEVENT" {
				cal.events = append(cal.events, cur)
				cur = cal.props
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 && i != len(logical)-1 {
				return cal, fmt.Errorf("content after END:VCALENDAR")
			}
			continue
		}
		if len(stack) == 0 {
			return cal, fmt.Errorf("content line %d: %s outside a component", i+1, name)
		}
		comp := stack[len(stack)-1]
		if !contains(icsProps[comp], name) {
			return cal, fmt.Errorf("content line %d: property %s in %s", i+1, name, comp)
		}
		if _, dup := cur[name]; dup {
			return cal, fmt.Errorf("content line %d: %s twice in %s", i+1, name, comp)
		}
		if strings.HasPrefix(name, "DT") {
			if !icsDateTime.MatchString(value) {
				return cal, fmt.Errorf("content line %d: %s %q is not a UTC date-time", i+1, name, value)
			}
			cur[name] = value
			continue
		}
		text, err := unescapeText(value)
		if err != nil {
			return cal, fmt.Errorf("content line %d: %s: %v", i+1, name, err)
		}
		cur[name] = text
	}
	if len(stack) != 0 {
		return cal, fmt.Errorf("unclosed %v", stack)
	}
	for i, ev := range cal.events {
		for _, p := range icsProps["VEVENT"] {
			if _, ok := ev[p]; !ok {
				return cal, fmt.Errorf("event %d: no %s", i+1, p)
			}
		}
		if ev["DTSTART"] >= ev["DTEND"] {
			return cal, fmt.Errorf("event %d: DTSTART %s not before DTEND %s", i+1, ev["DTSTART"], ev["DTEND"])
		}
	}
	return cal, nil
}

func unescapeText(v string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\':
			if i+1 == len(v) {
				return "", fmt.Errorf("a lone backslash")
			}
			i++
			switch v[i] {
			case '\\', ';', ',':
				b.WriteByte(v[i])
			case 'n', 'N':
				b.WriteByte('\n')
			default:
				return "", fmt.Errorf("unknown escape \\%c", v[i])
			}
		case c == ';' || c == ',':
			return "", fmt.Errorf("an unescaped %q", c)
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", fmt.Errorf("control character %#x", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// icsOf runs windows with --ics into a temporary file and returns it.
func icsOf(t *testing.T, args ...string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "plan.ics")
	res := protectctl(t, "", append(args, "--ics", path)...)
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestICS_Golden(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		events int
	}{
		{"ics_holiday", []string{"windows", "-f", holiday, "--now", "2026-11-01T10:00:00Z"}, 1},
		{"ics_nightly", []string{"windows", "-f", nightly, "--now", "2026-10-22T10:00:00Z", "--from", "2026-10-23T00:00:00Z", "--to", "2026-10-27T00:00:00Z"}, 5},
		{"ics_permanent", []string{"windows", "-f", "testdata/permanent.yaml", "--now", "2026-11-20T00:00:00Z"}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := icsOf(t, tc.args...)
			golden(t, tc.name, string(data))
			cal, err := parseICS(data)
			if err != nil {
				t.Fatalf("not a valid calendar: %v\n%s", err, data)
			}
			if len(cal.events) != tc.events {
				t.Errorf("%d events, want %d", len(cal.events), tc.events)
			}
		})
	}
}

// The table goes to standard output as usual beside --ics FILE; --ics -
// writes the calendar there instead.
func TestICS_ToStandardOutput(t *testing.T) {
	res := protectctl(t, "", "windows", "-f", holiday, "--now", "2026-11-01T10:00:00Z", "--ics", "-")
	if res.code != 0 {
		t.Fatalf("exit status %d: %s", res.code, res.stderr)
	}
	if _, err := parseICS([]byte(res.stdout)); err != nil {
		t.Errorf("%v\n%s", err, res.stdout)
	}
}

// Importing the calendar again must update events, not double them: the
// UID of an interval does not change from run to run, only DTSTAMP does.
func TestICS_UIDsAreStableAcrossRuns(t *testing.T) {
	args := []string{"windows", "-f", nightly, "--from", "2026-10-23T00:00:00Z", "--to", "2026-10-27T00:00:00Z"}
	first, err := parseICS(icsOf(t, append(args, "--now", "2026-10-22T10:00:00Z")...))
	if err != nil {
		t.Fatal(err)
	}
	// A later run over an overlapping range.
	second, err := parseICS(icsOf(t, "windows", "-f", nightly, "--now", "2026-10-24T08:00:00Z",
		"--from", "2026-10-24T08:00:00Z", "--to", "2026-10-29T00:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{}
	for _, ev := range second.events {
		uids[ev["UID"]] = ev["DTSTART"]
	}
	shared := 0
	for _, ev := range first.events {
		if start, ok := uids[ev["UID"]]; ok {
			shared++
			if start != ev["DTSTART"] {
				t.Errorf("UID %s: DTSTART %s then %s", ev["UID"], ev["DTSTART"], start)
			}
		}
		if !strings.HasPrefix(ev["UID"], "nightly-image-freeze-") || !strings.HasSuffix(ev["UID"], "@protectionplans.telark.io") {
			t.Errorf("UID %q", ev["UID"])
		}
	}
	if shared != 3 { // Oct 24, 25 and 26 22:00 Berlin
		t.Errorf("%d events share a UID across runs, want 3", shared)
	}
	if first.events[0]["DTSTAMP"] == second.events[0]["DTSTAMP"] {
		t.Errorf("DTSTAMP is --now, yet both runs have %s", first.events[0]["DTSTAMP"])
	}
}

// User text never breaks the file: a name with ; , \ and property syntax
// and a description with line breaks, BEGIN:VEVENT, a UID line and a
// control character stay inside their values.
func TestICS_HostileTextCannotInjectProperties(t *testing.T) {
	data := icsOf(t, "windows", "-f", "testdata/hostile.yaml", "--now", "2026-03-01T00:00:00Z",
		"--from", "2026-03-07T00:00:00Z", "--to", "2026-03-10T00:00:00Z")
	golden(t, "ics_hostile", string(data))
	cal, err := parseICS(data)
	if err != nil {
		t.Fatalf("not a valid calendar: %v\n%s", err, data)
	}
	if len(cal.events) != 3 {
		t.Fatalf("%d events, want 3 (one per night)", len(cal.events))
	}
	name := `x"; evil: $(whoami) --- # ,;\ END:VCALENDAR`
	desc := "Line one;\nEND:VEVENT\nBEGIN:VEVENT\nUID:evil@example.com\nSUMMARY:pwned, \\n done  bell"
	for _, ev := range cal.events {
		if ev["SUMMARY"] != "Change freeze (enforce): "+name {
			t.Errorf("SUMMARY %q", ev["SUMMARY"])
		}
		if !strings.HasPrefix(ev["DESCRIPTION"], desc) {
			t.Errorf("DESCRIPTION %q", ev["DESCRIPTION"])
		}
		if strings.Contains(ev["UID"], "evil") {
			t.Errorf("UID %q", ev["UID"])
		}
	}
	if cal.props["X-WR-CALNAME"] != "Change freeze: "+name {
		t.Errorf("X-WR-CALNAME %q", cal.props["X-WR-CALNAME"])
	}
}

func TestICS_FoldingKeepsRunesWhole(t *testing.T) {
	for _, value := range []string{
		strings.Repeat("é", 100),
		strings.Repeat("a", 74) + "€" + strings.Repeat("😀", 40),
		strings.Repeat("x", 75),
		strings.Repeat("x", 76),
		"",
	} {
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		writeLine(w, "SUMMARY:"+value)
		w.Flush()
		cal := "BEGIN:VCALENDAR\r\n" + buf.String() + "END:VCALENDAR\r\n"
		// SUMMARY is not a VCALENDAR property: read it with the event rules.
		cal = strings.Replace(cal, "BEGIN:VCALENDAR\r\n", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n", 1)
		cal = strings.Replace(cal, "END:VCALENDAR\r\n", "END:VEVENT\r\nEND:VCALENDAR\r\n", 1)
		_, err := parseICS([]byte(cal))
		if err != nil && !strings.Contains(err.Error(), "event 1: no") {
			t.Errorf("%q: %v\n%s", value, err, buf.String())
		}
		unfolded := strings.ReplaceAll(strings.TrimSuffix(buf.String(), "\r\n"), "\r\n ", "")
		if unfolded != "SUMMARY:"+value {
			t.Errorf("unfolds to %q", unfolded)
		}
	}
}

func TestICS_EscapeText(t *testing.T) {
	for in, want := range map[string]string{
		`a,b;c\d`:     `a\,b\;c\\d`,
		"one\r\ntwo":  `one\ntwo`,
		"one\ntwo":    `one\ntwo`,
		"one\rtwo":    `one\ntwo`,
		"bell\a\x00.": "bell  .",
		"tab\there":   "tab\there",
		"ünïcödé":     "ünïcödé",
	} {
		if got := escapeText(in); got != want {
			t.Errorf("escapeText(%q) = %q, want %q", in, got, want)
		}
	}
}
