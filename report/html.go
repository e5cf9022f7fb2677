package report

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

// The HTML format: one page, rendered by html/template from html.tmpl with
// a view of precomputed strings. html/template escapes every value for the
// context it lands in, so user text stays text: never markup, an
// attribute, CSS or a URL. User text is only placed in element content
// (table cells, <bdi> spans, SVG <title>), never in an attribute.

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report").Parse(htmlSource))

func writeHTML(w io.Writer, r Report) error {
	v := newHTMLView(r)
	s := &splice{w: w, marks: string(v.Timeline.Marks), rows: string(v.ViolationRows)}
	v.Timeline.Marks, v.ViolationRows = placeholderMarks, placeholderRows
	return htmlTemplate.Execute(s, v)
}

// The violation marks and rows, written before the template runs, grow
// with the violations and are most of a large page. The template would
// print each through fmt, which copies it whole into a buffer of its own
// first; so the template prints a placeholder instead, and splice writes
// the part in its place. The template prints a value in one Write; no
// other Write can be a placeholder, as the template's text holds no NUL
// and html/template escapes a NUL in a value.
const (
	placeholderMarks = "\x00marks\x00"
	placeholderRows  = "\x00rows\x00"
)

// splice passes writes on to w, writing marks and rows in place of their
// placeholders.
type splice struct {
	w           io.Writer
	marks, rows string
}

func (s *splice) Write(p []byte) (int, error) {
	var part string
	switch string(p) {
	case placeholderMarks:
		part = s.marks
	case placeholderRows:
		part = s.rows
	default:
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, part); err != nil {
		return 0, err
	}
	return len(p), nil
}

type htmlView struct {
	R          Report
	Kind       string
	Final      bool
	Generated  string
	Cards      []card
	Facts      []fact
	Timeline   timelineView
	Phases     []phaseRow
	Events     []eventRow
	Unhealthy  []unhealthyRow
	HealthText string
	// Grants and GrantWrites are the break-glass section; none without
	// grants in the run.
	Grants      []grantLine
	GrantWrites [][5]string
	// EdgeText and EdgeWindows are the edge actions' section; none when
	// the plan has no edge actions.
	EdgeText    string
	EdgeWindows []edgeWindowView
	// ViolationRows is the body of the violations table, up to
	// MaxViolations rows, escaped by violationRows.
	ViolationRows template.HTML
	ViolText      string
	Truncation    string
	RunText       string
}

type card struct{ Label, Value, Detail, Tone string }

// edgeWindowView is one window of the edge actions: its heading and a row
// per participant.
type edgeWindowView struct {
	Title string
	Rows  []edgeRow
}

type fact struct{ Label, Value string }

// phaseRow is a phase band, for the Phases table and for the list that
// stands for the run picture on narrow screens: there an active period
// also says its health (HealthClass is the picture's class for it) and
// each period its violations.
type phaseRow struct {
	Phase, Class, From, To, Duration string
	Health, HealthClass              string
	Blocked, Audited                 int
}

type eventRow struct{ Time, Type, Phase, Actor, Message string }

type unhealthyRow struct{ From, To, Duration, Reason, Message string }

