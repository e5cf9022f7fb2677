package violations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/plan"
)

// history generates the records a checkpointer could read: for each of
// nKeys decisions, a chain of versions as Kubernetes changes an event (the
// same FirstSeen and description, a later Timestamp with a Count at least
// as large), cut into batches at random and with re-reads.
type history struct {
	r *rand.Rand
}

func (h history) description(i int) Violation {
	r := h.r
	return Violation{
		Key:             fmt.Sprintf("key-%04d", i),
		Plan:            "summer-freeze",
		Template:        []string{"scaling", "image-change", "delete"}[r.IntN(3)],
		Policy:          "summer-freeze-scaling",
		PolicyNamespace: []string{"shop", "search"}[r.IntN(2)],
		Rule:            "replicas",
		Resource:        Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: fmt.Sprintf("web-%d", r.IntN(50))},
		Result:          ResultFail,
		Blocked:         r.IntN(2) == 0,
		Message:         "would be blocked by protection plan Summer freeze: scaling",
		Source:          SourceEvent,
	}
}

// versions returns a chain of 1 to 4 versions of decision i.
func (h history) versions(i int) []Violation {
	r := h.r
	base := h.description(i)
	// Few distinct seconds, so that Timestamps tie and the Key decides.
	first := t0.Add(time.Duration(r.IntN(200)) * time.Second)
	ts, count := first, int32(1)
	var out []Violation
	for range 1 + r.IntN(4) {
		v := base
		v.FirstSeen, v.Timestamp, v.Count = first, ts, count
		out = append(out, v)
		ts = ts.Add(time.Duration(r.IntN(3)) * time.Second)
		count += int32(r.IntN(3))
	}
	return out
}

// batches spreads the versions of nKeys decisions over n batches, each
// version in one or more of them (events are read again).
func (h history) batches(nKeys, n int) [][]Violation {
	out := make([][]Violation, n)
	for i := range nKeys {
		for _, v := range h.versions(i) {
			for range 1 + h.r.IntN(2) {
				b := h.r.IntN(n)
				out[b] = append(out[b], v)
			}
		}
	}
	for _, b := range out {
		h.r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
	}
	return out
}

func marshal(t *testing.T, l Ledger) string {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fold(l Ledger, bs [][]Violation) Ledger {
	for _, b := range bs {
		l = l.Merge(b)
	}
	return l
}

// ideal is what a ledger of unbounded memory holds: every record joined by
// key, newest first, cut at limit.
func ideal(bs [][]Violation, limit int) ([]Violation, int) {
	all := dedupe(slices.Concat(bs...))
	if len(all) <= limit {
		return all, 0
	}
	return all[:limit], len(all) - limit
}

func TestLedger_MergeProperties(t *testing.T) {
	type run struct {
		seed  uint64
		r     *rand.Rand
		bs    [][]Violation
		empty Ledger
		ref   Ledger
		json  string
	}
	for _, limit := range []int{1, 7, 40, 1000} {
		var runs []run
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, uint64(limit)))
			bs := history{r}.batches(60, 5)
			empty := NewLedger("summer-freeze", WithLimit(limit))
			ref := fold(empty, bs)
			runs = append(runs, run{seed, r, bs, empty, ref, marshal(t, ref)})
		}
		t.Run(fmt.Sprintf("limit %d: the result is the newest of all records joined", limit), func(t *testing.T) {
			for _, x := range runs {
				wantVs, wantDropped := ideal(x.bs, limit)
				if diff := cmp.Diff(wantVs, x.ref.Violations); diff != "" {
					t.Fatalf("seed %d (-ideal +ledger):\n%s", x.seed, diff)
				}
				if x.ref.Dropped != int64(wantDropped) || x.ref.Truncated != (wantDropped > 0) {
					t.Fatalf("seed %d: Dropped, Truncated = %d, %v; want %d", x.seed, x.ref.Dropped, x.ref.Truncated, wantDropped)
				}
				if len(x.ref.Violations) > limit {
					t.Fatalf("seed %d: %d violations kept, limit %d", x.seed, len(x.ref.Violations), limit)
				}
			}
		})
		t.Run(fmt.Sprintf("limit %d: the order of the batches does not matter", limit), func(t *testing.T) {
			for _, x := range runs {
				for range 5 {
					sh := slices.Clone(x.bs)
					x.r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
					if got := marshal(t, fold(x.empty, sh)); got != x.json {
						t.Fatalf("seed %d: shuffled batches give another ledger:\n%s\nwant\n%s", x.seed, got, x.json)
					}
				}
				ab := x.empty.Merge(x.bs[0]).Merge(x.bs[1])
				ba := x.empty.Merge(x.bs[1]).Merge(x.bs[0])
				if marshal(t, ab) != marshal(t, ba) {
					t.Fatalf("seed %d: merge(merge(L,a),b) != merge(merge(L,b),a)", x.seed)
				}
			}
		})
		t.Run(fmt.Sprintf("limit %d: merging a batch again changes nothing", limit), func(t *testing.T) {
			for _, x := range runs {
				for i, b := range x.bs {
					if got := marshal(t, x.ref.Merge(b)); got != x.json {
						t.Fatalf("seed %d: merging batch %d again changed the ledger", x.seed, i)
					}
				}
				once := x.empty.Merge(x.bs[0])
				if marshal(t, once.Merge(x.bs[0])) != marshal(t, once) {
					t.Fatalf("seed %d: merge(merge(L,x),x) != merge(L,x)", x.seed)
				}
			}
		})
		t.Run(fmt.Sprintf("limit %d: the ledger survives JSON", limit), func(t *testing.T) {
			for _, x := range runs {
				back, err := DecodeLedger([]byte(x.json))
				if err != nil {
					t.Fatal(err)
				}
				if marshal(t, back) != x.json {
					t.Fatalf("seed %d: decode and marshal changed the ledger", x.seed)
				}
				if marshal(t, back.Merge(x.bs[2])) != marshal(t, x.ref.Merge(x.bs[2])) {
					t.Fatalf("seed %d: a decoded ledger merges differently", x.seed)
				}
			}
		})
	}
}

