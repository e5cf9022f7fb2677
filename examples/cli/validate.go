package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
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
	ClusterChecked bool           `json:"clusterChecked"`
	Problems       []plan.Problem `json:"problems,omitempty"`
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
			off, err := cluster.offline(a)
			if err != nil {
				return err
			}
			res, err := a.validate(file, off, t)
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

// validate decodes the file strictly and lints the plan
// (reconcile.Offline.Lint). Only an unreadable file is an error;
// everything wrong with the plan is a problem in the answer.
func (a *app) validate(file string, off reconcile.Offline, now time.Time) (validation, error) {
	res := validation{File: file, ClusterChecked: off.Cluster != nil}
	data, err := a.readFile("-f", file)
	if err != nil {
		return res, err
	}
	var p plan.ProtectionPlan
	if err = decode(file, data, &p); err == nil {
		err = off.Lint(&p, now)
	}
	res.Code, res.Valid, res.Problems = plan.CodeOf(err), err == nil, plan.ProblemsOf(err)
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
	for _, p := range res.Problems {
		if _, err := fmt.Fprintf(w, "%s: %s\n", res.File, p); err != nil {
			return err
		}
	}
	return nil
}
