package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// validation is validate's answer, as -o yaml and -o json print it.
type validation struct {
	File  string `json:"file"`
	Valid bool   `json:"valid"`
	// Code is the HTTP-like code a server would answer: 200, 400, 409 or
	// 503 (plan.CodeOf).
	Code int `json:"code"`
	// ClusterChecked says whether the checks that need a cluster
	// (namespaces, applications, names) ran: --cluster or --namespaces.
	ClusterChecked bool      `json:"clusterChecked"`
	Problems       []problem `json:"problems,omitempty"`
}

// problem is one thing wrong with a plan, with its field path.
type problem struct {
	// Field is the path, e.g. spec.scope.namespaces[1]; empty when the
	// problem has none (a body that is not YAML).
	Field string `json:"field,omitempty"`
	// Type is the field error type (FieldValueInvalid, ...), or Decode.
	Type string `json:"type"`
	// Code is the HTTP-like code of this problem alone.
	Code int `json:"code"`
	// Detail says what is wrong.
	Detail string `json:"detail"`
	// Line is the line of the file, when the decoder knows it.
	Line int `json:"line,omitempty"`
}

// line writes a problem as "spec.x.y: detail (400)".
func (p problem) line() string {
	s := p.Detail
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.Line > 0 {
		s = fmt.Sprintf("line %d: %s", p.Line, s)
	}
	return fmt.Sprintf("%s (%d)", s, p.Code)
}

func problemLines(ps []problem) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.line()
	}
	return out
}

// problemsOf lists the problems of an error from the library: every field
// error of a *plan.ValidationError, every problem of a *plan.DecodeError,
// the field of a *plan.ActionError, or the error itself.
func problemsOf(err error) []problem {
	var ve *plan.ValidationError
	var de *plan.DecodeError
	var ae *plan.ActionError
	switch {
	case errors.As(err, &ve):
		out := make([]problem, len(ve.Errs))
		for i, fe := range ve.Errs {
			out[i] = problem{Field: fe.Field, Type: string(fe.Type), Detail: fe.ErrorBody(),
				Code: plan.CodeOf(&plan.ValidationError{Errs: field.ErrorList{fe}})}
		}
		return out
	case errors.As(err, &de):
		out := make([]problem, len(de.Problems))
		for i, p := range de.Problems {
			out[i] = problem{Type: "Decode", Code: de.HTTPCode(), Field: p.Field, Detail: p.Message(), Line: de.Line}
		}
		return out
	case errors.As(err, &ae):
		p := problem{Type: "Action", Code: ae.Code, Detail: ae.Reason}
		if ae.Field != nil {
			p.Field = ae.Field.String()
		}
		return []problem{p}
	}
	return []problem{{Type: "Error", Code: plan.CodeOf(err), Detail: err.Error()}}
}

func (a *app) validateCmd() *cobra.Command {
	var (
		file    string
		now     nowFlag
		cluster clusterFlags
		output  string
	)
	c := &cobra.Command{
		Use:   "validate -f PLAN.yaml [--now RFC3339] [--cluster SNAPSHOT.yaml]",
		Short: "Check a plan file and list every problem with its field path and code",
		Long: `Validate decodes the plan strictly (unknown fields are refused) and runs
the library's validation at --now, as the server would before creating the
plan. Every problem is listed with its field path and HTTP-like code.

Without --cluster, the checks that need a cluster (namespaces exist and
are not the release or an excluded namespace, applications resolve, the
display name is free) are skipped. The snapshot file makes them work
offline; --namespaces is a snapshot that lists only namespaces.

Exit status: 0 valid, 1 invalid, 2 usage error.`,
		Example: `  # Lint a plan in CI, against a snapshot of the cluster it is meant for:
  protectctl validate -f plans/nightly-image-freeze.yaml --cluster cli/samples/cluster.yaml

  # As of a given instant (a window that already ended is refused), as JSON:
  protectctl validate -f plans/holiday-freeze.yaml --now 2026-12-01T09:00:00Z -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(output, "text", "table", "yaml", "json"); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			snap, err := cluster.load(a)
			if err != nil {
				return err
			}
			res, err := a.validate(file, snap, t)
			if err != nil {
				return err
			}
			if err := printValidation(a.stdout, output, res); err != nil {
				return err
			}
			if !res.Valid {
				return exitSilently(exitFailed)
			}
			return nil
		},
	}
	fileFlag(c, &file)
	now.register(c, "the instant to validate at")
	cluster.register(c, true)
	outputFlag(c, &output, "text", "output format: text, table, yaml or json")
	return c
}

// validate runs the library on the file: strict decoding, defaults,
// validation and, when that passes, creation (which refuses, for one, a
// Production plan without an approval mode). Only an unreadable file is an
// error; everything wrong with the plan is a problem in the answer.
func (a *app) validate(file string, snap snapshot, now time.Time) (validation, error) {
	res := validation{File: file, ClusterChecked: snap.given}
	data, err := a.readFile("-f", file)
	if err != nil {
		return res, err
	}
	var p plan.ProtectionPlan
	err = decode(file, data, &p)
	if err == nil {
		plan.Defaults(&p, now)
		err = plan.Validate(&p, snap.env(now, true))
	}
	if err == nil {
		_, err = plan.Create(&p, previewUser, now)
	}
	res.Code = plan.CodeOf(err)
	res.Valid = err == nil
	if err != nil {
		res.Problems = problemsOf(err)
	}
	return res, nil
}

func printValidation(w io.Writer, format string, res validation) error {
	switch format {
	case "yaml", "json":
		return printObject(w, format, res)
	case "table":
		tw := newTable(w, "FIELD", "CODE", "PROBLEM")
		for _, p := range res.Problems {
			fld := p.Field
			if fld == "" {
				fld = "-"
			}
			detail := p.Detail
			if p.Line > 0 {
				detail = fmt.Sprintf("line %d: %s", p.Line, detail)
			}
			tw.row(fld, fmt.Sprint(p.Code), detail)
		}
		if res.Valid {
			tw.row("-", fmt.Sprint(res.Code), "valid")
		}
		return tw.flush()
	}
	if res.Valid {
		note := ""
		if !res.ClusterChecked {
			note = " (cluster checks skipped: no --cluster)"
		}
		_, err := fmt.Fprintf(w, "%s: valid%s\n", res.File, note)
		return err
	}
	for _, line := range problemLines(res.Problems) {
		if _, err := fmt.Fprintf(w, "%s: %s\n", res.File, line); err != nil {
			return err
		}
	}
	return nil
}
