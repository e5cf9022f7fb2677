package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
		file, ledgerFile, format, out, trigger string
		now                                    nowFlag
		cluster                                clusterFlags
	)
	c := &cobra.Command{
		Use:   "report -f PLAN.yaml --ledger LEDGER.json --format html|md|json|csv [-o FILE]",
		Short: "Write the report of a plan's run from its violations ledger",
		Long: `Report builds the report of the plan's run up to --now (configuration,
scope, policies, timeline, violations) from the plan and its violations
ledger (the JSON the operator checkpoints every 15 minutes), and writes it
as HTML (one self-contained page), Markdown, JSON (schema version 1) or
CSV (the violations, safe to open in a spreadsheet).

The plan is used as stored when it carries a status (kubectl get
protectionplan NAME -o yaml). A plan file without one is simulated: created
at its window's start (or at the start of the interval of its oldest
violation), approved at once if it requires approval, and ticked at every
window edge up to --now. --cluster resolves an applications scope.

--trigger defaults to end for a plan that terminated by --now, cancel for
one that was canceled, manual otherwise. --format defaults to the
extension of -o, else md.

Exit status: 0 written; 1 when the plan is invalid or its run has not
started by --now (no report); 2 on usage errors (bad flags, a ledger that
cannot be read or is another plan's).`,
		Example: `  # The final report of the holiday freeze, as one HTML page:
  protectctl report -f plans/holiday-freeze.yaml --ledger cli/samples/holiday-freeze.ledger.json \
    --now 2026-12-28T09:00:00+01:00 --format html -o holiday-freeze.html

  # The blocked and audited changes as CSV:
  protectctl report -f plans/holiday-freeze.yaml --ledger cli/samples/holiday-freeze.ledger.json \
    --now 2026-12-28T09:00:00+01:00 --format csv`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			t, err := now.get(a)
			if err != nil {
				return err
			}
			f, err := reportFormat(format, out)
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
			in, err := a.reportInput(file, ledger, &cluster, trig, t)
			if err != nil {
				return err
			}
			r, err := report.Build(in)
			if err != nil {
				return failedf("%s: no report: %v (%d)", file, err, plan.CodeOf(err))
			}
			return a.writeOutput("-o", out, func(w io.Writer) error { return report.Write(w, r, f) })
		},
	}
	fileFlag(c, &file)
	c.Flags().StringVar(&ledgerFile, "ledger", "", "the plan's violations ledger (JSON, as the operator checkpoints it)")
	_ = c.MarkFlagRequired("ledger")
	c.Flags().StringVar(&format, "format", "", "html, md (markdown), json or csv (default: from the extension of -o, else md)")
	c.Flags().StringVarP(&out, "output", "o", "", "write the report to this file instead of standard output")
	c.Flags().StringVar(&trigger, "trigger", "", "manual, cancel or end (default: from the plan's phase at --now)")
	now.register(c, "when the report is made")
	cluster.register(c, false)
	return c
}

// reportFormat reads --format, or guesses it from -o's extension.
func reportFormat(format, out string) (report.Format, error) {
	flag := "--format"
	if format == "" {
		format, flag = strings.TrimPrefix(filepath.Ext(out), "."), "-o"
		if format == "" {
			return report.Markdown, nil
		}
	}
	f, err := report.ParseFormat(format)
	if err != nil {
		return "", usageErrorf("%s %q: want html, md, json or csv", flag, format)
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
// the flags give.
func (a *app) reportInput(file string, ledger violations.Ledger, cf *clusterFlags, trig report.Trigger, now time.Time) (report.Input, error) {
	p, err := a.loadPlan(file)
	if err != nil {
		return report.Input{}, err
	}
	off, err := cf.offline(a)
	if err != nil {
		return report.Input{}, err
	}
	in, err := off.Report(p, ledger, trig, now)
	var le *reconcile.LedgerPlanError
	if errors.As(err, &le) {
		return in, usageErrorf("--ledger: %v", err)
	}
	return in, planError(file, err)
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
