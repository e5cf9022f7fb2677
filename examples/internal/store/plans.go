package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// validLedger checks a ledger file: a *violations.DecodeError when it is
// truncated or corrupt, a *violations.VersionError when a newer library
// wrote it.
func validLedger(data []byte) error {
	_, err := violations.DecodeLedger(data)
	return err
}

// LoadLedger reads the plan's ledger, or returns an empty one.
func (s *FS) LoadLedger(planID string) (violations.Ledger, error) {
	data, err := s.load(planID, LedgerFile, validLedger)
	if err != nil {
		return violations.Ledger{}, err
	}
	if data == nil {
		return violations.NewLedger(planID), nil
	}
	return violations.DecodeLedger(data)
}

// SaveLedger writes the ledger when its bytes differ from the stored
// ones; it reports whether it wrote.
func (s *FS) SaveLedger(planID string, l violations.Ledger) (bool, error) {
	data, err := l.MarshalJSON()
	if err != nil {
		return false, fmt.Errorf("the ledger of plan %q: %w", planID, err)
	}
	return s.save(planID, LedgerFile, data, validLedger, false)
}

// LoadSamples reads the plan's health samples.
func (s *FS) LoadSamples(planID string) ([]report.HealthSample, error) {
	var samples []report.HealthSample
	_, err := s.readJSON(planID, HealthFile, &samples, validJSON[[]report.HealthSample])
	return samples, err
}

// AppendSample adds a health sample, keeping the newest MaxSamples.
func (s *FS) AppendSample(planID string, sample report.HealthSample) error {
	samples, err := s.LoadSamples(planID)
	if err != nil {
		return err
	}
	samples = append(samples, sample)
	if over := len(samples) - MaxSamples; over > 0 {
		samples = samples[over:]
	}
	return s.writeJSON(planID, HealthFile, samples, validJSON[[]report.HealthSample])
}

// validAs checks that data decodes into a new value of type t.
func validAs(t reflect.Type) func([]byte) error {
	return func(data []byte) error { return json.Unmarshal(data, reflect.New(t).Interface()) }
}

// LoadRecord decodes the plan's record into v, a non-nil pointer. The
// record is valid when it decodes into a new value of v's type.
func (s *FS) LoadRecord(planID string, v any) (bool, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false, fmt.Errorf("store: LoadRecord of plan %q into %T, want a non-nil pointer", planID, v)
	}
	return s.readJSON(planID, ObservedFile, v, validAs(rv.Type().Elem()))
}

// SaveRecord writes v as the plan's record.
func (s *FS) SaveRecord(planID string, v any) error {
	if v == nil {
		return fmt.Errorf("store: SaveRecord of plan %q: a nil record", planID)
	}
	return s.writeJSON(planID, ObservedFile, v, validAs(reflect.TypeOf(v)))
}

// RecordUID reads the "uid" field of the plan's record.
func (s *FS) RecordUID(planID string) (types.UID, bool, error) {
	var rec struct {
		UID types.UID `json:"uid"`
	}
	found, err := s.LoadRecord(planID, &rec)
	return rec.UID, found, err
}

// PlanIDs lists the directories that name a plan (others, hidden ones
// among them, are not the store's and are left alone).
func (s *FS) PlanIDs() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && len(validation.IsDNS1123Subdomain(e.Name())) == 0 {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

// RemovePlan removes the plan's directory (nothing when it has none).
func (s *FS) RemovePlan(planID string) error {
	d, err := s.planDir(planID)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(d); err != nil {
		return err
	}
	s.mu.Lock()
	for p := range s.cache {
		if strings.HasPrefix(p, d+string(os.PathSeparator)) {
			delete(s.cache, p)
		}
	}
	s.mu.Unlock()
	return nil
}

// LoadEdgeHistory reads the plan's finished edge journals; a plan without
// them has none.
func (s *FS) LoadEdgeHistory(planID string) (reconcile.EdgeHistory, error) {
	var h reconcile.EdgeHistory
	_, err := s.readJSON(planID, EdgeFile, &h, validJSON[reconcile.EdgeHistory])
	return h, err
}

// SaveEdgeHistory writes the plan's finished edge journals.
func (s *FS) SaveEdgeHistory(planID string, h reconcile.EdgeHistory) error {
	return s.writeJSON(planID, EdgeFile, h, validJSON[reconcile.EdgeHistory])
}