// TestLedger_UncappedMergeIsAJoin checks the properties on records that
// change in any way (not only as events do), while nothing is dropped.
func TestLedger_UncappedMergeIsAJoin(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 99))
		h := history{r}
		bs := make([][]Violation, 4)
		for i := range 30 {
			d := h.description(i)
			for range 1 + r.IntN(4) {
				v := h.description(r.IntN(1000)) // any description
				v.Key = d.Key
				v.FirstSeen = t0.Add(time.Duration(r.IntN(100)) * time.Second)
				v.Timestamp = v.FirstSeen.Add(time.Duration(r.IntN(100)) * time.Second)
				v.Count = int32(r.IntN(5))
				b := r.IntN(len(bs))
				bs[b] = append(bs[b], v)
			}
		}
		empty := NewLedger("summer-freeze")
		want := marshal(t, fold(empty, bs))
		for range 5 {
			r.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
			for _, b := range bs {
				r.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
			}
			l := fold(empty, bs)
			if got := marshal(t, l); got != want {
				t.Fatalf("seed %d: order changed the ledger", seed)
			}
			if got := marshal(t, fold(l, bs)); got != want {
				t.Fatalf("seed %d: merging everything again changed the ledger", seed)
			}
		}
	}
}

func TestLedger_MergeDoesNotChangeItsInputs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	bs := history{r}.batches(40, 2)
	l := NewLedger("summer-freeze", WithLimit(10)).Merge(bs[0])
	before := marshal(t, l)
	batch := slices.Clone(bs[1])
	_ = l.Merge(bs[1])
	if marshal(t, l) != before {
		t.Error("Merge changed its receiver")
	}
	if diff := cmp.Diff(batch, bs[1]); diff != "" {
		t.Errorf("Merge changed its argument:\n%s", diff)
	}
}

