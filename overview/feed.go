package overview

import "github.com/telark/protectionplans/violations"

// Feed is one page of a plan's violations feed (R-V2) as a portal shows
// it: the plan's ledger as of now merged with the live events, newest
// first, and what the stored ledger holds.
type Feed struct {
	Items      []violations.Violation `json:"items"`
	NextCursor string                 `json:"nextCursor,omitempty"`
	Ledger     LedgerState            `json:"ledger"`
}

// LedgerState says what the checkpointed part of a feed holds: how many
// violations, and whether (and how many) older ones were dropped.
type LedgerState struct {
	Violations int   `json:"violations"`
	Truncated  bool  `json:"truncated"`
	Dropped    int64 `json:"dropped"`
}

// FeedOf is page of the feed whose stored ledger is stored. Items is
// never nil.
func FeedOf(page violations.Page, stored violations.Ledger) Feed {
	if page.Items == nil {
		page.Items = []violations.Violation{}
	}
	return Feed{Items: page.Items, NextCursor: page.NextCursor,
		Ledger: LedgerState{Violations: len(stored.Violations), Truncated: stored.Truncated, Dropped: stored.Dropped}}
}
