package violations

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// benchEvents returns n records of about 0.7 n decisions, as a day of
// checkpoints reads them: re-reads and grown counts share keys.
func benchEvents(n int) []Violation {
	r := rand.New(rand.NewPCG(42, 42))
	distinct := n * 7 / 10
	vs := make([]Violation, n)
	for i := range vs {
		d := i
		if i >= distinct {
			d = r.IntN(distinct)
		}
		ts := t0.Add(time.Duration(d) * 900 * time.Millisecond)
		vs[i] = Violation{
			Key:  makeKey("bench", fmt.Sprint(d)),
			Plan: "summer-freeze", Template: "scaling", Policy: "summer-freeze-scaling", PolicyNamespace: "shop",
			Rule:      "replicas",
			Resource:  Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: fmt.Sprintf("web-%d", d%300)},
			Result:    ResultFail,
			Message:   "would be blocked by protection plan Summer freeze: scaling",
			Timestamp: ts.Add(time.Duration(i-d) * time.Millisecond), FirstSeen: ts, Count: int32(1 + (i-d)%3),
			Source: SourceEvent,
		}
	}
	r.Shuffle(n, func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
	return vs
}

// BenchmarkLedgerMerge_100000Events merges 100,000 records (70,000
// decisions) into an empty ledger of the default limit, 5,000, against two
// baselines computed in the same run on the same records:
//
//   - map: only building a map by Key, keeping the larger count. Any
//     deduplication has to do this much; it is the floor.
//   - map+sort: the map, then sorting its values newest first. This is
//     the least that answers "the newest 5,000 decisions" and is the
//     baseline the ratio is taken against: what Merge adds beyond it is
//     the full join of each record, the cap and the dropped-key set.
func BenchmarkLedgerMerge_100000Events(b *testing.B) {
	evs := benchEvents(100_000)
	b.Run("ledger", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l := NewLedger("summer-freeze").Merge(evs)
			if len(l.Violations) != DefaultLedgerLimit {
				b.Fatal(len(l.Violations))
			}
		}
	})
	b.Run("baseline=map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := baselineMap(evs)
			if len(m) != 70_000 {
				b.Fatal(len(m))
			}
		}
	})
	b.Run("baseline=map+sort", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m := baselineMap(evs)
			vs := make([]Violation, 0, len(m))
			for _, v := range m {
				vs = append(vs, v)
			}
			sortNewestFirst(vs)
			_ = vs[:DefaultLedgerLimit]
		}
	})
}

func baselineMap(evs []Violation) map[string]Violation {
	m := make(map[string]Violation, len(evs))
	for _, v := range evs {
		if old, ok := m[v.Key]; !ok || v.Count > old.Count {
			m[v.Key] = v
		}
	}
	return m
}

// BenchmarkFromEvents_10000 reads 10,000 synthetic events (5,000 audited
// decisions, two events each).
func BenchmarkFromEvents_10000(b *testing.B) {
	events := syntheticEventList(5000)
	b.ReportAllocs()
	for b.Loop() {
		bt, err := FromEvents(testIndex(), events)
		if err != nil || len(bt.Violations) != 5000 {
			b.Fatal(err, len(bt.Violations))
		}
	}
}

func syntheticEventList(decisions int) []corev1.Event {
	out := make([]corev1.Event, 0, 2*decisions)
	for i := range decisions {
		d := shopScaling(t0.Add(time.Duration(i) * 3 * time.Second))
		d.name = "web-" + strings.Repeat("x", i%5)
		out = append(out, d.audited()...)
	}
	return out
}
