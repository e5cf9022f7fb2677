package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// maxEdges bounds the simulated run: ticks at this many window edges at
// most (two a day for a nightly window is about 14 years).
const maxEdges = 10000

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

// reportInput gathers what report.Build takes: the plan at now (stored or
// simulated), its applications, the policies it deployed and the ledger.
func (a *app) reportInput(file string, ledger violations.Ledger, cf *clusterFlags, trig report.Trigger, now time.Time) (report.Input, error) {
	p, err := a.loadPlan(file)
	if err != nil {
		return report.Input{}, err
	}
	if ledger.Plan != "" && ledger.Plan != p.Name {
		return report.Input{}, usageErrorf("--ledger: the ledger is plan %q's, not %q's", ledger.Plan, p.Name)
	}
	snap, err := cf.load(a)
	if err != nil {
		return report.Input{}, err
	}
	spec := p.DeepCopy()
	spec.Status = plan.Status{}
	plan.Defaults(spec, now)
	if err := checkPlan(file, spec, snap.env(time.Time{}, false)); err != nil {
		return report.Input{}, err
	}
	if p.Status.Phase == "" {
		if p, err = simulateRun(p, ledger, now); err != nil {
			return report.Input{}, failedf("%s: %v (%d)", file, err, plan.CodeOf(err))
		}
	}
	if trig == "" {
		trig = triggerOf(p.Status.Phase)
	}
	in := report.Input{
		Plan: p, Applications: snap.applications(p), Trigger: trig, Now: now,
		Violations: ledger.Violations, ViolationsTruncated: ledger.Truncated, ViolationsDropped: ledger.Dropped,
	}
	in.Policies = deployedPolicies(spec, in.Applications, p.Status.StartedAt)
	return in, nil
}

func triggerOf(ph plan.Phase) report.Trigger {
	switch ph {
	case plan.PhaseTerminated:
		return report.TriggerEnd
	case plan.PhaseCanceled:
		return report.TriggerCancel
	}
	return report.TriggerManual
}

// simulateRun returns the plan as the operator would hold it at now: created
// when its run began (see runStart), approved at once if it requires
// approval, and ticked at every window edge since.
func simulateRun(p *plan.ProtectionPlan, ledger violations.Ledger, now time.Time) (*plan.ProtectionPlan, error) {
	w, err := window.Parse(p.Spec.Window)
	if err != nil {
		return nil, err
	}
	created := runStart(p, w, ledger, now)
	res, err := createApproved(p, created, true)
	if err != nil {
		return nil, err
	}
	for i := 0; i < maxEdges && res.NextEdge != nil && !res.NextEdge.After(now); i++ {
		res = plan.Tick(res.Plan, *res.NextEdge)
	}
	return plan.Tick(res.Plan, now).Plan, nil
}

// runStart is when a plan file without a status is taken to have been
// created: its window's start, or the start of the interval holding its
// oldest violation, or now.
func runStart(p *plan.ProtectionPlan, w *window.Window, ledger violations.Ledger, now time.Time) time.Time {
	if s := p.Spec.Window.StartAt; s != nil && !s.After(now) {
		return s.Time
	}
	oldest := now
	for _, v := range ledger.Violations {
		for _, t := range []time.Time{v.FirstSeen, v.Timestamp} {
			if !t.IsZero() && t.Before(oldest) {
				oldest = t
			}
		}
	}
	if iv, ok := w.Containing(oldest); ok && !iv.OpenStart && !iv.Start.IsZero() {
		return iv.Start
	}
	return oldest
}

// deployedPolicies are the policies the plan had when its run started: a
// render of its spec created at that instant. None when it never started
// or cannot be rendered (an applications scope without --cluster).
func deployedPolicies(spec *plan.ProtectionPlan, apps []plan.Application, started *metav1.Time) []report.PolicyInfo {
	if started == nil {
		return nil
	}
	res, err := createApproved(spec.DeepCopy(), started.Time, true)
	if err != nil {
		return nil
	}
	r, err := render.Render(render.Input{Plan: res.Plan, Applications: apps, Now: started.Time})
	if err != nil {
		return nil
	}
	var out []report.PolicyInfo
	for _, pol := range r.Policies {
		out = append(out, report.PolicyInfo{Namespace: pol.Namespace, Name: pol.Name,
			Template: pol.Template, Target: string(pol.Target)})
	}
	return out
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
