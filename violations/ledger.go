package violations

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
)

// LedgerVersion is the version of the ledger's JSON form that this package
// reads and writes.
const LedgerVersion = 1

// DefaultLedgerLimit is how many violations a ledger keeps by default
// (R-V3).
const DefaultLedgerLimit = 5000

// Ledger is the record of one plan's violations over its whole run (R-V3).
// Kubernetes keeps events for an hour; the operator reads them every
// checkpoint (15 minutes by default) and merges what it read into the
// plan's ledger, and the report is built from the ledger.
//
// A Ledger is a value: Merge returns a new one and changes neither its
// receiver nor its argument. Merging is:
//
//   - deduplicating: records with the same Key (the same event read again,
//     an event whose count grew, the two events of one audited decision)
//     are one violation, with the largest Count, the latest Timestamp and
//     the earliest FirstSeen;
//   - idempotent: merging the same batch again changes nothing;
//   - order independent: merging a then b gives the same ledger, byte for
//     byte once marshalled, as b then a (see Merge for the one condition
//     once the ledger is full);
//   - capped: at most Limit violations are kept, the newest (by
//     Timestamp, then Key). The others are dropped, Truncated is set and
//     Dropped counts them. The ledger remembers a 64-bit hash of each
//     dropped key, so that a dropped event read again is not counted again
//     (its JSON grows by about 11 bytes per dropped violation).
type Ledger struct {
	// Version is LedgerVersion.
	Version int
	// Plan is the plan ID; Merge keeps only this plan's violations.
	Plan string
	// Limit is how many violations are kept; 0 means DefaultLedgerLimit.
	Limit int
	// Violations are the violations kept, newest first.
	Violations []Violation
	// Truncated says that violations were dropped to keep within Limit.
	Truncated bool
	// Dropped is how many distinct violations were dropped.
	Dropped int64

	// dropped holds the sorted, distinct 64-bit hashes of the keys of the
	// violations dropped.
	dropped []uint64
}

// LedgerOption sets an optional setting of a new ledger.
type LedgerOption func(*Ledger)

// WithLimit sets how many violations the ledger keeps (DefaultLedgerLimit
// when n is 0 or less).
func WithLimit(n int) LedgerOption {
	return func(l *Ledger) {
		if n > 0 {
			l.Limit = n
		}
	}
}

// NewLedger returns the empty ledger of the plan whose ID is planID.
func NewLedger(planID string, opts ...LedgerOption) Ledger {
	l := Ledger{Version: LedgerVersion, Plan: planID, Violations: []Violation{}}
	for _, o := range opts {
		o(&l)
	}
	return l
}

// limit is the effective limit.
func (l Ledger) limit() int {
	if l.Limit > 0 {
		return l.Limit
	}
	return DefaultLedgerLimit
}

// Merge returns the ledger with vs merged in. Violations of other plans
// are ignored, so that one batch read from the cluster can be merged into
// each plan's ledger.
//
// General approach: join every record of l and vs by Key, sort newest
// first, keep the first Limit and add the keys of the rest to the dropped
// set (taking out the keys kept, as a dropped violation can come back with
// a newer Timestamp). Without dropping, the result is the join of all the
// records ever merged, whatever the order. Once violations are dropped,
// order independence holds as long as a newer record of a decision is
// also at least as large in Count and no later in FirstSeen than an older
// one, which is how Kubernetes events and Kyverno reports change: a
// dropped record's content is gone, and only its key is remembered.
func (l Ledger) Merge(vs []Violation) Ledger {
	recs := make([]Violation, 0, len(l.Violations)+len(vs))
	recs = append(recs, l.Violations...)
	for _, v := range vs {
		if v.Plan == l.Plan {
			recs = append(recs, v)
		}
	}
	all := dedupe(recs)
	kept, evicted := all, []Violation(nil)
	if n := l.limit(); len(all) > n {
		kept, evicted = slices.Clip(all[:n]), all[n:]
	}
	dropped := l.dropped
	if len(evicted) > 0 {
		dropped = union(dropped, keyHashes(evicted))
	}
	if len(dropped) > 0 {
		dropped = difference(dropped, keyHashes(kept))
	}
	return Ledger{
		Version:    LedgerVersion,
		Plan:       l.Plan,
		Limit:      l.Limit,
		Violations: kept,
		Truncated:  len(dropped) > 0,
		Dropped:    int64(len(dropped)),
		dropped:    dropped,
	}
}

