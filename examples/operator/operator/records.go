package operator

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/reconcile"
)

// The records (reconcile.Record, the store's ObservedFile) are kept in
// memory as last read or written, as the last health samples are: only
// the leading operator writes its reports directory, so what it wrote is
// what the file holds, and a steady pass reads and decodes no file per
// plan (twice: the sweep reads each record's uid) — a tenth of a steady
// pass over 1,000 plans (issue 25). A record that could not be read is
// not kept: the next pass reads it again.

// records caches the plans' records by plan ID; a nil value: none
// stored.
type records map[string]*reconcile.Record

// record is what the last pass recorded of the plan (nil when none or
// unreadable), read once, then kept.
func (r *reconciler) record(id string) *reconcile.Record {
	if rec, ok := r.records[id]; ok {
		return rec
	}
	var rec reconcile.Record
	ok, err := r.store.LoadRecord(id, &rec)
	if err != nil {
		r.fail("report", err, "reading the plan's record", "plan", id)
		return nil
	}
	if !ok {
		r.records[id] = nil
		return nil
	}
	r.records[id] = &rec
	return &rec
}

// saveRecord stores the plan's record, and keeps it once stored.
func (r *reconciler) saveRecord(id string, rec *reconcile.Record) error {
	if err := r.store.SaveRecord(id, rec); err != nil {
		delete(r.records, id) // the file may hold either: read it again
		return err
	}
	r.records[id] = rec
	return nil
}

// recordUID is the uid the plan's record was stored with (the sweep's
// test of a plan re-created under the same name), from the kept record
// when there is one.
func (r *reconciler) recordUID(id string) (types.UID, error) {
	if rec, ok := r.records[id]; ok && rec != nil {
		return rec.UID, nil
	}
	uid, _, err := r.store.RecordUID(id)
	return uid, err
}
