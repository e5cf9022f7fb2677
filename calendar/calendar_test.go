package calendar

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *updateGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func instant(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func mt(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }

// freeze is a plan with a window, its other fields as a sample plan has
// them.
func freeze(id, name string, mode plan.Mode, scope plan.Scope, w window.Spec, templates ...string) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id},
		Spec: plan.Spec{Name: name, Scope: scope, Window: w, Mode: mode}}
	for _, t := range templates {
		p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: t})
	}
	return p
}

func holiday(t *testing.T) *plan.ProtectionPlan {
	p := freeze("holiday-freeze", "Holiday freeze 2026", plan.ModeAudit, plan.Scope{Namespaces: []string{"shop", "payments"}},
		window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin",
			StartAt: mt(instant(t, "2026-12-24T18:00:00+01:00")), EndAt: mt(instant(t, "2026-12-27T06:00:00+01:00"))},
		"create", "delete", "scaling")
	p.Spec.Description = "Christmas Eve 18:00 to Sunday 06:00, Berlin time."
	return p
}

func nightly() *plan.ProtectionPlan {
	p := freeze("nightly-image-freeze", "Nightly image freeze", plan.ModeEnforce, plan.Scope{Applications: []string{"checkout"}},
		window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin",
			Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}},
		"image-change")
	p.Spec.Description = "No new checkout images while the nightly settlement batch runs."
	return p
}

// hostileName and hostileDescription are user text that would break a
// careless writer.
const (
	hostileName        = `x"; evil: $(whoami) --- # ,;\ END:VCALENDAR`
	hostileDescription = "Line one;\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:evil@example.com\nSUMMARY:pwned, \\n done\u0007 bell ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé ünïcödé"
)

func hostile() *plan.ProtectionPlan {
	p := freeze("hostile", hostileName, plan.ModeEnforce, plan.Scope{Namespaces: []string{"shop"}},
		window.Spec{Type: window.Recurring, TimeZone: "America/New_York",
			Schedules: []window.Schedule{{Cron: "30 1 * * *", Duration: "2h"}}},
		"delete")
	p.Spec.Description = hostileDescription
	return p
}

// encode lists p's window in [from, to) and encodes its calendar at now.
func encode(t *testing.T, p *plan.ProtectionPlan, from, to, now string) []byte {
	t.Helper()
	w, err := window.Parse(p.Spec.Window)
	if err != nil {
		t.Fatal(err)
	}
	var end time.Time
	if to != "" {
		end = instant(t, to)
	}
	var buf bytes.Buffer
	if err := ForPlan(p, w.List(instant(t, from), end), instant(t, now)).Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestForPlan_Golden(t *testing.T) {
	permanent := freeze("payments-secrets", "Payments secrets lock", plan.ModeEnforce, plan.Scope{Namespaces: []string{"payments"}},
		window.Spec{Type: window.Permanent, StartAt: mt(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))}, "secret-edits")
	cases := map[string]struct {
		golden             string
		plan               *plan.ProtectionPlan
		from, to, now      string
		events             int
		descriptionHasText string
	}{
		"a time range is one event, listed to its end": {
			golden: "holiday", plan: holiday(t), from: "2026-11-01T10:00:00Z", now: "2026-11-01T10:00:00Z", events: 1,
			descriptionHasText: "Scope: namespaces shop, payments.",
		},
		"a nightly window is an event per night, in UTC": {
			golden: "nightly", plan: nightly(), from: "2026-10-23T00:00:00Z", to: "2026-10-27T00:00:00Z", now: "2026-10-22T10:00:00Z", events: 5,
			descriptionHasText: "Scope: applications checkout.",
		},
		"a permanent window's event ends where the listing ends, and says so": {
			golden: "permanent", plan: permanent, from: "2026-11-20T00:00:00Z", now: "2026-11-20T00:00:00Z", events: 1,
			descriptionHasText: "The freeze lasts until the plan is canceled",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			data := encode(t, c.plan, c.from, c.to, c.now)
			golden(t, c.golden, data)
			cal, err := parseICS(data)
			if err != nil {
				t.Fatalf("not a valid calendar: %v\n%s", err, data)
			}
			if len(cal.events) != c.events {
				t.Errorf("%d events, want %d", len(cal.events), c.events)
			}
			for _, ev := range cal.events {
				if !strings.Contains(ev["DESCRIPTION"], c.descriptionHasText) {
					t.Errorf("DESCRIPTION %q does not say %q", ev["DESCRIPTION"], c.descriptionHasText)
				}
			}
		})
	}
}

// Importing the calendar again must update events, not double them: the
// UID of an interval does not change from run to run, only DTSTAMP does.
func TestForPlan_UIDsAreStableAcrossRuns(t *testing.T) {
	first, err := parseICS(encode(t, nightly(), "2026-10-23T00:00:00Z", "2026-10-27T00:00:00Z", "2026-10-22T10:00:00Z"))
	if err != nil {
		t.Fatal(err)
	}
	// A later run over an overlapping range.
	second, err := parseICS(encode(t, nightly(), "2026-10-24T08:00:00Z", "2026-10-29T00:00:00Z", "2026-10-24T08:00:00Z"))
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
		t.Errorf("DTSTAMP is now, yet both runs have %s", first.events[0]["DTSTAMP"])
	}
}

