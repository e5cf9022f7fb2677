package violations

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"
)

// keyVersion is mixed into every key, so that a change of what keys are
// made of never merges old and new keys by accident.
const keyVersion = "k1"

// makeKey hashes the parts that identify one decision into an opaque key
// (32 hex digits, 128 bits).
func makeKey(parts ...string) string {
	h := sha256.New()
	h.Write([]byte(keyVersion))
	for _, p := range parts {
		// Length-prefixed, so that no two part lists hash alike.
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// timeKey writes an instant exactly, whatever its zone.
func timeKey(t time.Time) string {
	return strconv.FormatInt(t.Unix(), 10) + "." + strconv.Itoa(t.Nanosecond())
}

// writable reports whether a ledger can record t: its JSON form writes
// times in UTC, in the years 0000 to 9999 only. The readers refuse other
// times (an event or a report result can carry any), so that one bad
// object cannot make a plan's ledger impossible to save.
func writable(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// newerFirst orders violations newest first: by Timestamp, latest first,
// then by Key. It is the order of the feed and of the ledger.
func newerFirst(a, b Violation) int {
	if c := b.Timestamp.Compare(a.Timestamp); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// sortNewestFirst sorts vs in place, newest first.
func sortNewestFirst(vs []Violation) {
	slices.SortFunc(vs, newerFirst)
}

// normalize puts a violation in the canonical form merging and JSON rely
// on: times in UTC without a monotonic reading, Count at least 1, FirstSeen
// set and not after Timestamp, and a Key (a record made by hand without
// one is keyed by its content and first time).
func normalize(v Violation) Violation {
	v.Timestamp = v.Timestamp.UTC()
	v.FirstSeen = v.FirstSeen.UTC()
	if v.FirstSeen.IsZero() || v.FirstSeen.After(v.Timestamp) {
		v.FirstSeen = v.Timestamp
	}
	if v.Count < 1 {
		v.Count = 1
	}
	if v.Key == "" {
		r := v.Resource
		v.Key = makeKey("content", string(v.Source), v.Plan, v.Template, v.PolicyNamespace, v.Policy, v.Rule,
			r.APIVersion, r.Kind, r.Namespace, r.Name, r.Subresource, string(v.Result), strconv.FormatBool(v.Blocked),
			v.Message, timeKey(v.FirstSeen))
	}
	return v
}

// join merges two records of the same decision (same Key). It is
// commutative, associative and idempotent, so that the order in which
// records meet never matters:
//
//   - Count is the larger, Timestamp the later, FirstSeen the earlier
//     (of those set);
//   - every other field comes from the record with the later Timestamp,
//     and on a tie from the greater one by describes (a fixed order of
//     the descriptive fields, which prefers a blocked record and the
//     longer message).
//
// Both records must be normalized.
func join(a, b Violation) Violation {
	out := a
	if c := a.Timestamp.Compare(b.Timestamp); c < 0 || (c == 0 && describes(b, a) > 0) {
		out = b
	}
	out.Count = max(a.Count, b.Count)
	out.FirstSeen = earliest(a.FirstSeen, b.FirstSeen)
	return out
}

// earliest is the earlier of two first times. A zero one is a record with
// no time at all (normalize sets FirstSeen to Timestamp), and says
// nothing: were it the earlier, the joined record would have a Timestamp
// but no FirstSeen, which normalize would set again on the next merge, and
// merging the same batch twice would not be merging it once.
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero(), !b.Before(a):
		return a
	}
	return b
}

// describes is a total order on the descriptive fields of two records
// (everything but Key, Count and the times). The greater record is the
// more informative: blocked before admitted, a longer message before a
// shorter one (Kyverno cuts messages at 1,024 bytes), then plain field
// order.
func describes(a, b Violation) int {
	return cmp.Or(
		cmpBool(a.Blocked, b.Blocked),
		cmp.Compare(len(a.Message), len(b.Message)),
		strings.Compare(a.Message, b.Message),
		strings.Compare(string(a.Result), string(b.Result)),
		strings.Compare(string(a.Source), string(b.Source)),
		strings.Compare(a.Plan, b.Plan),
		strings.Compare(a.Template, b.Template),
		strings.Compare(a.PolicyNamespace, b.PolicyNamespace),
		strings.Compare(a.Policy, b.Policy),
		strings.Compare(a.Rule, b.Rule),
		strings.Compare(a.Resource.APIVersion, b.Resource.APIVersion),
		strings.Compare(a.Resource.Kind, b.Resource.Kind),
		strings.Compare(a.Resource.Namespace, b.Resource.Namespace),
		strings.Compare(a.Resource.Name, b.Resource.Name),
		strings.Compare(a.Resource.Subresource, b.Resource.Subresource),
	)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// dedupe joins the records of each key of vs (normalized first) and
// returns one record per key, newest first. vs is not changed.
func dedupe(vs []Violation) []Violation {
	byKey := make(map[string]int, len(vs))
	recs := make([]Violation, 0, len(vs))
	for _, v := range vs {
		v = normalize(v)
		if i, ok := byKey[v.Key]; ok {
			recs[i] = join(recs[i], v)
			continue
		}
		byKey[v.Key] = len(recs)
		recs = append(recs, v)
	}
	// Sort pointers, not the records: a Violation is a few hundred bytes.
	ptrs := make([]*Violation, len(recs))
	for i := range recs {
		ptrs[i] = &recs[i]
	}
	slices.SortFunc(ptrs, func(a, b *Violation) int {
		if c := b.Timestamp.Compare(a.Timestamp); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	out := make([]Violation, len(ptrs))
	for i, p := range ptrs {
		out[i] = *p
	}
	return out
}
