package report

import (
	"slices"
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// BreakGlass is the run's break-glass grants and the writes made under
// them (issue 18): a reader sees who was exempt, for what, granted by
// whom, and what they changed.
type BreakGlass struct {
	// Grants are the grants requested or in force during the run, oldest
	// first.
	Grants []GrantRecord `json:"grants"`
	// Note says what the writes cannot show: with target vap, a write a
	// grant admitted reaches only the API server's audit log (and a
	// warning to its requester), not the violations.
	Note string `json:"note,omitempty"`
}

// GrantRecord is one grant as the plan's status holds it, its state at the
// end of the run, and the writes made under it.
type GrantRecord struct {
	plan.Grant
	State plan.GrantState `json:"state"`
	// Writes are the violations the exempt record policy recorded for
	// the grant's users while it was in force, oldest first.
	Writes []GrantWrite `json:"writes"`
}

// GrantWrite is a write a grant admitted.
type GrantWrite struct {
	At        time.Time           `json:"at"`
	Requester string              `json:"requester"`
	Resource  violations.Resource `json:"resource"`
	Message   string              `json:"message"`
}

// buildBreakGlass is the run's grants: those requested before runEnd and
// not ended before from, each with the writes its users made while it was
// in force. Nil when the run had none.
func buildBreakGlass(p *plan.ProtectionPlan, vs []violations.Violation, policies []PolicyInfo, from, runEnd time.Time) *BreakGlass {
	var b BreakGlass
	for _, g := range p.Status.Grants {
		end := g.End()
		if g.RequestedAt.After(runEnd) || (!end.IsZero() && end.Before(from)) {
			continue
		}
		rec := GrantRecord{Grant: *g.DeepCopy(), State: g.State(runEnd), Writes: []GrantWrite{}}
		if g.GrantedAt != nil {
			for _, v := range vs {
				if v.Template != render.ExemptTemplate || !slices.Contains(g.Users, v.Requester) ||
					v.Timestamp.Before(g.GrantedAt.Time) || (!end.IsZero() && !v.Timestamp.Before(end)) {
					continue
				}
				rec.Writes = append(rec.Writes, GrantWrite{At: v.Timestamp.UTC(), Requester: v.Requester, Resource: v.Resource, Message: v.Message})
			}
			slices.SortStableFunc(rec.Writes, func(a, b GrantWrite) int { return a.At.Compare(b.At) })
		}
		b.Grants = append(b.Grants, rec)
	}
	if len(b.Grants) == 0 {
		return nil
	}
	if slices.ContainsFunc(policies, func(pi PolicyInfo) bool { return pi.Target == string(render.TargetVAP) }) {
		b.Note = "The policies were ValidatingAdmissionPolicies (target vap): a write a grant admitted is in the API server's audit log and was answered with a warning to its requester; it is not among the violations, so no write is listed here."
	}
	return &b
}

// grantLine is a grant in words, for the HTML and Markdown reports.
type grantLine struct {
	ID, Users, Reason, Requested, Granted, Ended, State, Writes string
}

// grantLines writes the grants for people.
func grantLines(b *BreakGlass) []grantLine {
	if b == nil {
		return nil
	}
	var out []grantLine
	for _, g := range b.Grants {
		l := grantLine{ID: g.ID, Users: strings.Join(g.Users, ", "), Reason: g.Reason,
			Requested: g.RequestedBy + ", " + fmtTime(g.RequestedAt.Time), State: strings.ReplaceAll(string(g.State), "_", " "),
			Granted: "—", Ended: "—", Writes: plural(int64(len(g.Writes)), "write", "writes")}
		if g.GrantedAt != nil {
			l.Granted = g.GrantedBy + ", " + fmtTime(g.GrantedAt.Time)
			if g.SelfGranted {
				l.Granted += " (self-granted)"
			}
		}
		switch {
		case g.RevokedAt != nil && g.End().Equal(g.RevokedAt.Time):
			l.Ended = "revoked by " + g.RevokedBy + ", " + fmtTime(g.RevokedAt.Time)
		case g.ExpiresAt != nil:
			l.Ended = "expires " + fmtTime(g.ExpiresAt.Time)
		}
		out = append(out, l)
	}
	return out
}

// grantWriteLines are the writes under the grants, for people: grant,
// time, requester, resource, message.
func grantWriteLines(b *BreakGlass) [][5]string {
	if b == nil {
		return nil
	}
	var out [][5]string
	for _, g := range b.Grants {
		for _, w := range g.Writes {
			out = append(out, [5]string{g.ID, fmtTime(w.At), w.Requester, resourceLabel(w.Resource), w.Message})
		}
	}
	return out
}

func (m *mdWriter) breakGlass(r Report) {
	if r.BreakGlass == nil {
		return
	}
	m.section("Break-glass grants")
	m.table("Grant", "Users", "Reason", "Requested", "Granted", "Ended", "State", "Writes")
	for _, l := range grantLines(r.BreakGlass) {
		m.row(l.ID, l.Users, l.Reason, l.Requested, l.Granted, l.Ended, l.State, l.Writes)
	}
	if ws := grantWriteLines(r.BreakGlass); len(ws) > 0 {
		m.line("")
		m.table("Grant", "Time (UTC)", "Requester", "Resource", "Message")
		for _, w := range ws {
			m.row(w[0], w[1], w[2], w[3], w[4])
		}
	}
	if n := r.BreakGlass.Note; n != "" {
		m.line("")
		m.text(n)
		m.line("")
	}
}
