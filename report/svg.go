package report

import (
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

// The run picture of the HTML format: an SVG drawn from numbers computed
// here, so that the template only places them. User text appears only in
// <title> elements (tooltips), escaped by html/template, or for the
// violation marks by htmlEscapes, its equal.

// Picture geometry, in SVG user units (the picture scales to its box).
const (
	svgWidth    = 1000.0
	plotLeft    = 104.0
	plotRight   = 984.0
	eventsY     = 6.0
	phaseY      = 18.0
	phaseH      = 34.0
	healthY     = 64.0
	healthH     = 18.0
	blockedY    = 96.0
	auditedY    = 126.0
	markRowH    = 22.0
	axisY       = 152.0
	svgHeight   = 196.0
	minShadeW   = 4.0
	markBucketW = 8.0
)

// timelineView is the picture, ready to place.
type timelineView struct {
	Width, Height, PlotLeft, PlotRight, PlotWidth  string
	AxisY, TickLabelY, DateLabelY, GridTop, TotalX string
	Rows                                           []svgLabel
	Phases                                         []svgRect
	// HealthRow is the health row's background under the active
	// periods: green where checked, grey where not (unhealthy periods
	// are shaded over it).
	HealthRow        []svgRect
	Unhealthy        []svgShade
	Events           []svgEvent
	Blocked, Audited []svgMark
	// Marks is the markup of Blocked and Audited (marksSVG).
	Marks   template.HTML
	Ticks   []svgTick
	Caption string
}

type svgLabel struct{ Y, Text, Total string }

type svgRect struct {
	X, Y, W, H string
	Class      string
	// Label is drawn inside when it fits; Title is the tooltip.
	Label, LabelX, LabelY string
	Title                 string
}

type svgShade struct {
	X, W, LabelX, LabelY, LabelAnchor string
	Label, Title                      string
}

type svgEvent struct{ Points, Title string }

type svgMark struct {
	X, Y, CX, CY, Size string
	Count, CountX      string
	tip                markTip
}

// markTip is what a mark's tooltip says: when its violations happened,
// how many, and the first three. marksSVG writes it escaped piece by
// piece, as Title would be whole.
type markTip struct {
	first, last time.Time
	n           int
	what        string // "blocked" or "audited"
	shown       [3]*violations.Violation
	more        bool // more than the three shown
}

// Title is the tooltip's text.
func (m svgMark) Title() string {
	var b strings.Builder
	m.tip.write(&b, func(s string) { b.WriteString(s) })
	return b.String()
}

// size is about the length of the tooltip's text.
func (t *markTip) size() int {
	n := 64
	for _, v := range t.shown {
		if v != nil {
			r := &v.Resource
			n += 8 + len(r.Kind) + len(r.Namespace) + len(r.Name) + len(r.Subresource) + len(v.Message)
		}
	}
	return n
}

// write writes the tooltip's text to b, passing what comes from the
// violations through text.
func (t *markTip) write(b *strings.Builder, text func(string)) {
	b.WriteString(fmtTime(t.first))
	if t.n > 1 {
		b.WriteString(" → ")
		b.WriteString(fmtTime(t.last))
	}
	b.WriteString(" UTC · ")
	b.WriteString(plural(int64(t.n), t.what+" change", t.what+" changes"))
	for _, v := range t.shown {
		if v == nil {
			continue
		}
		b.WriteByte('\n')
		writeResource(&v.Resource, text)
		b.WriteString(": ")
		text(v.Message)
	}
	if t.more {
		b.WriteString("\n…")
	}
}

type svgTick struct {
	X, Label, Date string
	Major          bool
}

// scale maps instants of [from, to] onto [plotLeft, plotRight].
type scale struct {
	from time.Time
	span time.Duration
}

func (s scale) x(t time.Time) float64 {
	f := float64(t.Sub(s.from)) / float64(s.span)
	return plotLeft + min(max(f, 0), 1)*(plotRight-plotLeft)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// buildTimelineView draws the run from the first phase band to RunEnd.
func buildTimelineView(r Report) timelineView {
	from, to := r.RunStart, r.RunEnd
	if len(r.Timeline.Phases) > 0 {
		from = r.Timeline.Phases[0].Start
	}
	if !to.After(from.Add(time.Minute)) {
		to = from.Add(time.Minute)
	}
	sc := scale{from: from, span: to.Sub(from)}
	v := timelineView{
		Width: num(svgWidth), Height: num(svgHeight), PlotLeft: num(plotLeft), PlotRight: num(plotRight),
		PlotWidth: num(plotRight - plotLeft), AxisY: num(axisY), TickLabelY: num(axisY + 16),
		DateLabelY: num(axisY + 32), GridTop: num(phaseY),
		Rows: []svgLabel{
			{Y: num(phaseY + phaseH/2 + 4), Text: "Phase"},
			{Y: num(healthY + healthH/2 + 4), Text: "Health"},
			{Y: num(blockedY + markRowH/2 + 4), Text: "Blocked", Total: strconv.Itoa(r.Summary.Blocked)},
			{Y: num(auditedY + markRowH/2 + 4), Text: "Audited", Total: strconv.Itoa(r.Summary.Audited)},
		},
		TotalX:  num(plotLeft - 8),
		Caption: "From " + fmtMinute(from) + " to " + fmtMinute(to),
	}
	v.Phases = phaseRects(r.Timeline.Phases, sc)
	v.HealthRow = healthRects(healthSpans(r.Health.Samples, r.Timeline.Phases, r.RunEnd), sc)
	v.Unhealthy = unhealthyShades(r.Health.Unhealthy, sc)
	v.Events = eventMarks(r.Timeline.Events, sc, from, to)
	v.Blocked, v.Audited = violationMarks(r.Violations.Items, sc)
	v.Marks = marksSVG(v.Blocked, v.Audited)
	v.Ticks = ticks(from, to, sc)
	return v
}

func phaseClass(p plan.Phase) string {
	switch p {
	case plan.PhaseActive:
		return "ph-active"
	case plan.PhaseScheduled:
		return "ph-scheduled"
	case plan.PhasePendingApproval:
		return "ph-pending"
	case plan.PhaseFailed:
		return "ph-failed"
	}
	return "ph-ended"
}

// phaseRects draws a band per phase, labelled when the label fits.
func phaseRects(bands []PhaseBand, sc scale) (phases []svgRect) {
	for _, b := range bands {
		x0, x1 := sc.x(b.Start), sc.x(b.End)
		w := max(x1-x0, 1)
		label := phaseLabel(b.Phase)
		rect := svgRect{X: num(x0), Y: num(phaseY), W: num(w), H: num(phaseH), Class: phaseClass(b.Phase),
			Title: phaseLabel(b.Phase) + ": " + fmtTime(b.Start) + " → " + fmtTime(b.End) + " UTC (" + fmtDuration(b.End.Sub(b.Start)) + ")"}
		if textWidth(label) < w-8 {
			rect.Label, rect.LabelX, rect.LabelY = label, num(x0+w/2), num(phaseY+phaseH/2+4)
		}
		phases = append(phases, rect)
	}
	return phases
}

// healthRects draws the health row under the active periods: green
// (hl-ok) where a health check states the health, grey (hl-none) where
// none does, as the Health card says "Unknown" when there is no check at
// all. An active period without any check is drawn at least one unit
// wide, as its phase band is; the grey before a period's first check only
// when it is at least 0.1 unit wide (a second in a day is not).
func healthRects(spans []healthSpan, sc scale) []svgRect {
	var out []svgRect
	for _, s := range spans {
		x0, x1 := sc.x(s.Start), sc.x(s.End)
		w := x1 - x0
		if s.Whole {
			w = max(w, 1)
		} else if w < 0.05 {
			continue
		}
		rect := svgRect{X: num(x0), Y: num(healthY), W: num(w), H: num(healthH), Class: "hl-ok",
			Title: "health checked " + fmtTime(s.Start) + " → " + fmtTime(s.End) + " UTC (" + plural(int64(s.Checks), "check", "checks") + ")"}
		if !s.Checked {
			rect.Class = "hl-none"
			rect.Title = "health not checked " + fmtTime(s.Start) + " → " + fmtTime(s.End) + " UTC (" + fmtDuration(s.End.Sub(s.Start)) + "): no health check yet in this active period"
		}
		out = append(out, rect)
	}
	return out
}

// unhealthyShades shades each unhealthy period across the rows (at least
// minShadeW wide, so that 40 seconds in two days still shows) and labels
// it with its length, on the side with room.
func unhealthyShades(periods []UnhealthyPeriod, sc scale) []svgShade {
	var out []svgShade
	lastLabelEnd := 0.0
	for _, u := range periods {
		x0, x1 := sc.x(u.Start), sc.x(u.End)
		if w := x1 - x0; w < minShadeW {
			x0 -= (minShadeW - w) / 2
			x1 = x0 + minShadeW
		}
		s := svgShade{X: num(x0), W: num(x1 - x0), LabelY: num(healthY + healthH/2 + 4),
			Title: "not healthy " + fmtTime(u.Start) + " → " + fmtTime(u.End) + " UTC (" + fmtSeconds(u.Seconds) + "): " + u.Reason + " " + u.Message}
		label := fmtSeconds(u.Seconds) + " unhealthy"
		lw := textWidth(label)
		switch {
		case x1+4+lw <= plotRight && x1+4 > lastLabelEnd:
			s.Label, s.LabelX, s.LabelAnchor = label, num(x1+4), "start"
			lastLabelEnd = x1 + 4 + lw
		case x0-4-lw >= plotLeft && x0-4-lw > lastLabelEnd:
			s.Label, s.LabelX, s.LabelAnchor = label, num(x0-4), "end"
			lastLabelEnd = x0
		}
		out = append(out, s)
	}
	return out
}

// eventMarks puts a small triangle above the phases for the events people
// did (created, approved, rejected, edited, canceled, reactivated...);
// phase changes show as bands already.
func eventMarks(events []TimelineEvent, sc scale, from, to time.Time) []svgEvent {
	var out []svgEvent
	for _, ev := range events {
		if ev.Type == plan.EventPhaseChanged || ev.Type == plan.EventHealthChanged || ev.Time.Before(from) || ev.Time.After(to) {
			continue
		}
		x := sc.x(ev.Time)
		who := ev.Actor
		if who == "" {
			who = "controller"
		}
		out = append(out, svgEvent{
			Points: num(x-5) + "," + num(eventsY) + " " + num(x+5) + "," + num(eventsY) + " " + num(x) + "," + num(eventsY+9),
			Title:  fmtTime(ev.Time) + " UTC · " + string(ev.Type) + " by " + who + ": " + ev.Message,
		})
	}
	return out
}

// violationMarks groups violations into buckets of markBucketW units per
// row: blocked are filled squares, audited hollow circles, so that the two
// differ without colour. A bucket of several shows its count, unless the
// counts of its row would run into the next marks (its tooltip always
// shows it, and the row label the row's total).
func violationMarks(items []violations.Violation, sc scale) (blocked, audited []svgMark) {
	type bucket struct {
		n           int
		first, last time.Time
		x           float64
		shown       [3]*violations.Violation // the first three, for the tooltip
		moreThan3   bool
	}
	var buckets [2]map[int]*bucket
	var order [2][]int
	var crowded [2]bool
	for i := range buckets {
		buckets[i] = map[int]*bucket{}
	}
	for i := range items {
		v := &items[i]
		row := 1
		if v.Blocked {
			row = 0
		}
		x := sc.x(v.Timestamp)
		k := int((x - plotLeft) / markBucketW)
		b := buckets[row][k]
		if b == nil {
			b = &bucket{first: v.Timestamp, x: plotLeft + (float64(k)+0.5)*markBucketW}
			buckets[row][k] = b
			order[row] = append(order[row], k)
		}
		if b.n < len(b.shown) {
			b.shown[b.n] = v
		} else {
			b.moreThan3 = true
		}
		b.n++
		b.last = v.Timestamp
	}
	for row := range 2 {
		for i, k := range order[row] {
			b := buckets[row][k]
			x := min(max(b.x, plotLeft+6), plotRight-6)
			y := blockedY
			what := "blocked"
			if row == 1 {
				y, what = auditedY, "audited"
			}
			tip := markTip{first: b.first, last: b.last, n: b.n, what: what, shown: b.shown, more: b.moreThan3}
			m := svgMark{X: num(x - 5), Y: num(y + markRowH/2 - 5), CX: num(x), CY: num(y + markRowH/2), Size: "10", tip: tip}
			next := svgWidth
			if i+1 < len(order[row]) {
				next = buckets[row][order[row][i+1]].x - 6
			}
			if count := strconv.Itoa(b.n); b.n > 1 {
				m.Count, m.CountX = count, num(x+8)
				crowded[row] = crowded[row] || x+8+textWidth(count) > min(next, svgWidth-2)
			}
			if row == 0 {
				blocked = append(blocked, m)
			} else {
				audited = append(audited, m)
			}
		}
	}
	for row, marks := range [][]svgMark{blocked, audited} {
		if crowded[row] {
			for i := range marks {
				marks[i].Count = ""
			}
		}
	}
	return blocked, audited
}

// marksSVG writes the violation marks as the page's template wrote them
// before: their number grows with the violations, and the template's
// evaluation of each field by reflection cost more than the rest of the
// page. Every value goes through htmlEscapes, the escaping html/template
// gives an attribute value, <title> content (RCDATA) and element text
// alike; TestMarksSVG_IsWhatTheTemplateWrote holds it to the template.
func marksSVG(blocked, audited []svgMark) template.HTML {
	size := 0 // the markup and the tooltips, unless escaping lengthens them
	for _, marks := range [][]svgMark{blocked, audited} {
		for i := range marks {
			size += 160 + marks[i].tip.size()
		}
	}
	var b strings.Builder
	b.Grow(size)
	text := func(s string) { htmlEscapes.write(&b, s) }
	count := func(m *svgMark) {
		if m.Count != "" {
			b.WriteString(`<text class="mk-count" x="`)
			text(m.CountX)
			b.WriteString(`" y="`)
			text(m.CY)
			b.WriteString(`" dy="4">`)
			text(m.Count)
			b.WriteString("</text>")
		}
	}
	for i := range blocked {
		m := &blocked[i]
		b.WriteString("\n<rect class=\"mk-blocked\" x=\"")
		text(m.X)
		b.WriteString(`" y="`)
		text(m.Y)
		b.WriteString(`" width="`)
		text(m.Size)
		b.WriteString(`" height="`)
		text(m.Size)
		b.WriteString(`"><title>`)
		m.tip.write(&b, text)
		b.WriteString("</title></rect>")
		if m.Count != "" {
			b.WriteByte('\n')
		}
		count(m)
	}
	for i := range audited {
		m := &audited[i]
		b.WriteString("\n<circle class=\"mk-audited\" cx=\"")
		text(m.CX)
		b.WriteString(`" cy="`)
		text(m.CY)
		b.WriteString(`" r="5"><title>`)
		m.tip.write(&b, text)
		b.WriteString("</title></circle>")
		if m.Count != "" {
			b.WriteByte('\n')
		}
		count(m)
	}
	return template.HTML(b.String())
}

// htmlEscapes is how html/template escapes a string in an attribute
// value, in RCDATA (<title>) and in element text: its replacement table.
// Every character it replaces is ASCII, so escaping byte by byte is the
// same (no byte of a multi-byte or invalid UTF-8 sequence matches), and
// escaping a text piece by piece gives what escaping it whole would.
var htmlEscapes = escapes{0: "\uFFFD", '"': "&#34;", '&': "&amp;", '\'': "&#39;", '+': "&#43;", '<': "&lt;", '>': "&gt;"}

// escapes replaces bytes by strings; a byte without one is kept.
type escapes [256]string

// write writes s to b, escaped.
func (e *escapes) write(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		if r := e[s[i]]; r != "" {
			b.WriteString(s[last:i])
			b.WriteString(r)
			last = i + 1
		}
	}
	b.WriteString(s[last:])
}

// tickSteps are the axis steps, the smallest that gives at most 10 ticks
// is used.
var tickSteps = []time.Duration{
	time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 48 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour,
}

// ticks marks the axis every step, on UTC multiples of the step; a tick at
// midnight (or the first one) also shows the date.
func ticks(from, to time.Time, sc scale) []svgTick {
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if to.Sub(from)/s <= 10 {
			step = s
			break
		}
	}
	day := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC)
	t := day.Add(from.Sub(day).Truncate(step))
	if t.Before(from) {
		t = t.Add(step)
	}
	var out []svgTick
	for ; !t.After(to); t = t.Add(step) {
		midnight := t.Hour() == 0 && t.Minute() == 0
		tk := svgTick{X: num(sc.x(t)), Label: t.Format("15:04"), Major: midnight}
		if step >= 24*time.Hour {
			tk.Label = t.Format("2 Jan")
		} else if midnight || len(out) == 0 {
			tk.Date = t.Format("Mon 2 Jan")
		}
		out = append(out, tk)
	}
	return out
}

// textWidth estimates the width of a label at the picture's 12-unit font.
func textWidth(s string) float64 { return float64(len([]rune(s))) * 6.6 }