// User text never breaks the file: a name with ; , \ and property syntax
// and a description with line breaks, BEGIN:VEVENT, a UID line and a
// control character stay inside their values.
func TestForPlan_HostileTextCannotInjectProperties(t *testing.T) {
	data := encode(t, hostile(), "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z", "2026-03-01T00:00:00Z")
	golden(t, "hostile", data)
	cal, err := parseICS(data)
	if err != nil {
		t.Fatalf("not a valid calendar: %v\n%s", err, data)
	}
	if len(cal.events) != 3 {
		t.Fatalf("%d events, want 3 (one per night)", len(cal.events))
	}
	desc := "Line one;\nEND:VEVENT\nBEGIN:VEVENT\nUID:evil@example.com\nSUMMARY:pwned, \\n done  bell"
	for _, ev := range cal.events {
		if ev["SUMMARY"] != "Change freeze (enforce): "+hostileName {
			t.Errorf("SUMMARY %q", ev["SUMMARY"])
		}
		if !strings.HasPrefix(ev["DESCRIPTION"], desc) {
			t.Errorf("DESCRIPTION %q", ev["DESCRIPTION"])
		}
		if strings.Contains(ev["UID"], "evil") {
			t.Errorf("UID %q", ev["UID"])
		}
	}
	if cal.props["X-WR-CALNAME"] != "Change freeze: "+hostileName {
		t.Errorf("X-WR-CALNAME %q", cal.props["X-WR-CALNAME"])
	}
}

func TestEncode_ProductID(t *testing.T) {
	cases := map[string]struct {
		productID, want string
	}{
		"a calendar that names no product is the library's": {"", DefaultProductID},
		"a calendar names the program that wrote it":        {"-//telark//protectctl//EN", "-//telark//protectctl//EN"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (Calendar{ProductID: c.productID}).Encode(&buf); err != nil {
				t.Fatal(err)
			}
			cal, err := parseICS(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if cal.props["PRODID"] != c.want {
				t.Errorf("PRODID %q, want %q", cal.props["PRODID"], c.want)
			}
		})
	}
}

func TestWriteLine_FoldingKeepsRunesWhole(t *testing.T) {
	cases := map[string]string{
		"two-octet runes fold between runes":                  strings.Repeat("é", 100),
		"a rune across the 75th octet moves to the next line": strings.Repeat("a", 74) + "€" + strings.Repeat("😀", 40),
		"a line of exactly 75 octets is not folded":           strings.Repeat("x", 67),
		"a line of 76 octets is folded once":                  strings.Repeat("x", 68),
		"an empty value stays one line":                       "",
	}
	for name, value := range cases {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			writeLine(w, "SUMMARY:"+value)
			w.Flush()
			cal := "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n" + buf.String() + "END:VEVENT\r\nEND:VCALENDAR\r\n"
			if _, err := parseICS([]byte(cal)); err != nil && !strings.Contains(err.Error(), "event 1: no") {
				t.Errorf("%v\n%s", err, buf.String())
			}
			unfolded := strings.ReplaceAll(strings.TrimSuffix(buf.String(), "\r\n"), "\r\n ", "")
			if unfolded != "SUMMARY:"+value {
				t.Errorf("unfolds to %q", unfolded)
			}
			lines := strings.Count(buf.String(), "\r\n")
			if n := len("SUMMARY:" + value); n <= maxLineOctets && lines != 1 {
				t.Errorf("%d octets folded into %d lines", n, lines)
			}
		})
	}
}

func TestEscapeText(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"backslash, semicolon and comma get a backslash": {`a,b;c\d`, `a\,b\;c\\d`},
		"CRLF is one line break":                         {"one\r\ntwo", `one\ntwo`},
		"LF is a line break":                             {"one\ntwo", `one\ntwo`},
		"a lone CR is a line break":                      {"one\rtwo", `one\ntwo`},
		"other control characters become spaces":         {"bell\a\x00.", "bell  ."},
		"invalid UTF-8 becomes a space":                  {"a\xffb", "a b"},
		"a tab stays":                                    {"tab\there", "tab\there"},
		"other text is left alone":                       {"ünïcödé", "ünïcödé"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := EscapeText(c.in); got != c.want {
				t.Errorf("EscapeText(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

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

// parseICS is a strict RFC 5545 reader for what Encode writes: CRLF line
// ends and nothing else, physical lines of at most 75 octets, valid UTF-8,
// folding by CRLF plus one space, one VCALENDAR holding VEVENTs, no
// property parameters, only the expected properties, each at most once per
// component, TEXT values with only the four escapes (\\ \; \, \n) and no
// bare ; or , or control characters, and UTC date-times. Text values are
// returned unescaped.
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
		if !slices.Contains(icsProps[comp], name) {
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
