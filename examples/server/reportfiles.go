package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// The reports directory is shared with the operator (examples/operator,
// its reports.go), which defines the layout; the server reads it and adds
// on-demand reports in the same form:
//
//	<dir>/<plan ID>/ledger.json            violations.Ledger, the operator's checkpoints
//	<dir>/<plan ID>/health.json            []report.HealthSample, the operator's checks
//	<dir>/<plan ID>/observed.json          the operator's own bookkeeping (not read here)
//	<dir>/<plan ID>/<report ID>.<ext>      one file per format: html, md, json, csv
//
// A report ID is "<plan ID>-<trigger>-<20060102T150405Z>" (report.Build's
// default), so the list is read from the names of the .json files; the
// environment, which the name lacks, from the file (cached by size and
// modification time).

// reportFiles reads and writes the reports directory.
type reportFiles struct {
	dir string

	mu    sync.Mutex
	cache map[string]cachedMeta // path of the .json -> meta
}

type cachedMeta struct {
	size int64
	mod  time.Time
	meta report.Meta
}

var reportName = regexp.MustCompile(`^(.+)-(manual|cancel|end)-([0-9]{8}T[0-9]{6}Z)$`)

func (f *reportFiles) planDir(id string) (string, error) {
	if msgs := validation.IsDNS1123Subdomain(id); len(msgs) > 0 {
		return "", fmt.Errorf("plan ID %q cannot name a directory: %s", id, strings.Join(msgs, "; "))
	}
	return filepath.Join(f.dir, id), nil
}

// ledger reads the plan's ledger; a plan without one has an empty ledger.
func (f *reportFiles) ledger(id string) (violations.Ledger, error) {
	d, err := f.planDir(id)
	if err != nil {
		return violations.Ledger{}, err
	}
	data, err := os.ReadFile(filepath.Join(d, "ledger.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return violations.NewLedger(id), nil
	}
	if err != nil {
		return violations.Ledger{}, err
	}
	return violations.DecodeLedger(data)
}

// health reads the plan's health samples (none when the file is missing).
func (f *reportFiles) health(id string) ([]report.HealthSample, error) {
	d, err := f.planDir(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(d, "health.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []report.HealthSample
	return out, json.Unmarshal(data, &out)
}

// list returns the metas of every stored report, or of one plan's when
// planID is set.
func (f *reportFiles) list(planID string) ([]report.Meta, error) {
	dirGlob := "*"
	if planID != "" {
		if _, err := f.planDir(planID); err != nil {
			return nil, err
		}
		dirGlob = planID
	}
	paths, err := filepath.Glob(filepath.Join(f.dir, dirGlob, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []report.Meta
	for _, p := range paths {
		m, ok, err := f.metaOf(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// metaOf reads the meta of the report whose JSON file is at path; ok is
// false for a file that is not a report (the ledger, ...).
func (f *reportFiles) metaOf(path string) (report.Meta, bool, error) {
	plan := filepath.Base(filepath.Dir(path))
	id := strings.TrimSuffix(filepath.Base(path), ".json")
	m := reportName.FindStringSubmatch(id)
	if m == nil || m[1] != plan {
		return report.Meta{}, false, nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return report.Meta{}, false, nil // deleted since the glob
	}
	if err != nil {
		return report.Meta{}, false, err
	}
	f.mu.Lock()
	c, hit := f.cache[path]
	f.mu.Unlock()
	if hit && c.size == st.Size() && c.mod.Equal(st.ModTime()) {
		return c.meta, true, nil
	}
	created, _ := time.Parse("20060102T150405Z", m[3])
	meta := report.Meta{ID: id, Plan: plan, Trigger: report.Trigger(m[2]), CreatedAt: created}
	data, err := os.ReadFile(path)
	if err != nil {
		return report.Meta{}, false, err
	}
	var head struct {
		GeneratedAt time.Time `json:"generatedAt"`
		Plan        struct {
			Environment string `json:"environment"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return report.Meta{}, false, fmt.Errorf("%s: %w", path, err)
	}
	meta.Environment = head.Plan.Environment
	if !head.GeneratedAt.IsZero() {
		meta.CreatedAt = head.GeneratedAt
	}
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[string]cachedMeta{}
	}
	f.cache[path] = cachedMeta{size: st.Size(), mod: st.ModTime(), meta: meta}
	f.mu.Unlock()
	return meta, true, nil
}

// path is the file of report m in format ft.
func (f *reportFiles) path(m report.Meta, ft report.Format) string {
	return filepath.Join(f.dir, m.Plan, report.FileName(m.ID, ft))
}

// save writes r in every format, the JSON last (the list reads it, so a
// listed report is complete), then prunes the plan's on-demand reports
// beyond the newest report.KeepManual (R-T4; final reports are never
// pruned).
func (f *reportFiles) save(r report.Report) (report.Meta, error) {
	m := r.Meta()
	d, err := f.planDir(m.Plan)
	if err != nil {
		return m, err
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return m, err
	}
	for _, ft := range []report.Format{report.HTML, report.Markdown, report.CSV, report.JSON} {
		data, err := report.Render(r, ft)
		if err != nil {
			return m, err
		}
		if err := writeFileAtomic(f.path(m, ft), data); err != nil {
			return m, err
		}
	}
	return m, f.prune(m.Plan)
}

func (f *reportFiles) prune(planID string) error {
	metas, err := f.list(planID)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range report.Prune(metas, nil) {
		// The JSON first: the report leaves the list before its files go.
		for _, ft := range []report.Format{report.JSON, report.HTML, report.Markdown, report.CSV} {
			if err := os.Remove(f.path(d.Report, ft)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// deletePlan removes a deleted plan's directory (the operator's sweep
// does the same on its next pass).
func (f *reportFiles) deletePlan(id string) error {
	d, err := f.planDir(id)
	if err != nil {
		return err
	}
	return os.RemoveAll(d)
}

// writeFileAtomic writes data to path through a temporary file in the
// same directory and a rename, as the operator does.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
