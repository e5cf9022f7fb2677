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

// outputFlag registers -o/--output with its default.
func outputFlag(c *cobra.Command, into *string, def, usage string) {
	c.Flags().StringVarP(into, "output", "o", def, usage)
}

// checkOutput refuses an -o value the command does not print.
func checkOutput(got string, allowed ...string) error {
	if slices.Contains(allowed, got) {
		return nil
	}
	return usageErrorf("-o %q: want one of %s", got, strings.Join(allowed, ", "))
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

// table writes aligned columns, kubectl style.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)}
	t.row(header...)
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
