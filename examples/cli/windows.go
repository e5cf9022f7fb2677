package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// windowsReport is what windows prints as YAML or JSON.
type windowsReport struct {
	Plan      string     `json:"plan"`
	Name      string     `json:"name"`
	Window    string     `json:"window"`
	TimeZone  string     `json:"timeZone"`
	From      time.Time  `json:"from"`
	To        time.Time  `json:"to"`
	Intervals []interval `json:"intervals"`
}

// interval is one interval of activity, in the window's zone and in UTC.
// An open side lies beyond the look-around (or, for a permanent window,
// never comes): the time given is a bound, not the edge.
type interval struct {
	Start     *time.Time `json:"start,omitempty"`
	End       *time.Time `json:"end,omitempty"`
	StartUTC  *time.Time `json:"startUTC,omitempty"`
	EndUTC    *time.Time `json:"endUTC,omitempty"`
	OpenStart bool       `json:"openStart,omitempty"`
	OpenEnd   bool       `json:"openEnd,omitempty"`
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
			rep, err := windowRange(p, w, t, from, to)
			if err != nil {
				return err
			}
			if ics != "" {
				cal := calendarOf(p, w, rep, t)
				if err := a.writeOutput("--ics", ics, func(out io.Writer) error { return writeICS(out, cal) }); err != nil {
					return err
				}
				if ics == "-" {
					return nil
				}
			}
			if output != "table" {
				return printObject(a.stdout, output, rep)
			}
			return printWindows(a.stdout, w, rep)
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

// loadWindow reads the plan, checks it offline and compiles its window,
// defaulted as Create would default it at now.
func (a *app) loadWindow(file string, now time.Time) (*plan.ProtectionPlan, *window.Window, error) {
	p, err := a.loadPlan(file)
	if err != nil {
		return nil, nil, err
	}
	plan.Defaults(p, now)
	if err := checkPlan(file, p, snapshot{}.env(time.Time{}, false)); err != nil {
		return nil, nil, err
	}
	w, err := window.Parse(p.Spec.Window)
	if err != nil {
		return nil, nil, failedf("%s: %v (%d)", file, err, plan.CodeOf(err))
	}
	return p, w, nil
}

// windowRange queries the window's intervals in the range the flags give.
func windowRange(p *plan.ProtectionPlan, w *window.Window, now time.Time, fromFlag, toFlag string) (windowsReport, error) {
	from, to := now, time.Time{}
	var err error
	if fromFlag != "" {
		if from, err = parseInstant("--from", fromFlag); err != nil {
			return windowsReport{}, err
		}
	}
	switch {
	case toFlag != "":
		if to, err = parseInstant("--to", toFlag); err != nil {
			return windowsReport{}, err
		}
	default:
		to = from.Add(window.DefaultLookAround)
		if end := p.Spec.Window.EndAt; w.Type() == window.TimeRange && end.After(from) {
			to = end.Time
		}
	}
	if !from.Before(to) {
		return windowsReport{}, usageErrorf("--from %s is not before --to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	rep := windowsReport{Plan: p.Name, Name: p.Spec.Name, Window: w.Describe(),
		TimeZone: w.Location().String(), From: from, To: to, Intervals: []interval{}}
	for _, iv := range w.Occurrences(from, to) {
		rep.Intervals = append(rep.Intervals, intervalOf(iv))
	}
	return rep, nil
}

func intervalOf(iv window.Interval) interval {
	out := interval{OpenStart: iv.OpenStart, OpenEnd: iv.OpenEnd}
	if !iv.Start.IsZero() {
		s, u := iv.Start, iv.Start.UTC()
		out.Start, out.StartUTC = &s, &u
	}
	if !iv.End.IsZero() {
		e, u := iv.End, iv.End.UTC()
		out.End, out.EndUTC = &e, &u
	}
	return out
}

// wallLayout is how the table writes instants.
const wallLayout = "Mon 2006-01-02 15:04 MST"

func printWindows(w io.Writer, win *window.Window, rep windowsReport) error {
	fmt.Fprintf(w, "Plan:    %s (%s)\n", rep.Plan, rep.Name)
	fmt.Fprintf(w, "Window:  %s\n", rep.Window)
	fmt.Fprintf(w, "Range:   %s to %s\n\n", rep.From.Format(time.RFC3339), rep.To.Format(time.RFC3339))
	if len(rep.Intervals) == 0 {
		_, err := fmt.Fprintln(w, "No intervals in this range.")
		return err
	}
	// A window in UTC gets the UTC columns once.
	zone := win.Location().String()
	utc := zone != "UTC"
	header := []string{"START (" + zone + ")", "END (" + zone + ")"}
	if utc {
		header = append(header, "START (UTC)", "END (UTC)")
	}
	tw := newTable(w, append(header, "LENGTH")...)
	for _, iv := range rep.Intervals {
		row := []string{edgeText(iv.Start, iv.OpenStart, "<= ", "since ever"), edgeText(iv.End, iv.OpenEnd, ">= ", "until canceled")}
		if utc {
			row = append(row, edgeText(iv.StartUTC, iv.OpenStart, "<= ", "since ever"), edgeText(iv.EndUTC, iv.OpenEnd, ">= ", "until canceled"))
		}
		tw.row(append(row, lengthText(iv))...)
	}
	return tw.flush()
}

func edgeText(t *time.Time, open bool, bound, none string) string {
	switch {
	case t == nil:
		return none
	case open:
		return bound + t.Format(wallLayout)
	}
	return t.Format(wallLayout)
}

func lengthText(iv interval) string {
	if iv.Start == nil || iv.End == nil {
		return "-"
	}
	d := iv.End.Sub(*iv.Start).Round(time.Minute)
	s := d.String()
	if len(s) > 2 && s[len(s)-2:] == "0s" {
		s = s[:len(s)-2]
	}
	if len(s) > 2 && s[len(s)-2:] == "0m" && s != "0m" {
		s = s[:len(s)-2]
	}
	if iv.OpenStart || iv.OpenEnd {
		s = ">= " + s
	}
	return s
}
