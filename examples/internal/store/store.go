// Package store is the reports directory that the operator and the API
// server share: one directory per plan, named by the plan's ID,
//
//	<dir>/<plan ID>/ledger.json          violations.Ledger, merged at every checkpoint
//	<dir>/<plan ID>/health.json          []report.HealthSample, the health checks
//	<dir>/<plan ID>/observed.json        the operator's record of the plan (opaque here)
//	<dir>/<plan ID>/edge.json            reconcile.EdgeHistory, the run's finished edge journals
//	<dir>/<plan ID>/<file>.bak           the previous generation of each file above
//	<dir>/<plan ID>/<report ID>.<ext>    a report, one file per format
//
// Every file is written atomically (a temporary file in the same
// directory, fsync, rename, fsync of the directory), so that a crash never
// leaves half a ledger or half a report, and a write that returned survives
// a power loss.
//
// The plan's JSON files (ledger, health samples, record, edge journals) are kept in two
// generations: before a file is replaced, its current content, if valid, is
// written as <file>.bak (a first generation is written there too). A file
// found truncated or corrupt (a disk or a filesystem that lost the end of a
// write, a hand edit) is replaced by its previous generation, which is then
// read instead, and the Recovered callback is told; what the lost
// generation added and the previous one lacks is gone (for a ledger, the
// operator's next checkpoint reads again whatever events and reports the
// cluster still holds). A ledger written by a newer library is not
// corruption: it is never replaced.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// Files of a plan's directory, <dir>/<plan ID>/.
const (
	// LedgerFile is the plan's violations ledger (violations.Ledger JSON).
	LedgerFile = "ledger.json"
	// HealthFile holds the health samples of the plan's runs (a JSON list
	// of report.HealthSample).
	HealthFile = "health.json"
	// ObservedFile is the plan's record (Records): what the operator last
	// saw of the plan, with its UID, which the sweep compares.
	ObservedFile = "observed.json"
	// EdgeFile is the finished edge journals of the plan's run
	// (reconcile.EdgeHistory), kept for its final report: written before
	// a journal's Secret is deleted.
	EdgeFile = "edge.json"
	// BackupSuffix names the previous generation of a plan's JSON file
	// (ledger.json.bak, health.json.bak, observed.json.bak, edge.json.bak).
	BackupSuffix = ".bak"
)

// MaxSamples caps the health file; the oldest samples go first.
const MaxSamples = 10000

// ErrPlanID is wrapped by the error of a plan ID that cannot name one path
// element (it is not a DNS-1123 subdomain, as object names are).
var ErrPlanID = errors.New("invalid plan ID")

// Ledgers keeps each plan's violations ledger.
type Ledgers interface {
	// LoadLedger reads the plan's ledger; a plan without one has an empty
	// ledger.
	LoadLedger(planID string) (violations.Ledger, error)
	// SaveLedger writes the plan's ledger when its bytes differ from the
	// stored ones, and reports whether it wrote.
	SaveLedger(planID string, l violations.Ledger) (wrote bool, err error)
}

// Samples keeps each plan's health samples.
type Samples interface {
	// LoadSamples reads the plan's health samples, oldest first (none
	// when there are none).
	LoadSamples(planID string) ([]report.HealthSample, error)
	// AppendSample adds a sample, dropping the oldest beyond MaxSamples.
	AppendSample(planID string, s report.HealthSample) error
}

// Records keeps one opaque JSON record per plan (ObservedFile); a "uid"
// field, when it has one, is what reconcile.Sweep compares.
type Records interface {
	// LoadRecord decodes the plan's record into v, a non-nil pointer; found
	// is false when the plan has none.
	LoadRecord(planID string, v any) (found bool, err error)
	// SaveRecord writes v, as JSON, as the plan's record.
	SaveRecord(planID string, v any) error
}

// Reports keeps each plan's reports, one file per format.
type Reports interface {
	// Names lists the names of the files of the plan's directory (none
	// when it has no directory).
	Names(planID string) ([]string, error)
	// WriteReport writes r in every format, the JSON last (ListReports
	// reads it, so that a listed report is complete), and returns the
	// paths written.
	WriteReport(r report.Report) ([]string, error)
	// ListReports returns the metas of one plan's reports, or of every
	// plan's when planID is "".
	ListReports(planID string) ([]report.Meta, error)
	// ReadReport reads report reportID of the plan in format f; an error
	// wrapping fs.ErrNotExist when there is no such file.
	ReadReport(planID, reportID string, f report.Format) ([]byte, error)
	// PruneReports deletes the plan's on-demand reports beyond the newest
	// report.KeepManual (final reports are kept) and returns them.
	PruneReports(planID string) ([]report.Deletion, error)
}

