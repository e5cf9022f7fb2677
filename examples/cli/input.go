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

// loadPlan reads and decodes a plan file. A file that cannot be read is a
// usage error; one that cannot be decoded is an invalid plan (exit 1).
func (a *app) loadPlan(name string) (*plan.ProtectionPlan, error) {
	data, err := a.readFile("-f", name)
	if err != nil {
		return nil, err
	}
	var p plan.ProtectionPlan
	if err := decode(name, data, &p); err != nil {
		return nil, &exitError{code: exitFailed, err: fileError(name, err)}
	}
	return &p, nil
}

// fileError writes a decode error as "file[:line]: problem; problem (400)".
func fileError(name string, err error) error {
	var de *plan.DecodeError
	if !errors.As(err, &de) {
		return fmt.Errorf("%s: %v (%d)", name, err, plan.CodeOf(err))
	}
	where := name
	if de.Line > 0 {
		where = fmt.Sprintf("%s:%d", name, de.Line)
	}
	problems := make([]string, len(de.Problems))
	for i, p := range de.Problems {
		problems[i] = p.String()
	}
	return fmt.Errorf("%s: %s (%d)", where, strings.Join(problems, "; "), de.HTTPCode())
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
		return snap, &exitError{code: exitUsage, err: fmt.Errorf("--cluster %w", fileError(name, err))}
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
		err = fileError(name, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name) {
		msg = name + ": " + msg
	}
	return req, usageErrorf("--request %s", msg)
}
