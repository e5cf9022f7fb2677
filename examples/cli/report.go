package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

func (a *app) reportCmd() *cobra.Command {
	var (
		files                             []string
		ledgerFile, format, trigger, file string
		now                               nowFlag
		cluster                           clusterFlags
	)
	c := &cobra.Command{
		Use:   "report -f PLAN.yaml --ledger LEDGER.json [-o html|md|json|csv] [--output-file FILE]",
		Short: "Write the report of a plan's run from its violations ledger",
		Long: `Report builds the report of the plan's run up to --now (configuration,
scope, policies, timeline, violations) from the plan and its violations
ledger (the JSON the operator checkpoints every 15 minutes), and writes it
as HTML (one self-contained page), Markdown, JSON (schema version 1) or
CSV (the violations, safe to open in a spreadsheet).

-f may name several plans (files, directories, streams): the one the
ledger is of is reported. The plan is used as stored when it carries a status (kubectl get
protectionplan NAME -o yaml). A plan file without one is simulated: created
at its window's start (or at the start of the interval of its oldest
violation), approved at once if it requires approval, and ticked at every
window edge up to --now. --cluster resolves an applications scope.

--trigger defaults to end for a plan that terminated by --now, cancel for
one that was canceled, manual otherwise. -o (the format) defaults to the
extension of --output-file, else md.

Exit status: 0 written; 1 when the plan is invalid or its run has not
started by --now (no report); 2 on usage errors (bad flags, a ledger that
cannot be read or is another plan's).`,
		Example: `  # The final report of the holiday freeze, as one HTML page:
  protectctl report -f plans/holiday-freeze.yaml --ledger cli/samples/holiday-freeze.ledger.json \
    --now 2026-12-28T09:00:00+01:00 --output-file holiday-freeze.html

  # The blocked and audited changes as CSV:
  protectctl report -f plans/holiday-freeze.yaml --ledger cli/samples/holiday-freeze.ledger.json \
    --now 2026-12-28T09:00:00+01:00 -o csv`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			t, err := now.get(a)
			if err != nil {
				return err
			}
			f, err := reportFormat(format, file)
			if err != nil {
				return err
			}
			var trig report.Trigger
			if trigger != "" {
				if trig, err = report.ParseTrigger(trigger); err != nil {
					return usageErrorf("--trigger %q: want manual, cancel or end", trigger)
				}
			}
			ledger, err := a.loadLedger(ledgerFile)
			if err != nil {
				return err
			}
			d, in, err := a.reportInput(files, ledger, &cluster, trig, t)
			if err != nil {
				return err
			}
			r, err := report.Build(in)
			if err != nil {
				return failedf("%s: no report: %v (%d)", d, err, plan.CodeOf(err))
			}
			return a.writeOutput("--output-file", file, func(w io.Writer) error { return report.Write(w, r, f) })
		},
	}
	fileFlag(c, &files)
	c.Flags().StringVar(&ledgerFile, "ledger", "", "the plan's violations ledger (JSON, as the operator checkpoints it)")
	_ = c.MarkFlagRequired("ledger")
	c.Flags().StringVarP(&format, "output", "o", "", "the report's format: html, md (markdown), json or csv (default: from the extension of --output-file, else md)")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"html", "md", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))
	c.Flags().StringVar(&format, "format", "", "the report's format (was; now -o)")
	_ = c.Flags().MarkHidden("format")
	c.Flags().StringVar(&file, "output-file", "", "write the report to this file instead of standard output")
	c.Flags().StringVar(&trigger, "trigger", "", "manual, cancel or end (default: from the plan's phase at --now)")
	now.register(c, "when the report is made")
	cluster.register(c, false)
	return c
}

// reportFormat reads -o, or guesses it from --output-file's extension.
func reportFormat(format, file string) (report.Format, error) {
	flag := "-o"
	if format == "" {
		format, flag = strings.TrimPrefix(filepath.Ext(file), "."), "--output-file"
		if format == "" {
			return report.Markdown, nil
		}
	}
	f, err := report.ParseFormat(format)
	if err != nil {
		return "", usageErrorf("%s %q: want html, md, json or csv (the report's file is --output-file)", flag, format)
	}
	return f, nil
}

// loadLedger reads --ledger with the violations package's decoder.
func (a *app) loadLedger(name string) (violations.Ledger, error) {
	data, err := a.readFile("--ledger", name)
	if err != nil {
		return violations.Ledger{}, err
	}
	l, err := violations.DecodeLedger(data)
	if err != nil {
		return violations.Ledger{}, usageErrorf("--ledger %s: %v (%d)", name, err, plan.CodeOf(err))
	}
	return l, nil
}

// reportInput is what report.Build takes (reconcile.Offline.Report): the
// plan as stored, or its run simulated, with its ledger and the cluster
// the flags give. Of several plans, the ledger's is reported.
func (a *app) reportInput(files []string, ledger violations.Ledger, cf *clusterFlags, trig report.Trigger, now time.Time) (planDoc, report.Input, error) {
	docs, err := a.loadPlans(files)
	if err != nil {
		return planDoc{}, report.Input{}, err
	}
	d := docs[0]
	if len(docs) > 1 {
		i := slices.IndexFunc(docs, func(d planDoc) bool { return d.plan.Name == ledger.Plan })
		if i < 0 {
			return d, report.Input{}, usageErrorf("--ledger: the ledger is plan %q's, and no plan of -f is %q", ledger.Plan, ledger.Plan)
		}
		d = docs[i]
	}
	off, err := cf.offline(a)
	if err != nil {
		return d, report.Input{}, err
	}
	in, err := off.Report(d.plan, ledger, trig, now)
	var le *reconcile.LedgerPlanError
	if errors.As(err, &le) {
		return d, in, usageErrorf("--ledger: %v", err)
	}
	return d, in, planError(d, err)
}

// writeOutput writes to the file a flag names, or to standard output for
// "" and "-".
func (a *app) writeOutput(flag, name string, write func(io.Writer) error) error {
	if name == "" || name == "-" {
		return write(a.stdout)
	}
	f, err := os.Create(name)
	if err != nil {
		return usageErrorf("%s %s: %v", flag, name, unwrapPath(err))
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return usageErrorf("%s %s: %v", flag, name, unwrapPath(err))
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
