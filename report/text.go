package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

// Wording shared by the HTML and Markdown formats. Times are shown in UTC.

// timeLayout is how reports write an instant, in UTC.
const timeLayout = "2006-01-02 15:04:05"

// fmtTime writes an instant for tables: "2026-07-20 22:00:31".
func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(timeLayout)
}

// fmtMinute writes an instant for prose: "Mon 20 Jul 2026 22:00 UTC".
func fmtMinute(t time.Time) string {
	return t.UTC().Format("Mon 2 Jan 2006 15:04 UTC")
}

// fmtSeconds writes a duration for people: "40s", "12m 5s", "8h",
// "7h 59m", "1d 16h".
func fmtSeconds(s int64) string {
	if s <= 0 {
		return "0s"
	}
	d, h, m, sec := s/86400, s/3600%24, s/60%60, s%60
	parts := make([]string, 0, 2)
	add := func(n int64, unit string) {
		if n > 0 && len(parts) < 2 {
			parts = append(parts, strconv.FormatInt(n, 10)+unit)
		}
	}
	switch {
	case d > 0:
		add(d, "d")
		add(h, "h")
	case h > 0:
		add(h, "h")
		add(m, "m")
	default:
		add(m, "m")
		add(sec, "s")
	}
	return strings.Join(parts, " ")
}

func fmtDuration(d time.Duration) string { return fmtSeconds(seconds(d)) }

// triggerLabel says what kind of report it is.
func triggerLabel(t Trigger) string {
	switch t {
	case TriggerEnd:
		return "Final report · the window ended"
	case TriggerCancel:
		return "Final report · the plan was canceled"
	case TriggerManual:
		return "On-demand report"
	}
	return "Report"
}

// phaseLabel writes a phase for people: "pending approval".
func phaseLabel(p plan.Phase) string {
	if p == "" {
		return "—"
	}
	return strings.ReplaceAll(string(p), "_", " ")
}

// resourceLabel writes a violation's resource: "Deployment shop/web
// (scale)".
func resourceLabel(r violations.Resource) string {
	var b strings.Builder
	b.Grow(len(r.Kind) + len(r.Namespace) + len(r.Name) + len(r.Subresource) + 4)
	writeResource(&r, func(s string) { b.WriteString(s) })
	return b.String()
}

// writeResource writes the resource label piece by piece through write,
// which may escape each piece (the separators need no escaping).
func writeResource(r *violations.Resource, write func(string)) {
	write(r.Kind)
	write(" ")
	if r.Namespace != "" {
		write(r.Namespace)
		write("/")
	}
	write(r.Name)
	if r.Subresource != "" {
		write(" (")
		write(r.Subresource)
		write(")")
	}
}

// policyLabel writes a violation's policy and rule: "shop/p · rule".
func policyLabel(v *violations.Violation) string {
	s := v.Policy
	if v.PolicyNamespace != "" {
		s = v.PolicyNamespace + "/" + s
	}
	if v.Rule != "" {
		s += " · " + v.Rule
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func paramsLabel(ps []Parameter) string {
	if len(ps) == 0 {
		return "defaults"
	}
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Name + " = " + p.Value
	}
	return strings.Join(parts, "; ")
}
