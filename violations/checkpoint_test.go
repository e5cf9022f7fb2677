package violations

import (
	"slices"
	"testing"
	"time"
)

func TestCheckpoint(t *testing.T) {
	at := time.Date(2026, 12, 24, 20, 0, 0, 0, time.UTC)
	v := func(key string, src Source, res Result, name string) Violation {
		return Violation{Key: key, Plan: "freeze", Source: src, Result: res, Policy: "freeze-scaling", PolicyNamespace: "shop",
			Rule: "replicas", Resource: Resource{Kind: "Deployment", Namespace: "shop", Name: name}, Timestamp: at}
	}
	cases := map[string]struct {
		ledger               []Violation
		fromEvents, fromReps []Violation
		want                 []string
	}{
		"results fail, warn and error count; pass and skip do not": {
			fromEvents: []Violation{v("pass", SourceEvent, ResultPass, "a"), v("fail", SourceEvent, ResultFail, "b"),
				v("warn", SourceEvent, ResultWarn, "c"), v("error", SourceEvent, ResultError, "d"), v("skip", SourceEvent, ResultSkip, "e")},
			want: []string{"error", "fail", "warn"},
		},
		"a report result that an event of this checkpoint says is not counted twice": {
			fromEvents: []Violation{v("ev", SourceEvent, ResultFail, "web")},
			fromReps:   []Violation{v("rep", SourcePolicyReport, ResultFail, "web")},
			want:       []string{"ev"},
		},
		"a report result that an event of an earlier checkpoint said is not counted twice": {
			ledger:   []Violation{v("ev", SourceEvent, ResultFail, "web")},
			fromReps: []Violation{v("rep", SourcePolicyReport, ResultFail, "web")},
			want:     []string{"ev"},
		},
		"a report result no event says is kept (the events expired)": {
			fromEvents: []Violation{v("ev", SourceEvent, ResultFail, "web")},
			fromReps:   []Violation{v("rep", SourcePolicyReport, ResultFail, "api")},
			want:       []string{"ev", "rep"},
		},
		"a report result with a pass result is not kept": {
			fromReps: []Violation{v("rep", SourcePolicyReport, ResultPass, "api")},
		},
		"reading the same thing twice adds nothing": {
			ledger:     []Violation{v("ev", SourceEvent, ResultFail, "web")},
			fromEvents: []Violation{v("ev", SourceEvent, ResultFail, "web")},
			want:       []string{"ev"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			l := NewLedger("freeze").Merge(tc.ledger)
			l = Checkpoint(l, tc.fromEvents, tc.fromReps)
			var got []string
			for _, x := range l.Violations {
				got = append(got, x.Key)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("ledger keys = %v, want %v", got, tc.want)
			}
		})
	}
}
