package violations

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Fuzz targets with oracles (issue 15): the readers and the ledger's
// decoder on raw JSON, seeded from the real Kyverno recordings in
// testdata/kyverno-1.19.1 (and testdata/fuzz/<target>); hack/fuzz.sh runs
// them. JSON that does not decode into the API types is the client's
// concern, not the readers': those inputs are only given to DecodeLedger.

// fuzzPlan is the plan fixtureIndex files the recorded policies under.
const fuzzPlan = "fx-plan"

// addFixtures adds every recorded file whose name matches pattern as a
// seed.
func addFixtures(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join(fixtures, pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures %s: %v", pattern, err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzFromEventsJSON reads arbitrary core/v1 EventLists (see checkReader
// for the oracles).
func FuzzFromEventsJSON(f *testing.F) {
	addFixtures(f, "events-*.json")
	idx := fixtureIndex(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var l corev1.EventList
		if json.Unmarshal(data, &l) != nil {
			return
		}
		before := l.DeepCopy()
		checkReader(t, len(l.Items), true, func() (Batch, error) { return FromEvents(idx, l.Items) })
		if !reflect.DeepEqual(before, &l) {
			t.Fatal("FromEvents changed the events")
		}
	})
}

// FuzzFromEventsV1JSON reads arbitrary events.k8s.io/v1 EventLists (see
// checkReader for the oracles).
func FuzzFromEventsV1JSON(f *testing.F) {
	addFixtures(f, "events.k8s.io-*.json")
	idx := fixtureIndex(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var l eventsv1.EventList
		if json.Unmarshal(data, &l) != nil {
			return
		}
		before := l.DeepCopy()
		checkReader(t, len(l.Items), true, func() (Batch, error) { return FromEventsV1(idx, l.Items) })
		if !reflect.DeepEqual(before, &l) {
			t.Fatal("FromEventsV1 changed the events")
		}
	})
}

// FuzzFromPolicyReportsJSON reads arbitrary lists of PolicyReports (see
// checkReader for the oracles).
func FuzzFromPolicyReportsJSON(f *testing.F) {
	addFixtures(f, "policyreports-*.json")
	addFixtures(f, "ephemeralreports-audit-*.json")
	idx := fixtureIndex(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var l struct {
			Items []map[string]any `json:"items"`
		}
		if json.Unmarshal(data, &l) != nil {
			return
		}
		reports := make([]*unstructured.Unstructured, len(l.Items))
		before := make([]*unstructured.Unstructured, len(l.Items))
		for i, it := range l.Items {
			reports[i] = &unstructured.Unstructured{Object: it}
			before[i] = reports[i].DeepCopy()
		}
		checkReader(t, -1, false, func() (Batch, error) { return FromPolicyReports(idx, reports) })
		if !reflect.DeepEqual(before, reports) {
			t.Fatal("FromPolicyReports changed the reports")
		}
	})
}

// checkReader holds the oracles of a reader:
//
//   - it never panics, and returns a batch with either no error or an
//     errors.Join of *UnrecognizedError (502), one per unrecognized
//     object (read is the number of objects it must read, -1 when
//     unknown; events make at most one violation each);
//   - it is deterministic: a second read gives the same batch and error;
//   - every violation is normalized: a key, the index's plan, a count,
//     UTC times, first seen no later than last;
//   - merging the batch into a ledger twice gives the ledger of merging it
//     once (with the default limit and with a limit of one, which drops);
//   - that ledger encodes, and decodes to a ledger that encodes the same.
func checkReader(t *testing.T, read int, events bool, parse func() (Batch, error)) {
	b, err := parse()
	errs := joined(err)
	for _, e := range errs {
		var ue *UnrecognizedError
		if !errors.As(e, &ue) || ue.HTTPCode() != http.StatusBadGateway {
			t.Fatalf("error %T %v, want an *UnrecognizedError", e, e)
		}
	}
	if b.Unrecognized != len(errs) || b.Skipped+b.Unrecognized > b.Read || read >= 0 && b.Read != read ||
		events && len(b.Violations) > b.Read {
		t.Fatalf("batch counts: read %d, skipped %d, unrecognized %d, %d violations, %d errors (want %d read)",
			b.Read, b.Skipped, b.Unrecognized, len(b.Violations), len(errs), read)
	}
	for _, v := range b.Violations {
		if v.Key == "" || v.Plan != fuzzPlan || v.Count < 1 || v.Timestamp.Location() != time.UTC || v.FirstSeen.Location() != time.UTC ||
			v.FirstSeen.After(v.Timestamp) || !knownResult(v.Result) {
			t.Fatalf("violation not normalized: %+v", v)
		}
	}
	again, err2 := parse()
	if diff := cmp.Diff(b, again); diff != "" || errText(err) != errText(err2) {
		t.Fatalf("two reads of the same input differ (-first +second):\n%s\n%v\n%v", diff, err, err2)
	}
	for _, l := range []Ledger{NewLedger(fuzzPlan), NewLedger(fuzzPlan, WithLimit(1))} {
		once := l.Merge(b.Violations)
		checkLedgerMerge(t, once, b.Violations)
		checkLedgerRoundTrip(t, once)
	}
}

