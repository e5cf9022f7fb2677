package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/lint"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// lintAnswer is lint's answer, as -o yaml and -o json print it.
type lintAnswer struct {
	// Now and Horizon are the instant linted at and how far ahead.
	Now     time.Time `json:"now"`
	Horizon string    `json:"horizon"`
	// Plans is how many plans were linted.
	Plans    int            `json:"plans"`
	Findings []lint.Finding `json:"findings"`
	// Errors are the documents that do not decode (not linted).
	Errors []string `json:"errors,omitempty"`
}

func (a *app) lintCmd() *cobra.Command {
	var (
		now       nowFlag
		horizon   time.Duration
		calendars []string
		snapshot  string
		out       outputFlags
	)
	c := &cobra.Command{
		Use:   "lint PATH... [--now RFC3339|DATE] [--horizon DURATION] [--calendar NAME/KEY=FILE]... [--cluster SNAPSHOT.yaml]",
		Short: "Find the mistakes in plans' schedules: overlaps, shadowed schedules, crons that never fire, DST, freezes that never end",
		Long: `Lint reads plans (files, directories of .yaml, .yml and .json files,
multi-document YAML streams; - for standard input) and lints them
together with the library's linter (package lint): two plans active at
once on shared namespaces or applications (a warning when they lock the
same template, info otherwise), a schedule whose occurrences all fall
inside another's, a cron that never fires (0 0 31 2 *), a start in a
local hour the clocks skip (warning) or repeat (info), occurrences that
chain without a gap (a freeze that never ends), a window that has
already ended, a window that does not parse.

Each finding has a severity, a stable code, the plans and fields, the
instants concerned and what to do. Findings about time hold from --now
to --horizon ahead (a year by default). Allow windows and exceptions
are linted as they behave; --calendar gives the ICS file of a calendar
an exception names (except: calendar: configMapKeyRef NAME and KEY),
whose events are then subtracted as the operator subtracts them.
--cluster gives a snapshot whose namespaces carry their labels
(namespaceLabels): plans on namespace selectors are then compared with
the others on the namespaces they select; without it, only a
whole-cluster selector and selectors written alike are compared.

Exit status: 0 when no finding is an error; 1 when one is, or a document
does not decode; 2 on usage errors.`,
		Example: `  # Every plan of a repository, in CI:
  protectctl lint plans/

  # Two files, as JSON, as of a day:
  protectctl lint plans/nightly.yaml plans/release.yaml --now 2026-12-01 -o json

  # With the holiday calendar the plans' exceptions name (ConfigMap holidays, key de.ics):
  protectctl lint plans/ --calendar holidays/de.ics=calendars/de.ics`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := out.check(); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			if horizon < 0 {
				return usageErrorf("--horizon %s: must be positive", horizon)
			}
			texts, err := a.readCalendars(calendars)
			if err != nil {
				return err
			}
			docs, err := a.readPlans(args)
			if err != nil {
				return err
			}
			ans := lintAnswer{Now: t, Errors: []string{}}
			var plans []*plan.ProtectionPlan
			files := map[string]string{}
			for _, d := range docs {
				if err := d.failed(); err != nil {
					ans.Errors = append(ans.Errors, err.Error())
					continue
				}
				plans = append(plans, d.plan)
				files[planID(d.plan)] = d.String()
			}
			opts := []lint.Option{lint.WithHorizon(horizon), lint.WithCalendars(texts)}
			if snapshot != "" {
				snap, err := a.loadSnapshot(snapshot)
				if err != nil {
					return err
				}
				opts = append(opts, lint.WithNamespaces(snap.NamespaceInfos(), plan.AlwaysLeftOut(snap.ReleaseNamespace, snap.ExcludedNamespaces)))
			}
			ans.Plans, ans.Findings = len(plans), lint.Lint(plans, t, opts...)
			ans.Horizon = lintHorizon(horizon).String()
			if out.format != "" {
				err = printObject(a.stdout, out.format, ans)
			} else {
				err = printFindings(a.stdout, ans, files)
			}
			if err != nil {
				return err
			}
			if lint.Errors(ans.Findings) || len(ans.Errors) > 0 {
				return exitSilently(exitFailed)
			}
			return nil
		},
	}
	now.register(c, "the instant to lint at")
	c.Flags().DurationVar(&horizon, "horizon", 0, "how far ahead of --now findings about time look (default 8784h, a year)")
	calendarFlag(c, &calendars)
	c.Flags().StringVar(&snapshot, "cluster", "", "a cluster snapshot whose namespaces and namespaceLabels say which namespaces selector plans cover")
	out.register(c, "", "yaml", "json")
	return c
}

