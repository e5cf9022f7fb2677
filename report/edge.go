package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
)

// EdgeActions are the run's edge actions (issue 24): for each window in
// which they started, every participant of every action, what the start
// did to it and what the restore did. Built from the journals the
// embedder kept (Input.EdgeJournals), never from the live objects.
type EdgeActions struct {
	// Windows are the run's journals, oldest first: one per window
	// occurrence in which the actions started.
	Windows []EdgeWindow `json:"windows"`
	// Dropped counts older windows of the run the embedder no longer
	// kept (Input.EdgeDropped): the run had more than Windows.
	Dropped int `json:"dropped,omitempty"`
}

// EdgeWindow is one journal: one window occurrence's actions.
type EdgeWindow struct {
	// Start is the start of the window occurrence; CapturedAt when the
	// participants were captured, before any change; RestoringSince when
	// the restore began (absent while the window lasts).
	Start          time.Time  `json:"start"`
	CapturedAt     time.Time  `json:"capturedAt"`
	RestoringSince *time.Time `json:"restoringSince,omitempty"`
	// Phase is the journal's: Done once every restore is done (or given
	// up); Starting, Started or Restoring in a report made before.
	Phase edge.Phase `json:"phase"`
	// AbandonedBy names who gave up the failed restores, when someone did.
	AbandonedBy string `json:"abandonedBy,omitempty"`
	// Actions are the plan's actions, in its order, then any other the
	// journal holds.
	Actions []EdgeAction `json:"actions"`
}

// EdgeAction is one action of a window and its participants.
type EdgeAction struct {
	Name edge.Name `json:"name"`
	// Title is the catalog's title of the action.
	Title string `json:"title"`
	// Parameters are the action as the plan writes it (replicas,
	// overwrite, force), those set only, sorted by name.
	Parameters []Parameter `json:"parameters"`
	// Participants are the objects the action captured, in the journal's
	// order (kind, namespace, name).
	Participants []EdgeParticipant `json:"participants"`
}

// EdgeParticipant is one object an action captured, and what became of it.
type EdgeParticipant struct {
	// Target is the object, with the UID it had when captured (the
	// restore acts on that UID only).
	Target      edge.ObjectRef `json:"target"`
	Subresource string         `json:"subresource,omitempty"`
	// Pointer is the RFC 6901 pointer of the value changed.
	Pointer string `json:"pointer"`
	// Captured is the value before the window and Applied the value the
	// start writes: JSON text, or "absent".
	Captured string `json:"captured"`
	Applied  string `json:"applied"`
	// Start and Restore are the outcomes of the two steps.
	Start   EdgeStep `json:"start"`
	Restore EdgeStep `json:"restore"`
	// Attempts counts the patches sent for the last step; LastError is
	// the last failure, which a later attempt may have overcome.
	Attempts  int    `json:"attempts,omitempty"`
	LastError string `json:"lastError,omitempty"`
}

// EdgeStep is the outcome of a start or a restore, and why.
type EdgeStep struct {
	Outcome EdgeOutcome `json:"outcome"`
	Reason  string      `json:"reason,omitempty"`
}

// EdgeOutcome is what a start or a restore did to a participant.
type EdgeOutcome string

// Start outcomes.
const (
	// EdgeApplied: the start's patch was confirmed.
	EdgeApplied EdgeOutcome = "applied"
	// EdgeStartSkipped: nothing was changed (Reason says why).
	EdgeStartSkipped EdgeOutcome = "skipped"
	// EdgeNotLanded: the start's patch was never confirmed, and the
	// object did not hold its value at the end.
	EdgeNotLanded EdgeOutcome = "not_landed"
	// EdgePending: the step is not done yet (both steps).
	EdgePending EdgeOutcome = "pending"
)

// Restore outcomes.
const (
	// EdgeRestored: the captured value was written back.
	EdgeRestored EdgeOutcome = "restored"
	// EdgeNotNeeded: the start changed nothing, so nothing was restored.
	EdgeNotNeeded EdgeOutcome = "not_needed"
	// EdgeMissing: the object was gone at the end.
	EdgeMissing EdgeOutcome = "skipped_missing"
	// EdgeReplaced: another object (another UID) had its name at the end.
	EdgeReplaced EdgeOutcome = "skipped_replaced"
	// EdgeKept: someone changed the value during the window; it was kept.
	EdgeKept EdgeOutcome = "kept_changed"
	// EdgeFailed: the restore failed (an ownership conflict); the plan
	// keeps its journal and finalizer until it is resolved or abandoned.
	EdgeFailed EdgeOutcome = "failed"
	// EdgeAbandoned: the restore failed and someone gave it up.
	EdgeAbandoned EdgeOutcome = "abandoned"
)

