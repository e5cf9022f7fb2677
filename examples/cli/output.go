package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// outputFlags are -o/--output and --no-headers. -o means the same in
// every command: the format of standard output, among yaml, json, table
// and name (each command takes those that fit it); without -o, the
// command's human form.
type outputFlags struct {
	format    string
	noHeaders bool
	allowed   []string
}

// register adds -o with its default and the formats allowed, and
// --no-headers when table is one of them.
func (o *outputFlags) register(c *cobra.Command, def string, allowed ...string) {
	o.allowed = allowed
	usage := "output format: " + strings.Join(allowed, ", ")
	if def == "" {
		usage += " (default: the human form)"
	}
	c.Flags().StringVarP(&o.format, "output", "o", def, usage)
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
	if slices.Contains(allowed, "table") {
		c.Flags().BoolVar(&o.noHeaders, "no-headers", false, "print tables without their header (and windows without its preamble)")
	}
}

// check refuses an -o value the command does not print.
func (o *outputFlags) check() error {
	if o.format == "" || slices.Contains(o.allowed, o.format) {
		return nil
	}
	return usageErrorf("-o %q: want one of %s", o.format, strings.Join(o.allowed, ", "))
}

// printObject prints v as YAML or as indented JSON.
func printObject(w io.Writer, format string, v any) error {
	var data []byte
	var err error
	if format == "json" {
		data, err = json.MarshalIndent(v, "", "  ")
		data = append(data, '\n')
	} else {
		data, err = yaml.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", format, err)
	}
	_, err = w.Write(data)
	return err
}

// printItems prints one answer as itself and several as a list of
// {items: [...]}, as kubectl get prints one object or a List.
func printItems[T any](w io.Writer, format string, items []T) error {
	if len(items) == 1 {
		return printObject(w, format, items[0])
	}
	return printObject(w, format, map[string][]T{"items": items})
}

// table writes aligned columns, kubectl style.
type table struct {
	tw *tabwriter.Writer
}

// newTable starts a table with its header, or without when noHeader.
func newTable(w io.Writer, noHeader bool, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)}
	if !noHeader {
		t.row(header...)
	}
	return t
}

// row writes one row; tabs and line breaks in cells become spaces so
// that no text can break the layout.
func (t *table) row(cells ...string) {
	clean := make([]string, len(cells))
	for i, c := range cells {
		clean[i] = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, c)
	}
	fmt.Fprintln(t.tw, strings.Join(clean, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }
