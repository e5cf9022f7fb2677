package violations

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/plan"
)

// randomFeed returns n violations of two plans in three namespaces, with
// many equal timestamps so that keys break ties.
func randomFeed(r *rand.Rand, n int) []Violation {
	vs := make([]Violation, n)
	for i := range vs {
		ns := []string{"shop", "search", "ledger"}[r.IntN(3)]
		ts := t0.Add(time.Duration(r.IntN(n/3+1)) * time.Second)
		vs[i] = Violation{
			Key:  fmt.Sprintf("k%05d", r.IntN(1_000_000)),
			Plan: []string{"summer-freeze", "winter-freeze"}[r.IntN(2)], Policy: "p", PolicyNamespace: ns,
			Resource:  Resource{Kind: "Deployment", Namespace: ns, Name: "web"},
			Result:    []Result{ResultFail, ResultFail, ResultPass}[r.IntN(3)],
			Timestamp: ts, FirstSeen: ts, Count: 1, Source: SourceEvent,
		}
	}
	return vs
}

// pageAll pages through the feed and returns every item in order.
func pageAll(t *testing.T, vs []Violation, q Query, between func(page int) []Violation) []Violation {
	t.Helper()
	var got []Violation
	for page := 0; ; page++ {
		p, err := Feed(vs, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Items...)
		if p.NextCursor == "" {
			return got
		}
		if len(p.Items) == 0 {
			t.Fatal("an empty page with a cursor")
		}
		q.Cursor = p.NextCursor
		if between != nil {
			vs = append(slices.Clone(vs), between(page)...)
		}
	}
}

func TestFeed_PagingNeverRepeatsNorSkips(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 1))
		vs := randomFeed(r, 50+r.IntN(600))
		q := Query{Plan: "summer-freeze", Namespaces: []string{"shop", "search"}, Results: []Result{ResultFail}, Limit: 1 + r.IntN(80)}
		var want []Violation
		for _, v := range dedupe(vs) {
			if q.keeps(v) {
				want = append(want, v)
			}
		}
		// Newer violations arrive between pages: they sort before the
		// cursor and must not shift the pages.
		arrivals := func(page int) []Violation {
			fresh := randomFeed(r, 10)
			for i := range fresh {
				fresh[i].Key = fmt.Sprintf("new-%d-%d", page, i)
				fresh[i].Timestamp = t0.Add(time.Hour + time.Duration(page)*time.Second)
			}
			return fresh
		}
		got := pageAll(t, vs, q, arrivals)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d: pages (-all at once +paged):\n%s", seed, diff)
		}
		if !slices.IsSortedFunc(got, newerFirst) {
			t.Fatalf("seed %d: not newest first", seed)
		}
	}
}

func TestFeed_Limits(t *testing.T) {
	vs := randomFeed(rand.New(rand.NewPCG(3, 3)), 900)
	tests := []struct {
		name  string
		limit int
		want  int
	}{
		{"no limit gives 50", 0, 50},
		{"a negative limit gives 50", -3, 50},
		{"a limit of 1 gives 1", 1, 1},
		{"a limit of 200 gives 200", 200, 200},
		{"a limit over 200 is lowered to 200", 5000, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Feed(vs, Query{Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) != tt.want || p.NextCursor == "" {
				t.Errorf("%d items, cursor %q; want %d and a cursor", len(p.Items), p.NextCursor, tt.want)
			}
		})
	}
}

func TestFeed_NewestFirstAndMerged(t *testing.T) {
	a := Violation{Key: "a", Plan: "summer-freeze", Timestamp: t0, Count: 1}
	b := Violation{Key: "b", Plan: "summer-freeze", Timestamp: t0.Add(time.Second), Count: 1}
	c := Violation{Key: "c", Plan: "summer-freeze", Timestamp: t0, Count: 1}
	aGrown := a
	aGrown.Count, aGrown.Timestamp = 3, t0.Add(2*time.Second)
	p, err := Feed([]Violation{a, c, b, aGrown}, Query{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range p.Items {
		keys = append(keys, fmt.Sprintf("%s×%d", v.Key, v.Count))
	}
	if want := []string{"a×3", "b×1", "c×1"}; !slices.Equal(keys, want) {
		t.Errorf("items %v, want %v (the grown record of a is newest; one record per key)", keys, want)
	}
	if p.NextCursor != "" {
		t.Errorf("NextCursor = %q on the only page", p.NextCursor)
	}
}

func TestFeed_MalformedCursors(t *testing.T) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tests := []struct {
		name, cursor string
	}{
		{"a cursor that is not base64url", "not a cursor!"},
		{"a cursor of another version", enc("c2:1.0:k")},
		{"a cursor without a position", enc("c1:1:k")},
		{"a cursor whose seconds are not a number", enc("c1:x.0:k")},
		{"a cursor whose nanoseconds are out of range", enc("c1:1.1000000000:k")},
		{"a cursor without a key", enc("c1:1.0:")},
		{"a cursor of two parts", enc("c1:1.0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Feed(nil, Query{Cursor: tt.cursor})
			var ce *CursorError
			if !errors.As(err, &ce) || ce.Cursor != tt.cursor {
				t.Fatalf("err = %v, want a *CursorError for %q", err, tt.cursor)
			}
			if plan.CodeOf(err) != 400 {
				t.Errorf("CodeOf = %d, want 400", plan.CodeOf(err))
			}
		})
	}
}

func TestFeed_CursorRoundTrip(t *testing.T) {
	v := Violation{Key: "k:with:colons", Timestamp: mustTime("1969-07-20T20:17:40.000000001Z")}
	got, ok, err := decodeCursor(encodeCursor(v))
	if err != nil || !ok || got.Key != v.Key || !got.Timestamp.Equal(v.Timestamp) {
		t.Errorf("decodeCursor(encodeCursor(%+v)) = %+v, %v, %v", v, got, ok, err)
	}
}