// keyHashes returns the sorted, distinct hashes of the keys of vs.
func keyHashes(vs []Violation) []uint64 {
	hs := make([]uint64, len(vs))
	for i, v := range vs {
		hs[i] = keyHash(v.Key)
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// keyHash is the FNV-1a hash of a key.
func keyHash(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return h.Sum64()
}

// union returns the sorted union of two sorted sets, as a new slice.
func union(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// difference returns the sorted set a minus b, as a new slice.
func difference(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a))
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

// ledgerJSON is the JSON form of a Ledger, version 1.
type ledgerJSON struct {
	Version    int         `json:"version"`
	Plan       string      `json:"plan"`
	Limit      int         `json:"limit,omitempty"`
	Truncated  bool        `json:"truncated"`
	Dropped    int64       `json:"dropped"`
	Violations []Violation `json:"violations"`
	// DroppedKeys is the dropped set: big-endian uint64 hashes, sorted,
	// concatenated, in standard base64.
	DroppedKeys string `json:"droppedKeys,omitempty"`
}

// MarshalJSON writes the ledger as versioned JSON:
//
//	{"version":1,"plan":"...","limit":...,"truncated":false,"dropped":0,
//	 "violations":[...],"droppedKeys":"..."}
func (l Ledger) MarshalJSON() ([]byte, error) {
	vs := l.Violations
	if vs == nil {
		vs = []Violation{}
	}
	var keys string
	if len(l.dropped) > 0 {
		buf := make([]byte, 0, 8*len(l.dropped))
		for _, h := range l.dropped {
			buf = binary.BigEndian.AppendUint64(buf, h)
		}
		keys = base64.StdEncoding.EncodeToString(buf)
	}
	return json.Marshal(ledgerJSON{
		Version: LedgerVersion, Plan: l.Plan, Limit: l.Limit,
		Truncated: l.Truncated, Dropped: l.Dropped,
		Violations: vs, DroppedKeys: keys,
	})
}

// UnmarshalJSON reads what MarshalJSON writes; see DecodeLedger.
func (l *Ledger) UnmarshalJSON(data []byte) error {
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return &DecodeError{Reason: "malformed", Err: err}
	}
	if probe.Version != LedgerVersion {
		return &VersionError{Version: probe.Version, Supported: LedgerVersion}
	}
	var j ledgerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return &DecodeError{Reason: "malformed", Err: err}
	}
	raw, err := base64.StdEncoding.DecodeString(j.DroppedKeys)
	if err != nil || len(raw)%8 != 0 {
		return &DecodeError{Reason: "droppedKeys is not a list of 64-bit hashes", Err: err}
	}
	dropped := make([]uint64, 0, len(raw)/8)
	for i := 0; i < len(raw); i += 8 {
		h := binary.BigEndian.Uint64(raw[i:])
		if len(dropped) > 0 && h <= dropped[len(dropped)-1] {
			return &DecodeError{Reason: "droppedKeys is not sorted and distinct"}
		}
		dropped = append(dropped, h)
	}
	if j.Dropped != int64(len(dropped)) || j.Truncated != (len(dropped) > 0) {
		return &DecodeError{Reason: "dropped and truncated disagree with droppedKeys"}
	}
	if j.Limit < 0 {
		return &DecodeError{Reason: "negative limit"}
	}
	for _, v := range j.Violations {
		if v.Key == "" {
			return &DecodeError{Reason: "a violation has no key"}
		}
		if !writable(v.Timestamp) || !writable(v.FirstSeen) {
			return &DecodeError{Reason: fmt.Sprintf("violation %q has a time outside the years 0000 to 9999 in UTC", v.Key)}
		}
	}
	*l = Ledger{
		Version: LedgerVersion, Plan: j.Plan, Limit: j.Limit,
		Violations: dedupe(j.Violations),
		Truncated:  j.Truncated, Dropped: j.Dropped,
		dropped: dropped,
	}
	return nil
}

// DecodeLedger reads a ledger written by MarshalJSON. A ledger of another
// version (a newer library wrote it) is a *VersionError; malformed or
// self-contradicting JSON is a *DecodeError. Both are 400.
func DecodeLedger(data []byte) (Ledger, error) {
	var l Ledger
	if err := l.UnmarshalJSON(data); err != nil {
		return Ledger{}, err
	}
	return l, nil
}
