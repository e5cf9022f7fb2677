package report

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// writeMarkdown writes the report as GitHub-flavoured Markdown. User text
// is only ever written in inline context (table cells, after a label) and
// through mdText, so it cannot open a block, a link, an image, raw HTML or
// a new table cell.
func writeMarkdown(w io.Writer, r Report) error {
	m := &mdWriter{w: bufio.NewWriterSize(w, 32<<10)}
	m.header(r)
	m.plan(r)
	m.scope(r)
	m.policies(r)
	m.timeline(r)
	m.health(r)
	m.breakGlass(r)
	m.edgeActions(r)
	m.violations(r)
	m.line("")
	m.line("---")
	m.line("")
	m.raw("Report ")
	m.text(r.ID)
	m.raw(" · schema v" + strconv.Itoa(r.SchemaVersion) + " · times in UTC. ")
	m.line("This report includes admission decisions (violations): whoever may read it sees them.")
	return m.w.Flush()
}

type mdWriter struct {
	w *bufio.Writer
}

func (m *mdWriter) raw(s string)  { m.w.WriteString(s) }
func (m *mdWriter) line(s string) { m.w.WriteString(s); m.w.WriteByte('\n') }
func (m *mdWriter) text(s string) { writeMDText(m.w, s) }

// row writes one table row; cells are user text.
func (m *mdWriter) row(cells ...string) {
	m.w.WriteByte('|')
	for _, c := range cells {
		m.w.WriteByte(' ')
		writeMDText(m.w, c)
		m.w.WriteString(" |")
	}
	m.w.WriteByte('\n')
}

// table writes a header row and its delimiter row; header cells are ours.
func (m *mdWriter) table(head ...string) {
	m.line("| " + strings.Join(head, " | ") + " |")
	m.line(strings.Repeat("| --- ", len(head)) + "|")
}

func (m *mdWriter) section(title string) {
	m.line("")
	m.line("## " + title)
	m.line("")
}

func (m *mdWriter) header(r Report) {
	m.raw("# Protection plan report: ")
	m.text(orNone(r.Plan.Name))
	m.line("")
	m.line("")
	m.line("**" + triggerLabel(r.Trigger) + "** · generated " + fmtMinute(r.GeneratedAt))
	m.line("")
	s := r.Summary
	m.table("Run", "Violations", "Health", "Policies")
	m.line("| " + fmtSeconds(s.ActiveSeconds) + " active in " + plural(int64(s.ActivePeriods), "period", "periods") +
		"<br>" + fmtMinute(r.RunStart) + " → " + fmtMinute(r.RunEnd) +
		" | " + violationsHeadline(r) +
		" | " + healthHeadline(r) +
		" | " + plural(int64(len(r.Policies)), "policy", "policies") + " |")
}

func violationsHeadline(r Report) string {
	s := r.Summary
	out := plural(int64(s.Violations), "violation", "violations") + ": " +
		strconv.Itoa(s.Blocked) + " blocked, " + strconv.Itoa(s.Audited) + " audited"
	if r.Violations.Truncated {
		out += " (truncated: " + strconv.FormatInt(r.Violations.Dropped, 10) + " left out)"
	}
	return out
}

func healthHeadline(r Report) string {
	s := r.Summary
	if s.UnhealthyPeriods == 0 {
		if len(r.Health.Samples) == 0 {
			return "no health checks recorded"
		}
		return "healthy throughout"
	}
	return "unhealthy for " + fmtSeconds(s.UnhealthySeconds) + " (" + plural(int64(s.UnhealthyPeriods), "period", "periods") + ")"
}

