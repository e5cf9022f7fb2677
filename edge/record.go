package edge

import "fmt"

// Outcome is how the API server answered a Patch.
type Outcome string

// Outcomes, as the embedder classifies the API server's answer.
const (
	// Succeeded: the write was accepted.
	Succeeded Outcome = "Succeeded"
	// NotFound: the object is gone (404).
	NotFound Outcome = "NotFound"
	// Conflict: a precondition failed (409: the uid or resourceVersion
	// changed); the next pass decides again from a fresh read.
	Conflict Outcome = "Conflict"
	// OwnershipConflict: server-side apply found the field owned by
	// another manager (409 with conflict causes); not forced unless the
	// action says Force.
	OwnershipConflict Outcome = "OwnershipConflict"
	// Refused: admission refused the write (another plan's freeze, say).
	Refused Outcome = "Refused"
	// Errored: anything else (a timeout, 5xx); retried next pass.
	Errored Outcome = "Errored"
)

// Result is the answer to one Patch.
type Result struct {
	// Entry is the Patch's Entry.
	Entry   int
	Outcome Outcome
	// Message is the API server's message.
	Message string
	// Field and Manager name the field and its owner of an
	// OwnershipConflict.
	Field, Manager string
}

func (r Result) describe() string {
	if r.Outcome == OwnershipConflict && (r.Field != "" || r.Manager != "") {
		return fmt.Sprintf("field %s is owned by field manager %q (not forced)", r.Field, r.Manager)
	}
	if r.Message == "" {
		return string(r.Outcome)
	}
	return string(r.Outcome) + ": " + r.Message
}

// Record returns j with the results of the patches a Decision sent. The
// embedder persists it (or, when its Phase is Done, may delete it after
// reporting). A start refused or in conflict leaves the object untouched
// and is skipped; a restore in an ownership conflict fails and keeps the
// journal; anything else is retried at the next pass.
func Record(j Journal, results []Result) Journal {
	j = cloneJournal(j)
	restoring := j.Phase == Restoring
	for _, r := range results {
		if r.Entry < 0 || r.Entry >= len(j.Entries) {
			continue
		}
		e := &j.Entries[r.Entry]
		e.Attempts++
		switch {
		case r.Outcome == Succeeded && restoring:
			e.State, e.LastError = Restored, ""
		case r.Outcome == Succeeded:
			e.State, e.LastError = Applied, ""
		case r.Outcome == NotFound && restoring:
			e.State, e.Reason, e.Skip = Skipped, "missing at the end: nothing restored", SkipMissing
		case r.Outcome == NotFound:
			e.State, e.Reason, e.Skip = Skipped, "missing before the start's patch", SkipStart
		case r.Outcome == OwnershipConflict && restoring:
			e.State, e.Reason = Failed, "restore failed: "+r.describe()
		case !restoring && (r.Outcome == OwnershipConflict || r.Outcome == Refused || r.Outcome == Conflict):
			// Nothing was written, so nothing is restored at the end.
			e.State, e.Reason, e.Skip = Skipped, "not changed at the start: "+r.describe(), SkipStart
		default:
			e.LastError = r.describe()
		}
	}
	switch {
	case j.Phase == Starting && !hasState(j, Pending):
		j.Phase = Started
	case restoring && settled(j) && !failed(j):
		j.Phase = Done
	}
	return j
}

func hasState(j Journal, s State) bool {
	for _, e := range j.Entries {
		if e.State == s {
			return true
		}
	}
	return false
}

// Abandon gives up j's failed restores, explicitly, in the name of by: they
// are skipped with the reason, and the journal is Done when nothing else
// is pending. The plan's deletion is no longer blocked by them.
func Abandon(j Journal, by string) Journal {
	j = cloneJournal(j)
	for i := range j.Entries {
		if e := &j.Entries[i]; e.State == Failed {
			e.State, e.Reason, e.Skip = Skipped, fmt.Sprintf("abandoned by %s after: %s", by, e.Reason), SkipAbandoned
		}
	}
	j.AbandonedBy = by
	if j.Phase == Restoring && settled(j) {
		j.Phase = Done
	}
	return j
}

// RestoresPending reports whether j still holds restores to do or failures to
// resolve: while it does, the plan keeps its finalizer and its spec edits
// are refused (seed 004: "Spec edits are rejected while the restoration
// finalizer is present").
func (j *Journal) RestoresPending() bool {
	return j != nil && j.Phase != Done
}
