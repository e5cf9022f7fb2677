package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// validation is validate's answer for one document, as -o yaml and -o
// json print it.
type validation struct {
	File string `json:"file"`
	// Document is the document's place in its file, from 1.
	Document int    `json:"document"`
	Plan     string `json:"plan,omitempty"`
	Valid    bool   `json:"valid"`
	// Code is the HTTP-like code a server would answer: 200, 400, 409 or
	// 503 (plan.CodeOf).
	Code int `json:"code"`
	// ClusterChecked says whether the checks that need a cluster
	// (namespaces, applications, names) ran: --cluster or --namespaces.
	ClusterChecked bool           `json:"clusterChecked"`
	Problems       []plan.Problem `json:"problems,omitempty"`
	doc            planDoc
}

func (a *app) validateCmd() *cobra.Command {
	var (
		files   []string
		now     nowFlag
		cluster clusterFlags
		out     outputFlags
	)
	c := &cobra.Command{
		Use:   "validate -f PLAN.yaml... [--now RFC3339|DATE] [--cluster SNAPSHOT.yaml]",
		Short: "Check plan files and list every problem with its field path and code",
		Long: `Validate decodes every plan document of every -f (files, directories,
multi-document YAML streams) strictly (unknown fields are refused) and
runs the library's validation at --now, as the server would before
creating the plan. Every problem is listed with its file, document,
field path and HTTP-like code.

Without --cluster, the checks that need a cluster (namespaces exist and
are not the release or an excluded namespace, applications resolve, the
display name is free) are skipped. The snapshot file makes them work
offline; --namespaces is a snapshot that lists only namespaces.

-o name prints the valid plans as kubectl names them
(protectionplan.telark.io/ID), and the problems of the others on stderr.

Exit status: 0 every plan valid, 1 any invalid, 2 usage error.`,
		Example: `  # Lint a repository of plans in CI, against a snapshot of the cluster they are meant for:
  protectctl validate -f plans/ --cluster cli/samples/cluster.yaml

  # As of a given day (a window that already ended is refused), as JSON:
  protectctl validate -f plans/holiday-freeze.yaml --now 2026-12-01 -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
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
			docs, err := a.readPlans(files)
			if err != nil {
				return err
			}
			res := make([]validation, len(docs))
			valid := true
			for i, d := range docs {
				res[i] = validate(d, off, t)
				valid = valid && res[i].Valid
			}
			if err := printValidations(a, out, res); err != nil || valid {
				return err
			}
			return exitSilently(exitFailed)
		},
	}
	fileFlag(c, &files)
	now.register(c, "the instant to validate at")
	cluster.register(c, true)
	out.register(c, "", "table", "yaml", "json", "name")
	return c
}

// validate lints a decoded document (reconcile.Offline.Lint); a document
// that does not decode has its decode problems.
func validate(d planDoc, off reconcile.Offline, now time.Time) validation {
	res := validation{File: d.file, Document: d.index, ClusterChecked: off.Cluster != nil, doc: d}
	err := d.err
	if err == nil {
		res.Plan = d.plan.Name
		err = off.Lint(d.plan, now)
	}
	res.Code, res.Valid, res.Problems = plan.CodeOf(err), err == nil, plan.ProblemsOf(err)
	return res
}

func printValidations(a *app, out outputFlags, res []validation) error {
	switch out.format {
	case "yaml", "json":
		return printItems(a.stdout, out.format, res)
	case "name":
		var errs []error
		for _, r := range res {
			if r.Valid {
				fmt.Fprintf(a.stdout, "protectionplan.%s/%s\n", plan.GroupVersion.Group, r.Plan)
			} else {
				errs = append(errs, fmt.Errorf("%s: %s", r.doc, problemLines(r.Problems)))
			}
		}
		return joinExit(errs)
	case "table":
		tw := newTable(a.stdout, out.noHeaders, "FILE", "FIELD", "CODE", "PROBLEM")
		for _, r := range res {
			for _, p := range r.Problems {
				detail := p.Detail
				if p.Line > 0 {
					detail = fmt.Sprintf("line %d: %s", p.Line, detail)
				}
				tw.row(r.doc.String(), dash(p.Field), fmt.Sprint(p.Code), detail)
			}
			if r.Valid {
				tw.row(r.doc.String(), "-", fmt.Sprint(r.Code), "valid")
			}
		}
		return tw.flush()
	}
	for _, r := range res {
		if err := printValidation(a.stdout, r); err != nil {
			return err
		}
	}
	return nil
}

func printValidation(w io.Writer, res validation) error {
	if res.Valid {
		note := ""
		if !res.ClusterChecked {
			note = " (cluster checks skipped: no --cluster)"
		}
		_, err := fmt.Fprintf(w, "%s: valid%s\n", res.doc, note)
		return err
	}
	for _, p := range res.Problems {
		if _, err := fmt.Fprintf(w, "%s: %s\n", res.doc, p); err != nil {
			return err
		}
	}
	return nil
}