// calendarFlag is --calendar NAME/KEY=FILE, repeatable.
func calendarFlag(c *cobra.Command, into *[]string) {
	c.Flags().StringArrayVar(into, "calendar", nil, "NAME/KEY=FILE: the ICS file of the calendar exceptions name as ConfigMap NAME, key KEY; repeatable")
}

// readCalendars reads each --calendar NAME/KEY=FILE. A malformed value
// or a file that cannot be read is a usage error; whether the file is a
// calendar the linter says.
func (a *app) readCalendars(values []string) (map[window.ConfigMapKeyRef][]byte, error) {
	out := map[window.ConfigMapKeyRef][]byte{}
	for _, v := range values {
		ref, file, ok := strings.Cut(v, "=")
		name, key, ok2 := strings.Cut(ref, "/")
		if !ok || !ok2 || name == "" || key == "" || file == "" {
			return nil, usageErrorf("--calendar %q: want NAME/KEY=FILE (the ConfigMap and key the plans' exceptions name, and the ICS file)", v)
		}
		data, err := a.readFile("--calendar", file)
		if err != nil {
			return nil, err
		}
		out[window.ConfigMapKeyRef{Name: name, Key: key}] = data
	}
	return out, nil
}

// lintHorizon is the horizon the linter used.
func lintHorizon(d time.Duration) time.Duration {
	if d <= 0 {
		return lint.DefaultHorizon
	}
	return d
}

// planID is how the linter names a plan.
func planID(p *plan.ProtectionPlan) string {
	if p.Name != "" {
		return p.Name
	}
	return p.Spec.Name
}

// printFindings prints each finding as a block (severity, code, plans
// with their files, fields, instants, message), then a summary line.
func printFindings(w io.Writer, ans lintAnswer, files map[string]string) error {
	count := map[lint.Severity]int{}
	for _, f := range ans.Findings {
		count[f.Severity]++
		var plans []string
		for _, id := range f.Plans {
			plans = append(plans, fmt.Sprintf("%s (%s)", id, files[id]))
		}
		fmt.Fprintf(w, "%s %s: %s\n", strings.ToUpper(string(f.Severity)), f.Code, strings.Join(plans, ", "))
		var fields []string
		for _, fl := range f.Fields {
			fields = append(fields, fl.Plan+": "+fl.Path)
		}
		fmt.Fprintf(w, "    fields:   %s\n", strings.Join(fields, ", "))
		if len(f.Instants) > 0 {
			var ts []string
			for _, t := range f.Instants {
				ts = append(ts, t.Format(window.WallLayout))
			}
			fmt.Fprintf(w, "    instants: %s\n", strings.Join(ts, ", "))
		}
		fmt.Fprintf(w, "    %s\n", f.Message)
	}
	for _, e := range ans.Errors {
		fmt.Fprintf(w, "ERROR (not linted): %s\n", e)
	}
	_, err := fmt.Fprintf(w, "%s in %s: %s, %s, %d info (at %s, %s ahead)\n",
		plural(len(ans.Findings), "finding"), plural(ans.Plans, "plan"), plural(count[lint.Error], "error"), plural(count[lint.Warning], "warning"),
		count[lint.Info], ans.Now.Format(time.RFC3339), ans.Horizon)
	return err
}
