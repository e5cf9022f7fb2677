package violations

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Page sizes of the feed (R-V2).
const (
	// DefaultLimit is the page size when the query gives none.
	DefaultLimit = 50
	// MaxLimit is the largest page; a larger limit is lowered to it.
	MaxLimit = 200
)

// cursorVersion starts every cursor this package writes.
const cursorVersion = "c1"

// Query selects a page of the feed.
type Query struct {
	// Plan keeps the violations of this plan ID; empty keeps every plan.
	Plan string
	// Namespaces keeps the violations of resources in these namespaces
	// (the namespaces the plan's scope resolves to); empty keeps all. A
	// cluster-scoped resource counts as being in its policy's namespace.
	Namespaces []string
	// Results keeps these results; empty keeps all.
	Results []Result
	// Limit is the page size: DefaultLimit when 0 or less, MaxLimit when
	// larger than MaxLimit. A too large limit is lowered rather than
	// refused, as the feed is a view: the caller learns the page size
	// from the page.
	Limit int
	// Cursor is the NextCursor of the previous page; empty for the first.
	Cursor string
}

// Page is one page of the feed.
type Page struct {
	// Items are newest first (by Timestamp, then by Key).
	Items []Violation `json:"items"`
	// NextCursor fetches the next page; empty on the last one.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Feed returns the page q asks for of vs: the violations of q's plan, in
// its namespaces, with its results, newest first (R-V2). Records with the
// same Key are merged first, so the feed of a ledger's violations plus
// freshly read events shows each decision once. vs is not changed.
//
// The cursor is opaque: it holds the position (Timestamp, Key) of the last
// item returned, and the next page starts strictly after it. Violations
// that arrive between two pages are newer, so they sort before the cursor
// and never shift a page: paging neither repeats nor skips an item. (A
// record whose Timestamp moves, an event whose count grew, moves to its
// new place; it may then show on two pages or on none.) A cursor that this
// package did not write is a *CursorError (400).
func Feed(vs []Violation, q Query) (Page, error) {
	after, hasCursor, err := decodeCursor(q.Cursor)
	if err != nil {
		return Page{}, err
	}
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	all := dedupe(vs)
	items := make([]Violation, 0, min(limit, len(all)))
	for _, v := range all {
		if !q.keeps(v) || (hasCursor && newerFirst(v, after) <= 0) {
			continue
		}
		if len(items) == limit {
			last := items[len(items)-1]
			return Page{Items: items, NextCursor: encodeCursor(last)}, nil
		}
		items = append(items, v)
	}
	return Page{Items: items}, nil
}

// keeps says whether v passes q's filters.
func (q Query) keeps(v Violation) bool {
	if q.Plan != "" && v.Plan != q.Plan {
		return false
	}
	if len(q.Namespaces) > 0 {
		ns := v.Resource.Namespace
		if ns == "" {
			ns = v.PolicyNamespace
		}
		if !slices.Contains(q.Namespaces, ns) {
			return false
		}
	}
	return len(q.Results) == 0 || slices.Contains(q.Results, v.Result)
}

// encodeCursor writes the position of v: "c1:<unix seconds>.<nanos>:<key>",
// base64url without padding.
func encodeCursor(v Violation) string {
	t := v.Timestamp.UTC()
	raw := cursorVersion + ":" + strconv.FormatInt(t.Unix(), 10) + "." + strconv.Itoa(t.Nanosecond()) + ":" + v.Key
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor reads a cursor back into a position (a Violation with only
// Timestamp and Key set).
func decodeCursor(c string) (Violation, bool, error) {
	if c == "" {
		return Violation{}, false, nil
	}
	bad := func(reason string) (Violation, bool, error) {
		return Violation{}, false, &CursorError{Cursor: c, Reason: reason}
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return bad("not base64url")
	}
	parts := strings.SplitN(string(raw), ":", 3)
	if len(parts) != 3 || parts[0] != cursorVersion {
		return bad("not a cursor of this feed")
	}
	secs, nanos, ok := strings.Cut(parts[1], ".")
	if !ok {
		return bad("no position")
	}
	s, err1 := strconv.ParseInt(secs, 10, 64)
	n, err2 := strconv.ParseInt(nanos, 10, 32)
	if err1 != nil || err2 != nil || n < 0 || n >= int64(time.Second) {
		return bad("position out of range")
	}
	if parts[2] == "" {
		return bad("no key")
	}
	return Violation{Timestamp: time.Unix(s, n).UTC(), Key: parts[2]}, true, nil
}
