package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/calendar"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

// windowsReport is what windows prints as YAML or JSON, for each plan.
type windowsReport struct {
	Plan string `json:"plan"`
	Name string `json:"name"`
	window.Listing
}

func (a *app) windowsCmd() *cobra.Command {
	var (
		files         []string
		from, to, ics string
		calendars     []string
		now           nowFlag
		out           outputFlags
	)
	c := &cobra.Command{
		Use:   "windows -f PLAN.yaml... [--from RFC3339|DATE] [--to RFC3339|DATE] [--ics FILE]",
		Short: "List the plans' intervals, in the window's zone and in UTC, and which is active",
		Long: `Windows lists the intervals during which each plan's window is active and
that meet [--from, --to), in the window's time zone and in UTC, under the
window's description; ACTIVE says which holds --now. Overlapping and
adjacent occurrences are merged; an interval that runs past the
look-around (14 days) is marked open (>= or <=).

--from defaults to --now (the current time). --to defaults to the end of
a time_range window, and to 14 days after --from otherwise (a permanent
window's interval is then cut there, marked "until canceled"). A date is
its midnight in UTC. --ics FILE also writes the intervals as an iCalendar
file (RFC 5545, one event per interval, UIDs stable across runs) that
calendar apps import; --ics - writes it to standard output instead of the
table.`,
		Example: `  # The next two weeks of the nightly freeze:
  protectctl windows -f plans/nightly-image-freeze.yaml --from 2026-10-20 --to 2026-11-03

  # Put every freeze in everyone's calendar:
  protectctl windows -f plans/ --ics freezes.ics`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			docs, err := a.readPlans(files)
			if err != nil {
				return err
			}
			texts, err := a.readCalendars(calendars)
			if err != nil {
				return err
			}
			reps, cal, err := listings(docs, reconcile.Offline{Calendars: texts}, t, from, to)
			if err != nil {
				return err
			}
			if ics != "" {
				if err := a.writeOutput("--ics", ics, cal.Encode); err != nil || ics == "-" {
					return err
				}
			}
			if out.format != "table" {
				return printItems(a.stdout, out.format, reps)
			}
			for i, rep := range reps {
				if i > 0 && !out.noHeaders {
					fmt.Fprintln(a.stdout)
				}
				if err := printWindows(a.stdout, rep, out.noHeaders); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fileFlag(c, &files)
	now.register(c, "the default of --from, the instant ACTIVE is about, and the DTSTAMP of --ics")
	c.Flags().StringVar(&from, "from", "", "list intervals that end after this instant (RFC 3339 or a date; default --now)")
	c.Flags().StringVar(&to, "to", "", "list intervals that start before this instant (RFC 3339 or a date; default the end of a time_range window, else 14 days after --from)")
	c.Flags().StringVar(&ics, "ics", "", "also write the intervals as an iCalendar file (- for standard output)")
	calendarFlag(c, &calendars)
	out.register(c, "table", "table", "yaml", "json")
	return c
}

// listings lists each plan's window in the range the flags give, at now,
// and the calendar of them all. Each plan is checked offline and defaulted
// as a create at now would default it.
func listings(docs []planDoc, off reconcile.Offline, now time.Time, fromFlag, toFlag string) ([]windowsReport, calendar.Calendar, error) {
	from, to := now, time.Time{}
	var err error
	if fromFlag != "" {
		if from, err = parseInstant("--from", fromFlag); err != nil {
			return nil, calendar.Calendar{}, err
		}
	}
	if toFlag != "" {
		if to, err = parseInstant("--to", toFlag); err != nil {
			return nil, calendar.Calendar{}, err
		}
		if !from.Before(to) {
			return nil, calendar.Calendar{}, usageErrorf("--from %s is not before --to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
		}
	}
	var (
		reps []windowsReport
		cal  calendar.Calendar
		errs []error
	)
	for _, d := range docs {
		if err := d.failed(); err != nil {
			errs = append(errs, err)
			continue
		}
		p, w, err := off.Window(d.plan, now, from, to)
		if err != nil {
			errs = append(errs, planError(d, err))
			continue
		}
		rep := windowsReport{Plan: p.Name, Name: p.Spec.Name, Listing: w.ListAt(from, to, now)}
		one := calendar.ForPlan(p, rep.Listing, now)
		if cal.Name = one.Name; len(reps) > 0 {
			cal.Name = "Change freezes"
		}
		cal.Stamp, cal.Events = one.Stamp, append(cal.Events, one.Events...)
		reps = append(reps, rep)
	}
	cal.ProductID = "-//telark//protectctl//EN"
	return reps, cal, joinExit(errs)
}

func printWindows(w io.Writer, rep windowsReport, noHeaders bool) error {
	if !noHeaders {
		fmt.Fprintf(w, "Plan:    %s (%s)\n", rep.Plan, rep.Name)
		fmt.Fprintf(w, "Window:  %s\n", rep.Window)
		fmt.Fprintf(w, "Range:   %s to %s\n\n", rep.From.Format(time.RFC3339), rep.To.Format(time.RFC3339))
		if len(rep.Intervals) == 0 {
			_, err := fmt.Fprintln(w, "No intervals in this range.")
			return err
		}
	}
	header, rows := rep.Table()
	tw := newTable(w, noHeaders, header...)
	for _, row := range rows {
		tw.row(row...)
	}
	return tw.flush()
}
