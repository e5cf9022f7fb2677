package main

import (
	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/examples/internal/buildinfo"
)

func (a *app) versionCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print protectctl's version, the library's and Go's",
		Example: "  protectctl version\n  protectctl version -o json",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			v := buildinfo.Read()
			if out.format != "" {
				return printObject(a.stdout, out.format, v)
			}
			commit := v.Commit
			if v.Modified {
				commit += " (modified)"
			}
			tw := newTable(a.stdout, false, "protectctl:", v.Version)
			tw.row("library:", v.Library)
			if commit != "" {
				tw.row("commit:", commit)
			}
			tw.row("go:", v.Go)
			return tw.flush()
		},
	}
	out.register(c, "", "yaml", "json")
	return c
}
