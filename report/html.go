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
	return htmlTemplate.Execute(w, newHTMLView(r))
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
	// ViolationRows is the body of the violations table, up to
	// MaxViolations rows, escaped by violationRows.
	ViolationRows template.HTML
	ViolText      string
	Truncation    string
	RunText       string
}

type card struct{ Label, Value, Detail, Tone string }

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
// goes through template.HTMLEscapeString, html/template's own escaper for
// that context. The hostile tests check it like the rest of the page.
func violationRows(items []violations.Violation) template.HTML {
	var b strings.Builder
	b.Grow(len(items) * 480)
	cell := func(class, text string) {
		b.WriteString("<td")
		if class != "" {
			b.WriteString(` class="` + class + `"`)
		}
		b.WriteByte('>')
		b.WriteString(template.HTMLEscapeString(text))
		b.WriteString("</td>")
	}
	for i := range items {
		x := &items[i]
		b.WriteString("\n<tr>")
		cell("time", fmtTime(x.Timestamp))
		if x.Blocked {
			b.WriteString(`<td><span class="pill blocked">■ blocked</span></td>`)
		} else {
			b.WriteString(`<td><span class="pill audited">○ audited</span></td>`)
		}
		cell("", resourceLabel(x.Resource))
		cell("", policyLabel(x))
		cell("num", strconv.Itoa(int(max(x.Count, 1))))
		cell("msg", x.Message)
		b.WriteString("</tr>")
	}
	return template.HTML(b.String())
}

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
