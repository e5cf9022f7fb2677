package reconcile

import (
	"fmt"
	"slices"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
)

// MaxEdgeHistory is how many finished edge journals EdgeHistory keeps per
// plan: the windows of one run, the oldest dropped first (and counted).
// A journal is at most edge.DefaultMaxJournalBytes, usually a few KiB.
const MaxEdgeHistory = 16

// EdgeHistory is a plan's edge journals that finished during its current
// run, as the embedder keeps them on its own storage (next to the ledger)
// for the final report: a journal's Secret is deleted once its restores
// are done, which can be before the report is written, and a window of a
// recurring plan ends long before its run does. Keep a journal before
// deleting its Secret, so that a crash between the two loses nothing.
type EdgeHistory struct {
	// Journals are the finished journals, oldest first.
	Journals []edge.Journal `json:"journals"`
	// Dropped counts journals of the run dropped beyond MaxEdgeHistory.
	Dropped int `json:"dropped,omitempty"`
}

// Keep returns h with finished (EdgeOutput.Decision.Finished) added, once
// however often it is kept again (a pass repeated after a crash), and
// without the journals of another plan (UID) or of an earlier run of p
// (captured before its Status.StartedAt): those reported already.
func (h EdgeHistory) Keep(p *plan.ProtectionPlan, finished edge.Journal) EdgeHistory {
	out := EdgeHistory{Dropped: h.Dropped}
	for i, j := range append(slices.Clone(h.Journals), finished) {
		if j.Plan.UID != p.UID || (p.Status.StartedAt != nil && j.CapturedAt.Before(p.Status.StartedAt.Time)) {
			if i < len(h.Journals) {
				out.Dropped = 0 // what was kept is another run's: so is its count
			}
			continue
		}
		if k := slices.IndexFunc(out.Journals, func(k edge.Journal) bool { return sameJournal(k, j) }); k >= 0 {
			out.Journals[k] = j // the later copy: as it ended
			continue
		}
		out.Journals = append(out.Journals, j)
	}
	slices.SortStableFunc(out.Journals, func(a, b edge.Journal) int { return a.CapturedAt.Compare(b.CapturedAt) })
	if over := len(out.Journals) - MaxEdgeHistory; over > 0 {
		out.Journals = out.Journals[over:]
		out.Dropped += over
	}
	return out
}

// sameJournal: one window's journal (its start and its capture).
func sameJournal(a, b edge.Journal) bool {
	return a.Start.Equal(b.Start) && a.CapturedAt.Equal(b.CapturedAt)
}

// FinalEdge is what the embedder knows of a plan's edge journals when its
// final report is due.
type FinalEdge struct {
	// Journal is the journal its Secret holds (edge.JournalOf), nil when
	// there is none; JournalErr is why it could not be read.
	Journal    *edge.Journal
	JournalErr error
	// History is the finished journals the embedder kept (EdgeHistory.Keep).
	History EdgeHistory
}

// journals are every journal the report lists: the kept ones and the
// current one (a Done journal whose Secret a crash kept, say).
func (e FinalEdge) journals() []edge.Journal {
	out := slices.Clone(e.History.Journals)
	if e.Journal != nil {
		out = append(out, *e.Journal)
	}
	return out
}

// Waiting says why the final report f waits, "" when it can be written.
// It lists every restore with its outcome, so it is written only once the
// plan's edge journal is done (or there is none): not while restores are
// pending, failed (the plan's EdgeActions condition says so; resolve the
// conflict or abandon them with AnnotationEdgeAbandon, and the report
// says which were abandoned), or the journal cannot be read (repair or
// abandon it).
func (f *Final) Waiting(e FinalEdge) string {
	j := e.Journal
	switch {
	case e.JournalErr != nil:
		return fmt.Sprintf("the edge journal cannot be read (%v): repair or abandon it (annotation %s)", e.JournalErr, AnnotationEdgeAbandon)
	case j == nil || !j.RestoresPending():
		return ""
	case anyState(j, edge.Failed):
		return fmt.Sprintf("%d edge restores failed: resolve them or abandon them (annotation %s)", count(j, edge.Failed), AnnotationEdgeAbandon)
	}
	pending := 0
	for _, en := range j.Entries {
		if en.State == edge.Pending || en.State == edge.Applied {
			pending++
		}
	}
	return fmt.Sprintf("%d of %d edge participants are still to restore", pending, len(j.Entries))
}

// EdgePendingError is a final report asked for while its edge restores
// are not done (Final.Waiting): 409, written by a later pass.
type EdgePendingError struct{ Reason string }

func (e *EdgePendingError) Error() string { return "the final report waits: " + e.Reason }

// HTTPCode is 409: the plan's state, not the request, is in the way.
func (e *EdgePendingError) HTTPCode() int { return 409 }