// joined unpacks an errors.Join.
func joined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func mustMarshal(t *testing.T, l Ledger) []byte {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatalf("a ledger does not encode: %v\n%+v", err, l)
	}
	return b
}

// checkLedgerMerge holds that merging vs into once, a ledger that already
// holds them, changes nothing.
func checkLedgerMerge(t *testing.T, once Ledger, vs []Violation) {
	t.Helper()
	if a, b := mustMarshal(t, once), mustMarshal(t, once.Merge(vs)); !bytes.Equal(a, b) {
		t.Fatalf("merging a batch twice differs from merging it once:\n%s\n%s", a, b)
	}
}

// checkLedgerRoundTrip holds that l encodes, and decodes to an equal
// ledger that encodes to the same bytes.
func checkLedgerRoundTrip(t *testing.T, l Ledger) {
	t.Helper()
	b := mustMarshal(t, l)
	back, err := DecodeLedger(b)
	if err != nil {
		t.Fatalf("a ledger, encoded, does not decode: %v\n%s", err, b)
	}
	if diff := cmp.Diff(l, back, cmp.AllowUnexported(Ledger{}), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("a ledger, encoded and decoded, changed (-before +after):\n%s", diff)
	}
	if again := mustMarshal(t, back); !bytes.Equal(b, again) {
		t.Fatalf("the encoding of a ledger is not stable:\n%s\n%s", b, again)
	}
}

// FuzzDecodeLedger decodes arbitrary ledger files. Oracles:
//
//   - DecodeLedger never panics, and fails only with a *DecodeError or a
//     *VersionError (400);
//   - it is deterministic;
//   - a ledger it reads encodes, and decodes again to an equal ledger that
//     encodes to the same bytes;
//   - merging its own violations, or the recorded batch, into it twice
//     gives the ledger of merging them once.
func FuzzDecodeLedger(f *testing.F) {
	idx := fixtureIndex(f)
	var batch []Violation
	for _, c := range []string{"audit-v1", "enforce-nvpol"} {
		b, err := FromEvents(idx, coreEvents(f, c))
		if err != nil {
			f.Fatal(err)
		}
		batch = append(batch, b.Violations...)
	}
	for _, l := range []Ledger{NewLedger(fuzzPlan).Merge(batch), NewLedger(fuzzPlan, WithLimit(1)).Merge(batch), NewLedger("other")} {
		b, err := json.Marshal(l)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"plan":"p","truncated":true,"dropped":1,"violations":[],"droppedKeys":"AAAAAAAAAAE="}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := DecodeLedger(data)
		if err != nil {
			var de *DecodeError
			var ve *VersionError
			if !errors.As(err, &de) && !errors.As(err, &ve) {
				t.Fatalf("DecodeLedger: %T %v, want a *DecodeError or a *VersionError", err, err)
			}
			if code := err.(interface{ HTTPCode() int }).HTTPCode(); code != http.StatusBadRequest {
				t.Fatalf("DecodeLedger: code %d, want 400", code)
			}
			return
		}
		again, _ := DecodeLedger(data)
		if diff := cmp.Diff(l, again, cmp.AllowUnexported(Ledger{})); diff != "" {
			t.Fatalf("two decodes of the same ledger differ (-first +second):\n%s", diff)
		}
		checkLedgerRoundTrip(t, l)
		for _, vs := range [][]Violation{l.Violations, batch} {
			checkLedgerMerge(t, l.Merge(vs), vs)
		}
	})
}