// violationRows writes the rows of the violations table. It is the one
// part of the page not written by the template, because the template's
// per-value escaping made a table of 5,000 rows six times slower than
// json.Marshal: every cell is element content (inside <td>, never an
// attribute), and every string that is not a constant of this function
// is written through textEscapes, which escapes as
// template.HTMLEscapeString does. Cells are written piece by piece, each
// piece escaped, which gives what escaping the whole would (the escaping
// is byte by byte). The hostile tests check it like the rest of the page.
func violationRows(items []violations.Violation) template.HTML {
	size := 0 // the markup and the cells, unless escaping lengthens them
	for i := range items {
		x := &items[i]
		r := &x.Resource
		size += 200 + len(r.Kind) + len(r.Namespace) + len(r.Name) + len(r.Subresource) +
			len(x.PolicyNamespace) + len(x.Policy) + len(x.Rule) + len(x.Message)
	}
	var b strings.Builder
	b.Grow(size)
	text := func(s string) { textEscapes.write(&b, s) }
	open := func(class string) {
		if class == "" {
			b.WriteString("<td>")
			return
		}
		b.WriteString(`<td class="` + class + `">`)
	}
	var scratch [64]byte
	for i := range items {
		x := &items[i]
		b.WriteString("\n<tr>")
		open("time")
		if x.Timestamp.IsZero() {
			text(fmtTime(x.Timestamp))
		} else {
			b.Write(appendTime(scratch[:0], x.Timestamp)) // digits, dashes, colons: nothing to escape
		}
		b.WriteString("</td>")
		if x.Blocked {
			b.WriteString(`<td><span class="pill blocked">■ blocked</span></td>`)
		} else {
			b.WriteString(`<td><span class="pill audited">○ audited</span></td>`)
		}
		// resourceLabel, piece by piece
		open("")
		writeResource(&x.Resource, text)
		b.WriteString("</td>")
		// policyLabel, piece by piece
		open("")
		if x.PolicyNamespace != "" {
			text(x.PolicyNamespace)
			b.WriteByte('/')
		}
		text(x.Policy)
		if x.Rule != "" {
			b.WriteString(" · ")
			text(x.Rule)
		}
		b.WriteString("</td>")
		open("num")
		b.Write(strconv.AppendInt(scratch[:0], int64(max(x.Count, 1)), 10))
		b.WriteString("</td>")
		open("msg")
		text(x.Message)
		b.WriteString("</td></tr>")
	}
	return template.HTML(b.String())
}

// appendTime appends t in UTC as fmtTime writes it, without formatting
// by layout for the years of four digits.
func appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	h, mi, sec := t.Clock()
	two := func(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }
	b = two(two(b, y/100), y%100)
	b = two(append(b, '-'), int(mo))
	b = two(append(b, '-'), d)
	b = two(append(b, ' '), h)
	b = two(append(b, ':'), mi)
	return two(append(b, ':'), sec)
}

// textEscapes escapes as template.HTMLEscapeString does, byte by byte.
var textEscapes = escapes{0: "\uFFFD", '"': "&#34;", '\'': "&#39;", '&': "&amp;", '<': "&lt;", '>': "&gt;"}

func newHTMLView(r Report) htmlView {
	v := htmlView{
		R:          r,
		Kind:       triggerLabel(r.Trigger),
		Final:      r.Trigger.Final(),
		Generated:  fmtMinute(r.GeneratedAt),
		Timeline:   buildTimelineView(r),
		HealthText: healthSentence(r),
		ViolText:   violationsHeadline(r),
		RunText:    fmtMinute(r.RunStart) + " → " + fmtMinute(r.RunEnd),
	}
	v.Cards = cards(r)
	v.Facts = facts(r)
	spans := healthSpans(r.Health.Samples, r.Timeline.Phases, r.RunEnd)
	for i, b := range r.Timeline.Phases {
		row := phaseRow{Phase: phaseLabel(b.Phase), Class: phaseClass(b.Phase), From: fmtTime(b.Start), To: fmtTime(b.End), Duration: fmtDuration(b.End.Sub(b.Start))}
		if b.Phase == plan.PhaseActive {
			row.Health, row.HealthClass = periodHealth(b, spans, r.Health.Unhealthy)
		}
		last := i+1 == len(r.Timeline.Phases)
		for j := range r.Violations.Items {
			x := &r.Violations.Items[j]
			if x.Timestamp.Before(b.Start) || x.Timestamp.After(b.End) || (!last && x.Timestamp.Equal(b.End)) {
				continue
			}
			if x.Blocked {
				row.Blocked++
			} else {
				row.Audited++
			}
		}
		v.Phases = append(v.Phases, row)
	}
	for _, ev := range r.Timeline.Events {
		actor := ev.Actor
		if actor == "" {
			actor = "controller"
		}
		v.Events = append(v.Events, eventRow{fmtTime(ev.Time), string(ev.Type), phaseLabel(ev.Phase), actor, ev.Message})
	}
	for _, u := range r.Health.Unhealthy {
		v.Unhealthy = append(v.Unhealthy, unhealthyRow{fmtTime(u.Start), fmtTime(u.End), fmtSeconds(u.Seconds), orNone(u.Reason), u.Message})
	}
	v.Grants, v.GrantWrites = grantLines(r.BreakGlass), grantWriteLines(r.BreakGlass)
	if a := r.EdgeActions; a != nil {
		v.EdgeText = edgeSentence(a)
		for _, w := range a.Windows {
			v.EdgeWindows = append(v.EdgeWindows, edgeWindowView{Title: edgeWindowLine(w), Rows: edgeRows(w)})
		}
	}
	v.ViolationRows = violationRows(r.Violations.Items)
	if r.Violations.Truncated {
		v.Truncation = "Truncated: " + plural(r.Violations.Dropped, "older violation was", "older violations were") +
			" left out; a report keeps the newest " + strconv.Itoa(MaxViolations) + "."
	}
	return v
}

