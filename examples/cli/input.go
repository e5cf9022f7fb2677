package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/render"
)

// readFile reads a file named by a flag; "-" is standard input. A file
// that cannot be read is a usage error (exit status 2).
func (a *app) readFile(flag, name string) ([]byte, error) {
	if name == "" {
		return nil, usageErrorf("%s: no file given", flag)
	}
	if name == "-" {
		data, err := io.ReadAll(io.LimitReader(a.stdin, plan.DefaultMaxBodyBytes+1))
		if err != nil {
			return nil, usageErrorf("%s -: %v", flag, err)
		}
		return data, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usageErrorf("%s: %v", name, err)
	}
	return data, nil
}

// formatOf picks the decoder from the file name: .json is JSON, .yaml and
// .yml are YAML, anything else (standard input) is guessed from the first
// byte by plan.Decode.
func formatOf(name string) plan.Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return plan.FormatJSON
	case ".yaml", ".yml":
		return plan.FormatYAML
	}
	return plan.FormatAuto
}

// decode decodes one document strictly with the library's decoder: unknown
// or duplicate fields, wrong types and several documents are refused, with
// their paths.
func decode(name string, data []byte, into any) error {
	return plan.Decode(bytes.NewReader(data), into, plan.WithFormat(formatOf(name)))
}

// planDoc is one document of the plan files -f names: the plan, or why it
// does not decode.
type planDoc struct {
	file string
	// index is the document's place in its file, from 1, of count.
	index, count int
	plan         *plan.ProtectionPlan
	err          error
}

// String is the file, and the document's index when the file holds
// several: "plans.yaml (document 2)".
func (d planDoc) String() string { return d.at(0) }

// at is String with a line: "plans.yaml:14 (document 2)".
func (d planDoc) at(line int) string {
	s := d.file
	if line > 0 {
		s = fmt.Sprintf("%s:%d", s, line)
	}
	if d.count > 1 {
		s = fmt.Sprintf("%s (document %d)", s, d.index)
	}
	return s
}

// readPlans reads every document of every file names holds: "-" is
// standard input, a directory its .yaml, .yml and .json files (not its
// subdirectories) in name order, a file each of its YAML documents
// (plan.Documents). A file that cannot be read is a usage error; a
// document that does not decode carries its error.
func (a *app) readPlans(names []string) ([]planDoc, error) {
	files, err := expandDirs(names)
	if err != nil {
		return nil, err
	}
	var out []planDoc
	for _, name := range files {
		data, err := a.readFile("-f", name)
		if err != nil {
			return nil, err
		}
		docs := plan.Documents(data)
		for _, d := range docs {
			pd := planDoc{file: name, index: d.Index, count: len(docs), plan: &plan.ProtectionPlan{}}
			if pd.err = d.Decode(pd.plan, plan.WithFormat(formatOf(name))); pd.err != nil {
				pd.plan = nil
			}
			out = append(out, pd)
		}
	}
	return out, nil
}

// expandDirs replaces each directory of names by its plan files.
func expandDirs(names []string) ([]string, error) {
	var out []string
	for _, name := range names {
		info, err := os.Stat(name)
		if name == "-" || err != nil || !info.IsDir() {
			out = append(out, name) // readFile says what is wrong
			continue
		}
		entries, err := os.ReadDir(name)
		if err != nil {
			return nil, usageErrorf("%s: %v", name, unwrapPath(err))
		}
		n := len(out)
		for _, e := range entries {
			if !e.IsDir() && formatOf(e.Name()) != plan.FormatAuto {
				out = append(out, filepath.Join(name, e.Name()))
			}
		}
		if len(out) == n {
			return nil, usageErrorf("%s: no .yaml, .yml or .json file in the directory", name)
		}
	}
	return out, nil
}

// loadPlans is readPlans for report, which needs every plan: documents
// that do not decode are an invalid plan (exit 1), each reported.
func (a *app) loadPlans(names []string) ([]planDoc, error) {
	docs, err := a.readPlans(names)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, d := range docs {
		if err := d.failed(); err != nil {
			errs = append(errs, err)
		}
	}
	return docs, joinExit(errs)
}

// failed is why the document does not decode, as protectctl reports it
// (fileError), or nil.
func (d planDoc) failed() error {
	if d.err == nil {
		return nil
	}
	return fileError(d, d.err)
}

// fileError writes a decode error as "file[:line]: problem; problem (400)".
func fileError(d planDoc, err error) error {
	var de *plan.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("%s: %v (%d)", d, err, plan.CodeOf(err))
	}
	problems := make([]string, len(de.Problems))
	for i, p := range de.Problems {
		problems[i] = p.String()
	}
	return fmt.Errorf("%s: %s (%d)", d.at(de.Line), strings.Join(problems, "; "), de.HTTPCode())
}

// loadSnapshot reads a --cluster file: a plantest.Cluster (namespaces,
// release and excluded namespaces, existing plan names, applications).
// Anything wrong with it is a usage error: it is not the plan's fault.
func (a *app) loadSnapshot(name string) (plantest.Cluster, error) {
	var snap plantest.Cluster
	data, err := a.readFile("--cluster", name)
	if err != nil {
		return snap, err
	}
	if err := decode(name, data, &snap); err != nil {
		return snap, &exitError{code: exitUsage, err: fmt.Errorf("--cluster %w", fileError(planDoc{file: name}, err))}
	}
	return snap, nil
}

// loadRequest reads --request: an AdmissionReview or a small request
// (render.DecodeRequest). Anything wrong with it is a usage error.
func (a *app) loadRequest(name string) (render.Request, error) {
	data, err := a.readFile("--request", name)
	if err != nil {
		return render.Request{}, err
	}
	req, err := render.DecodeRequest(data, plan.WithFormat(formatOf(name)))
	var re *render.RequestError
	switch {
	case err == nil:
		return req, nil
	case !errors.As(err, &re):
		err = fileError(planDoc{file: name}, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name) {
		msg = name + ": " + msg
	}
	return req, usageErrorf("--request %s", msg)
}