// Plans lists and removes plans' directories.
type Plans interface {
	// PlanIDs lists the plans that have a directory.
	PlanIDs() ([]string, error)
	// RecordUID reads the UID of the plan's record; found is false when
	// the plan has no record.
	RecordUID(planID string) (uid types.UID, found bool, err error)
	// RemovePlan removes the plan's directory and everything in it.
	RemovePlan(planID string) error
}

// FS is the reports directory on a filesystem. It implements Ledgers,
// Samples, Records, Reports and Plans, and is safe for concurrent use by
// one process; processes sharing the directory see each other's files
// whole.
type FS struct {
	dir string
	// recovered, when set, is told of every file replaced by its previous
	// generation, and why.
	recovered func(planID, file string, cause error)

	mu    sync.Mutex
	cache map[string]cachedMeta // path of a report's .json -> meta
}

var (
	_ Ledgers = (*FS)(nil)
	_ Samples = (*FS)(nil)
	_ Records = (*FS)(nil)
	_ Reports = (*FS)(nil)
	_ Plans   = (*FS)(nil)
)

// Option configures an FS.
type Option func(*FS)

// OnRecovered sets the function told of every file found unreadable and
// replaced by its previous generation: the plan, the file's name and why
// (an error naming the file's path).
func OnRecovered(f func(planID, file string, cause error)) Option {
	return func(s *FS) { s.recovered = f }
}

// New returns the reports directory dir (created on the first write).
func New(dir string, opts ...Option) *FS {
	s := &FS{dir: dir}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Dir is the reports directory.
func (s *FS) Dir() string { return s.dir }

// planDir is the directory of a plan. Plan IDs are object names (DNS-1123
// subdomains), so they are safe as one path element; anything else is
// refused rather than joined.
func (s *FS) planDir(id string) (string, error) {
	if msgs := validation.IsDNS1123Subdomain(id); len(msgs) > 0 {
		return "", fmt.Errorf("%w %q: it cannot name a directory: %s", ErrPlanID, id, strings.Join(msgs, "; "))
	}
	return filepath.Join(s.dir, id), nil
}

func (s *FS) path(id, name string) (string, error) {
	d, err := s.planDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, name), nil
}

// writeFileAtomic writes data to path through a temporary file in the same
// directory: write, fsync, rename, fsync of the directory (and of its
// parent when the directory was created). Nothing of a failed write is
// left behind.
func writeFileAtomic(path string, data []byte) error {
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
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

// load reads the plan's file name and checks it with valid. A file that
// is unreadable or invalid is replaced by its previous generation when
// that one is valid (a newer version of a ledger is not corruption and is
// never replaced). It returns nil, nil when neither exists.
func (s *FS) load(id, name string, valid func([]byte) error) ([]byte, error) {
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
// content, if valid, as the previous generation (a first generation is its
// own backup). It does not write when the file already holds data, unless
// always is set, and reports whether it wrote. A file of a newer version
// (a *violations.VersionError from valid) is never replaced.
func (s *FS) save(id, name string, data []byte, valid func([]byte) error, always bool) (bool, error) {
	p, err := s.path(id, name)
	if err != nil {
		return false, err
	}
	cur, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cur = data
	case err != nil:
		return false, err
	case string(cur) == string(data):
		if !always {
			return false, nil
		}
		cur = nil
	default:
		if verr := valid(cur); verr != nil {
			if errors.As(verr, new(*violations.VersionError)) {
				return false, fmt.Errorf("%s: not replaced: %w", p, verr)
			}
			cur = nil
		}
	}
	if cur != nil {
		if err := writeFileAtomic(p+BackupSuffix, cur); err != nil {
			return false, err
		}
	}
	return true, writeFileAtomic(p, data)
}

// validJSON checks that data is JSON that decodes into a new T.
func validJSON[T any](data []byte) error {
	var v T
	return json.Unmarshal(data, &v)
}

// readJSON reads a plan's JSON file into v (see load); ok is false when it
// does not exist.
func (s *FS) readJSON(id, name string, v any, valid func([]byte) error) (bool, error) {
	data, err := s.load(id, name, valid)
	if err != nil || data == nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %w", filepath.Join(s.dir, id, name), err)
	}
	return true, nil
}

func (s *FS) writeJSON(id, name string, v any, valid func([]byte) error) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.dir, id, name), err)
	}
	_, err = s.save(id, name, append(data, '\n'), valid, true)
	return err
}