// buildEdgeActions is the section of the run: the journals of plan p
// captured from the run's beginning on, oldest first. Nil when the plan
// has no edge actions and no journal of the run.
func buildEdgeActions(p *plan.ProtectionPlan, journals []edge.Journal, dropped int, from time.Time) *EdgeActions {
	var js []edge.Journal
	for _, j := range journals {
		if j.Plan.UID != "" && p.UID != "" && j.Plan.UID != p.UID {
			continue // another plan of the same name
		}
		if j.CapturedAt.Before(from) {
			continue // an earlier run's
		}
		js = append(js, j)
	}
	if len(js) == 0 && len(p.Spec.EdgeActions) == 0 {
		return nil
	}
	slices.SortStableFunc(js, func(a, b edge.Journal) int {
		return cmp.Or(a.CapturedAt.Compare(b.CapturedAt), a.Start.Compare(b.Start))
	})
	js = slices.CompactFunc(js, func(a, b edge.Journal) bool {
		return a.CapturedAt.Equal(b.CapturedAt) && a.Start.Equal(b.Start)
	})
	out := &EdgeActions{Windows: []EdgeWindow{}, Dropped: max(dropped, 0)}
	for _, j := range js {
		out.Windows = append(out.Windows, edgeWindow(p.Spec.EdgeActions, j))
	}
	return out
}

func edgeWindow(spec []edge.Action, j edge.Journal) EdgeWindow {
	w := EdgeWindow{Start: j.Start.UTC(), CapturedAt: j.CapturedAt.UTC(), Phase: j.Phase, AbandonedBy: j.AbandonedBy, Actions: []EdgeAction{}}
	if t := j.RestoringSince; t != nil {
		u := t.UTC()
		w.RestoringSince = &u
	}
	index := map[edge.Name]int{}
	add := func(name edge.Name, params []Parameter) int {
		if i, ok := index[name]; ok {
			return i
		}
		title := string(name)
		if d, ok := edge.Lookup(name); ok {
			title = d.Title
		}
		index[name] = len(w.Actions)
		w.Actions = append(w.Actions, EdgeAction{Name: name, Title: title, Parameters: params, Participants: []EdgeParticipant{}})
		return index[name]
	}
	for _, a := range spec {
		add(a.Name, edgeParameters(a))
	}
	for _, e := range j.Entries {
		i := add(e.Action, edgeParameters(edge.Action{Name: e.Action, Overwrite: e.Overwrite, Force: e.Force}))
		w.Actions[i].Participants = append(w.Actions[i].Participants, edgeParticipant(e))
	}
	return w
}

func edgeParameters(a edge.Action) []Parameter {
	out := []Parameter{}
	if a.Force {
		out = append(out, Parameter{Name: "force", Value: "true"})
	}
	if a.Overwrite {
		out = append(out, Parameter{Name: "overwrite", Value: "true"})
	}
	if a.Replicas != nil {
		out = append(out, Parameter{Name: "replicas", Value: strconv.Itoa(int(*a.Replicas))})
	}
	return out
}

// edgeParticipant reads an entry's two outcomes from its state and, for a
// skipped one, its Skip code (never from its reason's text).
func edgeParticipant(e edge.Entry) EdgeParticipant {
	p := EdgeParticipant{Target: e.Target, Subresource: e.Subresource, Pointer: e.Pointer,
		Captured: e.Captured.String(), Applied: e.Desired.String(), Attempts: e.Attempts, LastError: e.LastError,
		Start: EdgeStep{Outcome: EdgeApplied}, Restore: EdgeStep{Outcome: EdgePending}}
	switch e.State {
	case edge.Pending:
		p.Start.Outcome = EdgePending
	case edge.Restored:
		p.Restore.Outcome = EdgeRestored
	case edge.Failed:
		p.Restore = EdgeStep{Outcome: EdgeFailed, Reason: e.Reason}
	case edge.Skipped:
		restore := map[edge.Skip]EdgeOutcome{edge.SkipMissing: EdgeMissing, edge.SkipReplaced: EdgeReplaced,
			edge.SkipChanged: EdgeKept, edge.SkipAbandoned: EdgeAbandoned, edge.SkipNotLanded: EdgeNotNeeded}
		switch o, ok := restore[e.Skip]; {
		case ok:
			p.Restore = EdgeStep{Outcome: o, Reason: e.Reason}
			if e.Skip == edge.SkipNotLanded {
				p.Start.Outcome = EdgeNotLanded
			}
		default: // SkipStart
			p.Start = EdgeStep{Outcome: EdgeStartSkipped, Reason: e.Reason}
			p.Restore.Outcome = EdgeNotNeeded
		}
	}
	return p
}