func (m *mdWriter) plan(r Report) {
	p := r.Plan
	m.section("Plan")
	m.table("Field", "Value")
	m.row("Name", p.Name)
	m.row("ID", p.ID)
	m.row("Description", orNone(p.Description))
	m.row("Environment", orNone(p.Environment))
	m.row("Tags", orNone(strings.Join(p.Tags, ", ")))
	m.row("Mode", string(p.Mode))
	m.row("Approval", string(p.ApprovalMode))
	m.row("Window", p.Window.Description)
	m.row("Phase when reported", phaseLabel(p.Phase))
	m.line("")
	m.line("### Templates")
	m.line("")
	m.table("Template", "Parameters")
	for _, t := range r.Templates {
		m.row(t.Name, paramsLabel(t.Parameters))
	}
}

func (m *mdWriter) scope(r Report) {
	m.section("Scope")
	if r.Scope.Type == "applications" {
		m.table("Application", "Namespaces")
		for _, a := range r.Scope.Applications {
			ns := strings.Join(a.Namespaces, ", ")
			if !a.Resolved {
				ns = "(not resolved)"
			}
			m.row(a.Name, ns)
		}
	} else {
		if len(r.Scope.Selectors) > 0 {
			m.w.WriteString("Namespaces selected by ")
			m.text(strings.Join(r.Scope.Selectors, " or ")) // user text, escaped
			m.line(":")
			m.line("")
		}
		m.table("Namespace")
		for _, ns := range r.Scope.Namespaces {
			m.row(ns)
		}
	}
	m.line("")
	m.line("### Exclusions")
	m.line("")
	if len(r.Exclusions.Kinds) == 0 && len(r.Exclusions.Resources) == 0 {
		m.line("None.")
		return
	}
	m.table("Excluded", "Kind", "Namespace", "Name")
	for _, k := range r.Exclusions.Kinds {
		m.row("whole kind", k, "—", "—")
	}
	for _, x := range r.Exclusions.Resources {
		m.row("one resource", x.Kind, x.Namespace, x.Name)
	}
}

func (m *mdWriter) policies(r Report) {
	m.section("Policies")
	if len(r.Policies) == 0 {
		m.line("No policies recorded.")
		return
	}
	m.table("Namespace", "Name", "Template", "Target")
	for _, p := range r.Policies {
		m.row(p.Namespace, p.Name, p.Template, p.Target)
	}
}

func (m *mdWriter) timeline(r Report) {
	m.section("Timeline")
	m.table("Phase", "From (UTC)", "To (UTC)", "Duration")
	for _, b := range r.Timeline.Phases {
		m.row(phaseLabel(b.Phase), fmtTime(b.Start), fmtTime(b.End), fmtDuration(b.End.Sub(b.Start)))
	}
	m.line("")
	if r.Timeline.Dropped > 0 {
		m.line("The plan's timeline dropped its " + plural(r.Timeline.Dropped, "oldest event", "oldest events") + ".")
		m.line("")
	}
	m.table("Time (UTC)", "Event", "Phase after", "Actor", "Message")
	for _, ev := range r.Timeline.Events {
		actor := ev.Actor
		if actor == "" {
			actor = "controller"
		}
		m.row(fmtTime(ev.Time), string(ev.Type), phaseLabel(ev.Phase), actor, orNone(ev.Message))
	}
}

func (m *mdWriter) health(r Report) {
	m.section("Health")
	m.line(healthSentence(r))
	if len(r.Health.Unhealthy) > 0 {
		m.line("")
		m.table("From (UTC)", "To (UTC)", "Duration", "Reason", "Message")
		for _, u := range r.Health.Unhealthy {
			m.row(fmtTime(u.Start), fmtTime(u.End), fmtSeconds(u.Seconds), orNone(u.Reason), orNone(u.Message))
		}
	}
	if len(r.Health.Unverified) == 0 {
		return
	}
	m.line("")
	m.line("The freeze was not verified to refuse (EnforcementVerified) during:")
	m.line("")
	m.table("From (UTC)", "To (UTC)", "Duration", "Reason", "Message")
	for _, u := range r.Health.Unverified {
		m.row(fmtTime(u.Start), fmtTime(u.End), fmtSeconds(u.Seconds), orNone(u.Reason), orNone(u.Message))
	}
}

