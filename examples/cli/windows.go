package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/calendar"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

// windowsReport is what windows prints as YAML or JSON.
type windowsReport struct {
	Plan string `json:"plan"`
	Name string `json:"name"`
	window.Listing
}

func (a *app) windowsCmd() *cobra.Command {
	var (
		file, from, to, ics, output string
		now                         nowFlag
	)
	c := &cobra.Command{
		Use:   "windows -f PLAN.yaml [--from RFC3339] [--to RFC3339] [--ics FILE]",
		Short: "List the plan's intervals, in the window's zone and in UTC",
		Long: `Windows lists the intervals during which the plan's window is active and
that meet [--from, --to), in the window's time zone and in UTC, under the
window's description. Overlapping and adjacent occurrences are merged; an
interval that runs past the look-around (14 days) is marked open (>= or <=).

--from defaults to --now (the current time). --to defaults to the end of
a time_range window, and to 14 days after --from otherwise (a permanent
window's interval is then cut there, marked "until canceled"). --ics FILE also writes the intervals as an iCalendar file
(RFC 5545, one event per interval, UIDs stable across runs) that calendar
apps import; --ics - writes it to standard output instead of the table.`,
		Example: `  # The next two weeks of the nightly freeze:
  protectctl windows -f plans/nightly-image-freeze.yaml --from 2026-10-20T00:00:00Z --to 2026-11-03T00:00:00Z

  # Put the holiday freeze in everyone's calendar:
  protectctl windows -f plans/holiday-freeze.yaml --ics holiday-freeze.ics`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(output, "table", "yaml", "json"); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			p, w, err := a.loadWindow(file, t)
			if err != nil {
				return err
			}
			rep, err := listing(p, w, t, from, to)
			if err != nil {
				return err
			}
			if ics != "" {
				cal := calendar.ForPlan(p, rep.Listing, t)
				cal.ProductID = "-//telark//protectctl//EN"
				if err := a.writeOutput("--ics", ics, cal.Encode); err != nil {
					return err
				}
				if ics == "-" {
					return nil
				}
			}
			if output != "table" {
				return printObject(a.stdout, output, rep)
			}
			return printWindows(a.stdout, rep)
		},
	}
	fileFlag(c, &file)
	now.register(c, "the default of --from, and the DTSTAMP of --ics")
	c.Flags().StringVar(&from, "from", "", "list intervals that end after this instant (RFC 3339; default --now)")
	c.Flags().StringVar(&to, "to", "", "list intervals that start before this instant (RFC 3339; default the end of a time_range window, else 14 days after --from)")
	c.Flags().StringVar(&ics, "ics", "", "also write the intervals as an iCalendar file (- for standard output)")
	outputFlag(c, &output, "table", "output format: table, yaml or json")
	return c
}

// loadWindow reads the plan and checks it offline; the plan is defaulted
// as a create at now would default it.
func (a *app) loadWindow(file string, now time.Time) (*plan.ProtectionPlan, *window.Window, error) {
	p, err := a.loadPlan(file)
	if err != nil {
		return nil, nil, err
	}
	p, w, err := reconcile.Offline{}.Window(p, now)
	return p, w, planError(file, err)
}

// listing lists the window's intervals in the range the flags give.
func listing(p *plan.ProtectionPlan, w *window.Window, now time.Time, fromFlag, toFlag string) (windowsReport, error) {
	from, to := now, time.Time{}
	var err error
	if fromFlag != "" {
		if from, err = parseInstant("--from", fromFlag); err != nil {
			return windowsReport{}, err
		}
	}
	if toFlag != "" {
		if to, err = parseInstant("--to", toFlag); err != nil {
			return windowsReport{}, err
		}
		if !from.Before(to) {
			return windowsReport{}, usageErrorf("--from %s is not before --to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
		}
	}
	return windowsReport{Plan: p.Name, Name: p.Spec.Name, Listing: w.List(from, to)}, nil
}

func printWindows(w io.Writer, rep windowsReport) error {
	fmt.Fprintf(w, "Plan:    %s (%s)\n", rep.Plan, rep.Name)
	fmt.Fprintf(w, "Window:  %s\n", rep.Window)
	fmt.Fprintf(w, "Range:   %s to %s\n\n", rep.From.Format(time.RFC3339), rep.To.Format(time.RFC3339))
	if len(rep.Intervals) == 0 {
		_, err := fmt.Fprintln(w, "No intervals in this range.")
		return err
	}
	header, rows := rep.Table()
	tw := newTable(w, header...)
	for _, row := range rows {
		tw.row(row...)
	}
	return tw.flush()
}