// edgeCounts counts a section's participants by their last outcome, for
// its headline.
type edgeCounts struct {
	participants, applied, skipped, restored, kept, notRestored, failed, abandoned, pending int
}

func countEdge(a *EdgeActions) edgeCounts {
	var c edgeCounts
	for _, w := range a.Windows {
		for _, act := range w.Actions {
			for _, p := range act.Participants {
				c.participants++
				switch p.Start.Outcome {
				case EdgeApplied:
					c.applied++
				case EdgeStartSkipped:
					c.skipped++
				}
				switch p.Restore.Outcome {
				case EdgeRestored:
					c.restored++
				case EdgeKept:
					c.kept++
				case EdgeMissing, EdgeReplaced:
					c.notRestored++
				case EdgeFailed:
					c.failed++
				case EdgeAbandoned:
					c.abandoned++
				case EdgePending:
					c.pending++
				}
			}
		}
	}
	return c
}

// edgeSentence is the section's headline, for people.
func edgeSentence(a *EdgeActions) string {
	if len(a.Windows) == 0 {
		return "The plan has edge actions; none started during this run."
	}
	c := countEdge(a)
	s := plural(int64(len(a.Windows)), "window", "windows") + ", " + plural(int64(c.participants), "participant", "participants") +
		": " + strconv.Itoa(c.applied) + " changed at the start, " + strconv.Itoa(c.skipped) + " left alone; " +
		strconv.Itoa(c.restored) + " restored"
	for _, part := range []struct {
		n    int
		what string
	}{{c.kept, "kept as changed during the window"}, {c.notRestored, "missing or replaced at the end"},
		{c.failed, "failed"}, {c.abandoned, "abandoned"}, {c.pending, "pending"}} {
		if part.n > 0 {
			s += ", " + strconv.Itoa(part.n) + " " + part.what
		}
	}
	s += "."
	if a.Dropped > 0 {
		s += " " + plural(int64(a.Dropped), "earlier window of the run is", "earlier windows of the run are") + " no longer kept: not shown."
	}
	return s
}

// edgeWindowLine is a window's heading, for people.
func edgeWindowLine(w EdgeWindow) string {
	s := "Window from " + fmtTime(w.Start) + " · captured " + fmtTime(w.CapturedAt)
	if w.RestoringSince != nil {
		s += " · restore began " + fmtTime(*w.RestoringSince)
	}
	s += " · " + strings.ToLower(string(w.Phase))
	if w.AbandonedBy != "" {
		s += " · failed restores abandoned by " + w.AbandonedBy
	}
	return s
}

// edgeRow is one participant, for people: action, object, UID, value,
// captured, applied, start, restore.
type edgeRow [8]string

func edgeRows(w EdgeWindow) []edgeRow {
	var out []edgeRow
	for _, a := range w.Actions {
		name := a.Title
		if len(a.Parameters) > 0 {
			name += " (" + paramsLabel(a.Parameters) + ")"
		}
		if len(a.Participants) == 0 {
			out = append(out, edgeRow{name, "no participant", "—", "—", "—", "—", "—", "—"})
			continue
		}
		for _, p := range a.Participants {
			value := p.Pointer
			if p.Subresource != "" {
				value += " (" + p.Subresource + ")"
			}
			start := stepLabel(p.Start)
			if p.LastError != "" && (p.Start.Outcome == EdgePending || p.Restore.Outcome == EdgePending) {
				start += " (last error: " + p.LastError + ")"
			}
			out = append(out, edgeRow{name, p.Target.String(), string(p.Target.UID), value, p.Captured, p.Applied, start, stepLabel(p.Restore)})
		}
	}
	return out
}

// stepLabels say the outcomes for people.
var stepLabels = map[EdgeOutcome]string{
	EdgeStartSkipped: "left alone", EdgeNotLanded: "not landed", EdgeNotNeeded: "nothing to restore",
	EdgeMissing: "not restored (missing)", EdgeReplaced: "not restored (replaced)", EdgeKept: "kept (changed during the window)",
}

func stepLabel(s EdgeStep) string {
	l := stepLabels[s.Outcome]
	if l == "" {
		l = string(s.Outcome)
	}
	if s.Reason != "" {
		l += ": " + s.Reason
	}
	return l
}

func (m *mdWriter) edgeActions(r Report) {
	a := r.EdgeActions
	if a == nil {
		return
	}
	m.section("Edge actions")
	m.text(edgeSentence(a))
	m.line("")
	for _, w := range a.Windows {
		m.line("")
		m.raw("### ")
		m.text(edgeWindowLine(w))
		m.line("")
		m.line("")
		m.table("Action", "Object", "UID", "Value", "Captured", "Applied", "Start", "Restore")
		for _, row := range edgeRows(w) {
			m.row(row[:]...)
		}
	}
}
