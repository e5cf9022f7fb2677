package operator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// Files of a plan's directory, <reports-dir>/<plan ID>/.
const (
	// LedgerFile is the plan's violations ledger (violations.Ledger JSON),
	// merged at every checkpoint.
	LedgerFile = "ledger.json"
	// HealthFile holds the health samples of the plan's runs (a JSON list of
	// report.HealthSample), appended when the plan's health changes.
	HealthFile = "health.json"
	// ObservedFile is what the operator last saw of the plan: its UID,
	// phase, start and the policies of its run. It tells the operator,
	// after a restart or a change made by someone else (a cancel stored by
	// the API server), which lifecycle step it has not reported yet.
	ObservedFile = "observed.json"
)

// maxHealthSamples caps the health file; the oldest samples go first.
const maxHealthSamples = 10000

// store is the reports directory: one directory per plan, every file
// written atomically (a temporary file in the same directory, then a
// rename), so that a crash never leaves half a ledger or half a report.
type store struct {
	dir string
}

// observed is the content of ObservedFile.
type observed struct {
	UID       types.UID    `json:"uid"`
	Phase     plan.Phase   `json:"phase"`
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// Policies are the policies of the current run, for the final report
	// (a plan that ended renders none).
	Policies []report.PolicyInfo `json:"policies"`
	// Applications are the plan's applications as last resolved.
	Applications []plan.Application `json:"applications,omitempty"`
}

// planDir is the directory of a plan. Plan IDs are object names (DNS
// subdomains), so they are safe as one path element; anything else is
// refused rather than joined.
func (s *store) planDir(id string) (string, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("plan ID %q cannot name a directory", id)
	}
	return filepath.Join(s.dir, id), nil
}

func (s *store) path(id, name string) (string, error) {
	d, err := s.planDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, name), nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// readJSON reads a JSON file into v; ok is false when it does not exist.
func (s *store) readJSON(id, name string, v any) (bool, error) {
	p, err := s.path(id, name)
	if err != nil {
		return false, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %w", p, err)
	}
	return true, nil
}

func (s *store) writeJSON(id, name string, v any) error {
	p, err := s.path(id, name)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(p, append(data, '\n'))
}

func (s *store) loadObserved(id string) (observed, bool, error) {
	var o observed
	ok, err := s.readJSON(id, ObservedFile, &o)
	return o, ok, err
}

func (s *store) saveObserved(id string, o observed) error { return s.writeJSON(id, ObservedFile, o) }

// loadLedger reads the plan's ledger, or returns an empty one.
func (s *store) loadLedger(id string) (violations.Ledger, []byte, error) {
	p, err := s.path(id, LedgerFile)
	if err != nil {
		return violations.Ledger{}, nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return violations.NewLedger(id), nil, nil
	}
	if err != nil {
		return violations.Ledger{}, nil, err
	}
	l, err := violations.DecodeLedger(data)
	if err != nil {
		return violations.Ledger{}, nil, fmt.Errorf("%s: %w", p, err)
	}
	return l, data, nil
}

// saveLedger writes the ledger when its bytes differ from old; it reports
// whether it wrote.
func (s *store) saveLedger(id string, l violations.Ledger, old []byte) (bool, error) {
	data, err := l.MarshalJSON()
	if err != nil {
		return false, err
	}
	if string(data) == string(old) {
		return false, nil
	}
	p, err := s.path(id, LedgerFile)
	if err != nil {
		return false, err
	}
	return true, writeFileAtomic(p, data)
}

func (s *store) loadHealth(id string) ([]report.HealthSample, error) {
	var samples []report.HealthSample
	_, err := s.readJSON(id, HealthFile, &samples)
	return samples, err
}

func (s *store) appendHealth(id string, sample report.HealthSample) error {
	samples, err := s.loadHealth(id)
	if err != nil {
		return err
	}
	samples = append(samples, sample)
	if over := len(samples) - maxHealthSamples; over > 0 {
		samples = samples[over:]
	}
	return s.writeJSON(id, HealthFile, samples)
}

// writeReport writes r in every format as <plan dir>/<report ID>.<ext>
// and returns the paths written.
func (s *store) writeReport(id string, r report.Report) ([]string, error) {
	d, err := s.planDir(id)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range report.Formats() {
		data, err := report.Render(r, f)
		if err != nil {
			return paths, fmt.Errorf("rendering the %s report: %w", f, err)
		}
		p := filepath.Join(d, r.ID+"."+f.Extension())
		if err := writeFileAtomic(p, data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// sweep removes the directories of plans that no longer exist, and of
// plans recreated under the same ID (another UID): reports are deleted
// with their plan (R-T4). existing maps plan IDs to UIDs. It returns the
// directories removed.
func (s *store) sweep(existing map[string]types.UID) ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		id := e.Name()
		uid, ok := existing[id]
		if ok {
			obs, found, err := s.loadObserved(id)
			if err != nil || !found || obs.UID == "" || obs.UID == uid {
				continue
			}
		}
		if err := os.RemoveAll(filepath.Join(s.dir, id)); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, id)
	}
	return removed, errors.Join(errs...)
}
