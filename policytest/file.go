package policytest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// APIVersion and Kind head a test file.
const (
	APIVersion = "cli.telark.io/v1alpha1"
	Kind       = "Test"
)

// File is a test file as written (the format in the package doc).
type File struct {
	APIVersion  string            `json:"apiVersion"`
	Kind        string            `json:"kind"`
	Name        string            `json:"name,omitempty"`
	Plans       []string          `json:"plans"`
	ClusterFile string            `json:"clusterFile,omitempty"`
	Cluster     *plantest.Cluster `json:"cluster,omitempty"`
	Targets     []render.Target   `json:"targets,omitempty"`
	Layouts     []Layout          `json:"layouts,omitempty"`
	Pending     bool              `json:"pending,omitempty"`
	Cases       []FileCase        `json:"cases"`
}

// FileCase is a case as written: the instant as text, the request inline
// (a render.SmallRequest or an AdmissionReview) or in a file.
type FileCase struct {
	Name        string          `json:"name"`
	At          string          `json:"at"`
	Request     json.RawMessage `json:"request,omitempty"`
	RequestFile string          `json:"requestFile,omitempty"`
	Targets     []render.Target `json:"targets,omitempty"`
	Expect      Expect          `json:"expect"`
}

// IsTestFile reports whether name is a file LoadDir picks up in a
// directory: a name ending in _test.yaml, _test.yml or _test.json, as Go
// names its tests, so that plans and requests can live beside them.
func IsTestFile(name string) bool {
	for _, ext := range []string{"_test.yaml", "_test.yml", "_test.json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// Files are the test files under dir in fsys (IsTestFile, every level,
// in lexical order). A directory without one is a *LoadError, so that a
// typo in a CI path fails instead of testing nothing.
func Files(fsys fs.FS, dir string) ([]string, error) {
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && IsTestFile(d.Name()) {
			names = append(names, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, &LoadError{File: dir, Err: errors.New("no test file (*_test.yaml, *_test.yml or *_test.json) in this directory")}
	}
	return names, nil
}

// LoadDir loads every test file under dir (Files). The error joins the
// files' errors; the suites of the others are returned with it.
func LoadDir(fsys fs.FS, dir string) ([]Suite, error) {
	names, err := Files(fsys, dir)
	if err != nil {
		return nil, err
	}
	var suites []Suite
	var errs []error
	for _, n := range names {
		s, err := Load(fsys, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		suites = append(suites, s)
	}
	return suites, errors.Join(errs...)
}

// Load reads the test file name from fsys, and the plan, cluster and
// request files it names (relative to its directory), into a Suite.
// Errors are *LoadError, naming the file; a problem of the file's fields
// wraps a *plan.ValidationError with their paths (400).
func Load(fsys fs.FS, name string) (Suite, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Suite{}, &LoadError{File: name, Err: err}
	}
	var f File
	if err := plan.Decode(strings.NewReader(string(data)), &f, plan.WithFormat(formatOf(name))); err != nil {
		return Suite{}, &LoadError{File: name, Err: err}
	}
	s, err := f.suite(fsys, path.Dir(name))
	s.File = name
	if s.Name == "" {
		s.Name = name
	}
	if err != nil {
		return s, &LoadError{File: name, Err: err}
	}
	return s, nil
}

func formatOf(name string) plan.Format {
	if strings.HasSuffix(name, ".json") {
		return plan.FormatJSON
	}
	return plan.FormatYAML
}

// suite turns the file into a Suite, reading what it names relative to
// dir. Every problem of the file's own fields is reported at once.
func (f File) suite(fsys fs.FS, dir string) (Suite, error) {
	s := Suite{Name: f.Name, Cluster: f.Cluster, Targets: f.Targets, Layouts: f.Layouts, Pending: f.Pending}
	var errs field.ErrorList
	if f.APIVersion != APIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), f.APIVersion, []string{APIVersion}))
	}
	if f.Kind != Kind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), f.Kind, []string{Kind}))
	}
	for i, p := range f.Plans {
		if e := relative(field.NewPath("plans").Index(i), p); e != nil {
			errs = append(errs, e)
			continue
		}
		plans, err := readPlans(fsys, path.Join(dir, p))
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("plans").Index(i), p, err.Error()))
		}
		s.Plans = append(s.Plans, plans...)
	}
	if ids := planIDs(s.Plans); len(ids) != len(slices.Compact(slices.Sorted(slices.Values(ids)))) {
		errs = append(errs, field.Invalid(field.NewPath("plans"), f.Plans, "two plans have the same metadata.name"))
	}
	switch {
	case f.ClusterFile != "" && f.Cluster != nil:
		errs = append(errs, field.Invalid(field.NewPath("clusterFile"), f.ClusterFile, "give cluster or clusterFile, not both"))
	case f.ClusterFile != "" && relative(field.NewPath("clusterFile"), f.ClusterFile) != nil:
		errs = append(errs, relative(field.NewPath("clusterFile"), f.ClusterFile))
	case f.ClusterFile != "":
		var c plantest.Cluster
		if err := decodeFile(fsys, path.Join(dir, f.ClusterFile), &c); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("clusterFile"), f.ClusterFile, err.Error()))
		} else {
			s.Cluster = &c
		}
	}
	for i, fc := range f.Cases {
		p := field.NewPath("cases").Index(i)
		c := Case{Name: fc.Name, Targets: fc.Targets, Expect: fc.Expect}
		if fc.At == "" {
			errs = append(errs, field.Required(p.Child("at"), "the instant of the request: RFC 3339 or a date"))
		} else if at, err := window.ParseInstant(p.Child("at"), fc.At); err != nil {
			errs = append(errs, field.Invalid(p.Child("at"), fc.At, "is not an RFC 3339 time or a date (YYYY-MM-DD)"))
		} else {
			c.At = at
		}
		var err error
		switch {
		case len(fc.Request) > 0 && fc.RequestFile != "":
			errs = append(errs, field.Invalid(p.Child("requestFile"), fc.RequestFile, "give request or requestFile, not both"))
		case len(fc.Request) > 0:
			c.Request, err = render.DecodeRequest(fc.Request, plan.WithFormat(plan.FormatJSON))
			errs = append(errs, requestErrors(p.Child("request"), err)...)
		case fc.RequestFile != "" && relative(p.Child("requestFile"), fc.RequestFile) != nil:
			errs = append(errs, relative(p.Child("requestFile"), fc.RequestFile))
		case fc.RequestFile != "":
			var data []byte
			if data, err = fs.ReadFile(fsys, path.Join(dir, fc.RequestFile)); err == nil {
				c.Request, err = render.DecodeRequest(data, plan.WithFormat(formatOf(fc.RequestFile)))
			}
			if err != nil {
				errs = append(errs, field.Invalid(p.Child("requestFile"), fc.RequestFile, err.Error()))
			}
		default:
			errs = append(errs, field.Required(p.Child("request"), "the request: a short request or an AdmissionReview, or requestFile"))
		}
		s.Cases = append(s.Cases, c)
	}
	// The suite's own checks, but for the fields already at fault (an
	// instant that did not parse is not also missing).
	for _, e := range s.fieldErrors() {
		if !slices.ContainsFunc(errs, func(f *field.Error) bool { return f.Field == e.Field }) {
			errs = append(errs, e)
		}
	}
	return s, plan.NewValidationError(errs)
}

