package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/telark/protectionplans/report"
)

// A report's ID is report.DefaultID's "<plan ID>-<trigger>-<20060102T150405Z>",
// so the list is read from the names of the .json files; the environment,
// which the name lacks, from the file (cached by size and modification
// time).
var reportName = regexp.MustCompile(`^(.+)-(manual|cancel|end)-([0-9]{8}T[0-9]{6}Z)$`)

type cachedMeta struct {
	size int64
	mod  time.Time
	meta report.Meta
}

// writeOrder is report.Formats with the JSON last: ListReports reads the
// JSON, so a listed report is complete.
func writeOrder() []report.Format {
	var out []report.Format
	for _, f := range report.Formats() {
		if f != report.JSON {
			out = append(out, f)
		}
	}
	return append(out, report.JSON)
}

// Names lists the names of the files of the plan's directory.
func (s *FS) Names(planID string) ([]string, error) {
	d, err := s.planDir(planID)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(d)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}

// WriteReport writes r in every format as <plan dir>/<report ID>.<ext>,
// the JSON last, and returns the paths written.
func (s *FS) WriteReport(r report.Report) ([]string, error) {
	d, err := s.planDir(r.Plan.ID)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range writeOrder() {
		p := filepath.Join(d, report.FileName(r.ID, f))
		data, err := report.Render(r, f)
		if err != nil {
			return paths, fmt.Errorf("rendering %s: %w", p, err)
		}
		if err := writeFileAtomic(p, data); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// ListReports returns the metas of the plan's reports, or of every plan's
// when planID is "", in no particular order (report.List sorts them).
func (s *FS) ListReports(planID string) ([]report.Meta, error) {
	dirGlob := "*"
	if planID != "" {
		if _, err := s.planDir(planID); err != nil {
			return nil, err
		}
		dirGlob = planID
	}
	paths, err := filepath.Glob(filepath.Join(s.dir, dirGlob, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []report.Meta
	for _, p := range paths {
		m, ok, err := s.metaOf(p)
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
func (s *FS) metaOf(path string) (report.Meta, bool, error) {
	planID := filepath.Base(filepath.Dir(path))
	id := filepath.Base(path[:len(path)-len(".json")])
	m := reportName.FindStringSubmatch(id)
	if m == nil || m[1] != planID {
		return report.Meta{}, false, nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return report.Meta{}, false, nil // deleted since the glob
	}
	if err != nil {
		return report.Meta{}, false, err
	}
	s.mu.Lock()
	c, hit := s.cache[path]
	s.mu.Unlock()
	if hit && c.size == st.Size() && c.mod.Equal(st.ModTime()) {
		return c.meta, true, nil
	}
	created, _ := time.Parse("20060102T150405Z", m[3])
	meta := report.Meta{ID: id, Plan: planID, Trigger: report.Trigger(m[2]), CreatedAt: created}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return report.Meta{}, false, nil // pruned since the stat
	}
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
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[string]cachedMeta{}
	}
	s.cache[path] = cachedMeta{size: st.Size(), mod: st.ModTime(), meta: meta}
	s.mu.Unlock()
	return meta, true, nil
}

// reportPath is the file of the plan's report reportID in format f. The
// ID must be one of the plan's (reportName), so that it is never a path.
func (s *FS) reportPath(planID, reportID string, f report.Format) (string, error) {
	d, err := s.planDir(planID)
	if err != nil {
		return "", err
	}
	if m := reportName.FindStringSubmatch(reportID); m == nil || m[1] != planID {
		return "", fmt.Errorf("%q is not the ID of a report of plan %q", reportID, planID)
	}
	return filepath.Join(d, report.FileName(reportID, f)), nil
}

// ReadReport reads the plan's report reportID in format f.
func (s *FS) ReadReport(planID, reportID string, f report.Format) ([]byte, error) {
	p, err := s.reportPath(planID, reportID, f)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// PruneReports deletes the plan's on-demand reports beyond the newest
// report.KeepManual (report.Prune; final reports are never pruned). Each
// goes JSON first: a report leaves the list before its other files go.
func (s *FS) PruneReports(planID string) ([]report.Deletion, error) {
	metas, err := s.ListReports(planID)
	if err != nil {
		return nil, err
	}
	order := writeOrder()
	order = append([]report.Format{report.JSON}, order[:len(order)-1]...)
	deleted := report.Prune(metas, nil)
	var errs []error
	for _, d := range deleted {
		for _, f := range order {
			p, err := s.reportPath(d.Report.Plan, d.Report.ID, f)
			if err == nil {
				err = os.Remove(p)
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			if f == report.JSON {
				s.mu.Lock()
				delete(s.cache, p)
				s.mu.Unlock()
			}
		}
	}
	return deleted, errors.Join(errs...)
}