func healthSentence(r Report) string {
	n := int64(len(r.Health.Samples))
	switch {
	case n == 0:
		return "No health check recorded: the plan's health while active is unknown."
	case !checkedWhileActive(r):
		return plural(n, "health check", "health checks") + " recorded, none while the plan was active: its health while active is unknown."
	}
	s := plural(n, "health check", "health checks") + " recorded; "
	if len(r.Health.Unhealthy) == 0 {
		return s + "no unhealthy time while the plan was active."
	}
	return s + "the plan was active and not healthy for " + fmtSeconds(r.Health.UnhealthySeconds) +
		" in total (" + plural(int64(len(r.Health.Unhealthy)), "period", "periods") + ")."
}

// checkedWhileActive is true when a health check was taken while the plan
// was active: only those state its health (see UnhealthyPeriods).
func checkedWhileActive(r Report) bool {
	for _, s := range healthSpans(r.Health.Samples, r.Timeline.Phases, r.RunEnd) {
		if s.Checked {
			return true
		}
	}
	return false
}

func (m *mdWriter) violations(r Report) {
	m.section("Violations")
	m.line(violationsHeadline(r) + ".")
	if r.Violations.Truncated {
		m.line("")
		m.line("**Truncated:** " + plural(r.Violations.Dropped, "older violation was", "older violations were") +
			" left out; this report keeps the newest " + strconv.Itoa(MaxViolations) + ".")
	}
	if len(r.Violations.Items) == 0 {
		return
	}
	m.line("")
	m.table("Time (UTC)", "Decision", "Resource", "Policy · rule", "Count", "Message")
	for i := range r.Violations.Items {
		v := &r.Violations.Items[i]
		m.row(fmtTime(v.Timestamp), decision(v.Blocked), resourceLabel(v.Resource), policyLabel(v),
			strconv.Itoa(int(max(v.Count, 1))), v.Message)
	}
}

// writeMDText writes user text for an inline Markdown context: the
// characters that open inline constructs or end a table cell are
// backslash-escaped (\ ` * _ [ ] < > & | ~ ! #), line breaks become <br>,
// other control characters become U+FFFD, and bidirectional controls are
// shown as ‹U+202E› so that they cannot reorder the text around them.
func writeMDText(w *bufio.Writer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var rep string
		switch c {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '&', '|', '~', '!', '#':
			rep = "\\" + string(c)
		case '\r':
			rep = "<br>"
			if i+1 < len(s) && s[i+1] == '\n' {
				w.WriteString(s[last:i])
				w.WriteString(rep)
				i++
				last = i + 1
				continue
			}
		case '\n':
			rep = "<br>"
		case '\t':
			rep = " "
		case 0xE2:
			if i+2 < len(s) {
				if r := s[i : i+3]; isBidiControl(r) {
					w.WriteString(s[last:i])
					w.WriteString("‹U+" + strings.ToUpper(strconv.FormatInt(int64(bidiRune(r)), 16)) + "›")
					i += 2
					last = i + 1
				}
			}
			continue
		default:
			if c < 0x20 || c == 0x7f {
				rep = "\uFFFD"
			} else {
				continue
			}
		}
		w.WriteString(s[last:i])
		w.WriteString(rep)
		last = i + 1
	}
	w.WriteString(s[last:])
}

// isBidiControl reports whether the three bytes b are the UTF-8 of a
// bidirectional control: U+200E, U+200F, U+202A..U+202E, U+2066..U+2069.
func isBidiControl(b string) bool {
	r := bidiRune(b)
	return r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

func bidiRune(b string) rune {
	if len(b) != 3 || b[0] != 0xE2 || b[1]&0xC0 != 0x80 || b[2]&0xC0 != 0x80 {
		return -1
	}
	return rune(b[0]&0x0F)<<12 | rune(b[1]&0x3F)<<6 | rune(b[2]&0x3F)
}
