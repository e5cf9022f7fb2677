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

// BackupSuffix names the previous generation of a plan's JSON file
// (ledger.json.bak, health.json.bak, observed.json.bak).
const BackupSuffix = ".bak"

// store is the reports directory: one directory per plan, every file
// written atomically (a temporary file in the same directory, fsync,
// rename, fsync of the directory), so that a crash never leaves half a
// ledger or half a report, and a write that returned survives a power
// loss.
//
// The plan's JSON files (ledger, health samples, observed state) are kept
// in two generations: before a file is replaced, its current content, if
// valid, is written as <file>.bak (a first generation is written there
// too). A file found truncated or corrupt (a
// disk or a filesystem that lost the end of a write, a hand edit) is
// replaced by its previous generation, which is then read instead, and
// recovered is told; what the lost generation added and the previous one
// lacks is gone (for a ledger, the next checkpoint reads again whatever
// events and reports the cluster still holds).
type store struct {
	dir string
	// recovered, when set, is told of every file replaced by its previous
	// generation, and why.
	recovered func(id, name string, cause error)
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
// directory: write, fsync, rename, fsync of the directory (and of its
// parent when the directory was created).
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := syncDir(filepath.Dir(dir)); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cherr := f.Chmod(0o644)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, cherr, serr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes a directory's entries (a rename, a new file) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	return errors.Join(serr, cerr)
}

// validJSON checks that data is JSON that decodes into a new T.
func validJSON[T any](data []byte) error {
	var v T
	return json.Unmarshal(data, &v)
}

// load reads the plan's file name and checks it with valid. A file that
// is unreadable or invalid is replaced by its previous generation when
// that one is valid (a newer version of a ledger is not corruption and is
// never replaced). It returns nil, nil when neither exists.
func (s *store) load(id, name string, valid func([]byte) error) ([]byte, error) {
	p, err := s.path(id, name)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	switch {
	case err == nil:
		verr := valid(data)
		if verr == nil {
			return data, nil
		}
		if errors.As(verr, new(*violations.VersionError)) {
			return nil, fmt.Errorf("%s: %w", p, verr)
		}
		err = verr
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(p + BackupSuffix); serr != nil {
			return nil, nil // a new plan
		}
	}
	cause := fmt.Errorf("%s: %w", p, err)
	prev, berr := os.ReadFile(p + BackupSuffix)
	if berr == nil {
		berr = valid(prev)
	}
	if berr != nil {
		return nil, fmt.Errorf("%w (its previous generation: %v)", cause, berr)
	}
	if err := writeFileAtomic(p, prev); err != nil {
		return nil, fmt.Errorf("%w (restoring its previous generation: %v)", cause, err)
	}
	if s.recovered != nil {
		s.recovered(id, name, cause)
	}
	return prev, nil
}

// save writes data as the plan's file name, after keeping its current
// content, if valid, as the previous generation. A first generation is
// its own backup.
func (s *store) save(id, name string, data []byte, valid func([]byte) error) error {
	p, err := s.path(id, name)
	if err != nil {
		return err
	}
	cur, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cur = data
	case err != nil:
		return err
	case string(cur) == string(data) || valid(cur) != nil:
		cur = nil
	}
	if cur != nil {
		if err := writeFileAtomic(p+BackupSuffix, cur); err != nil {
			return err
		}
	}
	return writeFileAtomic(p, data)
}

// readJSON reads a plan's JSON file into v (see load); ok is false when it
// does not exist.
func readJSON[T any](s *store, id, name string, v *T) (bool, error) {
	data, err := s.load(id, name, validJSON[T])
	if err != nil || data == nil {
		return false, err
	}
	return true, json.Unmarshal(data, v)
}

func writeJSON[T any](s *store, id, name string, v T) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return s.save(id, name, append(data, '\n'), validJSON[T])
}

func (s *store) loadObserved(id string) (observed, bool, error) {
	var o observed
	ok, err := readJSON(s, id, ObservedFile, &o)
	return o, ok, err
}

func (s *store) saveObserved(id string, o observed) error { return writeJSON(s, id, ObservedFile, o) }

// validLedger checks a ledger file: a *violations.DecodeError when it is
// truncated or corrupt, a *violations.VersionError when a newer library
// wrote it.
func validLedger(data []byte) error {
	_, err := violations.DecodeLedger(data)
	return err
}

// loadLedger reads the plan's ledger, or returns an empty one. It also
// returns the ledger's bytes, for saveLedger.
func (s *store) loadLedger(id string) (violations.Ledger, []byte, error) {
	data, err := s.load(id, LedgerFile, validLedger)
	if err != nil {
		return violations.Ledger{}, nil, err
	}
	if data == nil {
		return violations.NewLedger(id), nil, nil
	}
	l, err := violations.DecodeLedger(data)
	return l, data, err
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
	return true, s.save(id, LedgerFile, data, validLedger)
}

func (s *store) loadHealth(id string) ([]report.HealthSample, error) {
	var samples []report.HealthSample
	_, err := readJSON(s, id, HealthFile, &samples)
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
	return writeJSON(s, id, HealthFile, samples)
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
		p := filepath.Join(d, report.FileName(r.ID, f))
		if err := writeFileAtomic(p, data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// finalReportOf finds the final report of trigger trig that the plan's
// directory already holds, whole or in part (report.Written).
func (s *store) finalReportOf(id string, trig report.Trigger) (string, bool, error) {
	d, err := s.planDir(id)
	if err != nil {
		return "", false, err
	}
	entries, err := os.ReadDir(d)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	rid, whole := report.Written(id, trig, names)
	return rid, whole, nil
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