// periodHealth says how an active period went, for the list that stands
// for the picture: "not checked" (grey) without a check in it, else
// healthy (green) or its unhealthy time (hatched red), with its checks and
// the time before its first check when that is a minute or more.
func periodHealth(b PhaseBand, spans []healthSpan, unhealthy []UnhealthyPeriod) (text, class string) {
	checks := 0
	var unchecked time.Duration
	for _, s := range spans {
		if s.Start.Before(b.Start) || !s.Start.Before(b.End) {
			continue
		}
		if s.Checked {
			checks += s.Checks
		} else {
			unchecked += s.End.Sub(s.Start)
		}
	}
	if checks == 0 {
		return "health not checked", "hl-none"
	}
	var bad int64
	for _, u := range unhealthy {
		if !u.Start.Before(b.Start) && u.Start.Before(b.End) {
			bad += u.Seconds
		}
	}
	text, class = "healthy", "hl-ok"
	if bad > 0 {
		text, class = fmtSeconds(bad)+" unhealthy", "shade"
	}
	text += " · " + plural(int64(checks), "check", "checks")
	if unchecked >= time.Minute {
		text += " · not checked in its first " + fmtDuration(unchecked)
	}
	return text, class
}

func cards(r Report) []card {
	s := r.Summary
	health := card{Label: "Health", Value: "Healthy", Detail: plural(int64(len(r.Health.Samples)), "check", "checks") + ", no unhealthy time while active", Tone: "ok"}
	switch {
	case s.UnhealthyPeriods > 0:
		health.Value = fmtSeconds(s.UnhealthySeconds) + " unhealthy"
		health.Detail = plural(int64(s.UnhealthyPeriods), "period", "periods") + " while active, out of " + plural(int64(len(r.Health.Samples)), "check", "checks")
		health.Tone = "bad"
	case len(r.Health.Samples) == 0:
		health.Value, health.Detail, health.Tone = "Unknown", "no health checks recorded", ""
	case !checkedWhileActive(r):
		health.Value, health.Detail, health.Tone = "Unknown", plural(int64(len(r.Health.Samples)), "check", "checks")+", none while active", ""
	}
	viol := card{Label: "Violations", Value: strconv.Itoa(s.Violations),
		Detail: strconv.Itoa(s.Blocked) + " blocked · " + strconv.Itoa(s.Audited) + " audited · " + plural(s.Decisions, "decision", "decisions")}
	if s.Violations > 0 {
		viol.Tone = "warn"
	}
	if r.Violations.Truncated {
		viol.Detail += " · truncated"
	}
	return []card{
		{Label: "Active", Value: fmtSeconds(s.ActiveSeconds), Detail: "in " + plural(int64(s.ActivePeriods), "period", "periods") + " · run of " + fmtDuration(r.RunEnd.Sub(r.RunStart))},
		viol,
		health,
		{Label: "Policies", Value: strconv.Itoa(len(r.Policies)), Detail: plural(int64(len(r.Templates)), "template", "templates") + " · " + plural(int64(len(r.Scope.Namespaces)), "namespace", "namespaces")},
	}
}

func facts(r Report) []fact {
	p := r.Plan
	return []fact{
		{"Window", p.Window.Description},
		{"Run", fmtMinute(r.RunStart) + " → " + fmtMinute(r.RunEnd)},
		{"Mode", string(p.Mode)},
		{"Approval", string(p.ApprovalMode)},
		{"Environment", orNone(p.Environment)},
		{"Tags", orNone(strings.Join(p.Tags, ", "))},
		{"Phase when reported", phaseLabel(p.Phase)},
		{"Plan ID", p.ID},
	}
}