func TestLedger_Merge(t *testing.T) {
	v := func(key string, sec int, count int32) Violation {
		return Violation{Key: key, Plan: "summer-freeze", Policy: "p", Result: ResultFail, Source: SourceEvent,
			Timestamp: t0.Add(time.Duration(sec) * time.Second), FirstSeen: t0, Count: count}
	}
	tests := []struct {
		name        string
		limit       int
		batches     [][]Violation
		wantKeys    []string
		wantCounts  []int32
		wantDropped int64
	}{
		{
			name:     "violations of another plan are ignored",
			batches:  [][]Violation{{v("a", 1, 1), {Key: "b", Plan: "winter-freeze", Timestamp: t0}}},
			wantKeys: []string{"a"}, wantCounts: []int32{1},
		},
		{
			name:     "an event whose count grew is merged, keeping the larger count",
			batches:  [][]Violation{{v("a", 1, 1)}, {v("a", 5, 3)}, {v("a", 1, 1)}},
			wantKeys: []string{"a"}, wantCounts: []int32{3},
		},
		{
			name:     "over the limit the oldest are dropped and counted",
			limit:    2,
			batches:  [][]Violation{{v("a", 1, 1), v("b", 2, 1)}, {v("c", 3, 1)}, {v("a", 1, 1)}},
			wantKeys: []string{"c", "b"}, wantCounts: []int32{1, 1}, wantDropped: 1,
		},
		{
			name:     "a dropped violation seen again later comes back",
			limit:    2,
			batches:  [][]Violation{{v("a", 1, 1), v("b", 2, 1), v("c", 3, 1)}, {v("a", 9, 2)}},
			wantKeys: []string{"a", "c"}, wantCounts: []int32{2, 1}, wantDropped: 1,
		},
		{
			name:     "on a tie of timestamps the key decides",
			limit:    2,
			batches:  [][]Violation{{v("z", 1, 1), v("y", 1, 1), v("x", 1, 1)}},
			wantKeys: []string{"x", "y"}, wantCounts: []int32{1, 1}, wantDropped: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := fold(NewLedger("summer-freeze", WithLimit(tt.limit)), tt.batches)
			var keys []string
			var counts []int32
			for _, v := range l.Violations {
				keys, counts = append(keys, v.Key), append(counts, v.Count)
			}
			if !slices.Equal(keys, tt.wantKeys) || !slices.Equal(counts, tt.wantCounts) {
				t.Errorf("keys %v counts %v; want %v %v", keys, counts, tt.wantKeys, tt.wantCounts)
			}
			if l.Dropped != tt.wantDropped || l.Truncated != (tt.wantDropped > 0) {
				t.Errorf("Dropped, Truncated = %d, %v; want %d", l.Dropped, l.Truncated, tt.wantDropped)
			}
		})
	}
}

func TestLedger_JSON(t *testing.T) {
	l := NewLedger("summer-freeze", WithLimit(1)).Merge([]Violation{
		{Key: "a", Plan: "summer-freeze", Policy: "p", Result: ResultFail, Source: SourceEvent, Timestamp: t0},
		{Key: "b", Plan: "summer-freeze", Policy: "p", Result: ResultFail, Source: SourceEvent, Timestamp: t0.Add(time.Second)},
	})
	got := marshal(t, l)
	const want = `{"version":1,"plan":"summer-freeze","limit":1,"truncated":true,"dropped":1,"violations":[` +
		`{"key":"b","plan":"summer-freeze","policy":"p","resource":{"kind":"","name":""},"result":"fail","blocked":false,` +
		`"message":"","timestamp":"2026-07-09T15:00:01.123456Z","firstSeen":"2026-07-09T15:00:01.123456Z","count":1,"source":"event"}],` +
		`"droppedKeys":"r2PcTIYB7Iw="}`
	if got != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", got, want)
	}
	empty := marshal(t, Ledger{Plan: "x"})
	if empty != `{"version":1,"plan":"x","truncated":false,"dropped":0,"violations":[]}` {
		t.Errorf("empty ledger = %s", empty)
	}
}

func TestDecodeLedger_Errors(t *testing.T) {
	good := marshal(t, NewLedger("summer-freeze", WithLimit(1)).Merge([]Violation{
		{Key: "a", Plan: "summer-freeze", Timestamp: t0}, {Key: "b", Plan: "summer-freeze", Timestamp: t0.Add(time.Second)},
	}))
	tests := []struct {
		name    string
		data    string
		version bool // a *VersionError, else a *DecodeError
	}{
		{"a ledger of a future version is refused", strings.Replace(good, `"version":1`, `"version":2`, 1), true},
		{"a ledger without a version is refused", strings.Replace(good, `"version":1,`, ``, 1), true},
		{"malformed JSON is refused", good[:len(good)-3], false},
		{"a dropped count that disagrees with the dropped keys is refused", strings.Replace(good, `"dropped":1`, `"dropped":7`, 1), false},
		{"dropped keys that are not 64-bit hashes are refused", strings.Replace(good, `"droppedKeys":"`, `"droppedKeys":"AAAA`, 1), false},
		{"a violation without a key is refused", strings.Replace(good, `"key":"b"`, `"key":""`, 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeLedger([]byte(tt.data))
			var ve *VersionError
			var de *DecodeError
			if tt.version && !errors.As(err, &ve) || !tt.version && !errors.As(err, &de) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if plan.CodeOf(err) != 400 {
				t.Errorf("CodeOf = %d, want 400", plan.CodeOf(err))
			}
		})
	}
	if _, err := DecodeLedger([]byte(good)); err != nil {
		t.Errorf("the good ledger: %v", err)
	}
	var l Ledger
	if err := json.Unmarshal([]byte(strings.Replace(good, `"version":1`, `"version":3`, 1)), &l); err == nil {
		t.Error("json.Unmarshal accepted version 3")
	}
	if !bytes.Contains([]byte(good), []byte(`"version":1`)) {
		t.Error("no version in the JSON")
	}
}