// relative checks that a path of the file is relative to it: fs.FS names
// no absolute path, and a repository's tests must run from any checkout.
func relative(p *field.Path, name string) *field.Error {
	if name == "" || path.IsAbs(name) || strings.HasPrefix(name, `\`) || (len(name) > 1 && name[1] == ':') {
		return field.Invalid(p, name, "must be a path relative to the test file")
	}
	return nil
}

// requestErrors places a request's problems under p: a missing field as
// required, a malformed one as invalid, with their paths in the request.
func requestErrors(p *field.Path, err error) field.ErrorList {
	var re *render.RequestError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &re):
		return field.ErrorList{field.Invalid(p, "", err.Error())}
	case len(re.Missing) > 0:
		var errs field.ErrorList
		for _, m := range re.Missing {
			errs = append(errs, field.Required(p.Child(m), ""))
		}
		return errs
	case re.Field != "":
		return field.ErrorList{field.Invalid(p.Child(re.Field), re.Value, re.Reason)}
	}
	return field.ErrorList{field.Invalid(p, "", re.Reason)}
}

// readPlans reads every plan of a file (a YAML stream may hold several).
func readPlans(fsys fs.FS, name string) ([]*plan.ProtectionPlan, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var out []*plan.ProtectionPlan
	for _, d := range plan.Documents(data) {
		p := &plan.ProtectionPlan{}
		if err := d.Decode(p, plan.WithFormat(formatOf(name))); err != nil {
			return nil, fmt.Errorf("document %d: %w", d.Index, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func decodeFile(fsys fs.FS, name string, into any) error {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return err
	}
	return plan.Decode(strings.NewReader(string(data)), into, plan.WithFormat(formatOf(name)))
}

func planIDs(ps []*plan.ProtectionPlan) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.Name
	}
	return ids
}

// LoadError is a test file that cannot be loaded: unreadable, not the
// format, or naming files that are not. Its code is the cause's (400 for
// the file's fields, with their paths).
type LoadError struct {
	File string
	Err  error
}

func (e *LoadError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// HTTPCode is the cause's code.
func (e *LoadError) HTTPCode() int { return plan.CodeOf(e.Err) }

var _ plan.Coder = (*LoadError)(nil)
