package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionInfo is what version prints: protectctl's build, from the Go
// build information.
type versionInfo struct {
	// Version is the examples module's version; (devel) when built from a
	// checkout.
	Version string `json:"version"`
	// Library is the version of github.com/telark/protectionplans built
	// in, and where a replace directive took it from.
	Library string `json:"library"`
	// Commit is the VCS revision, when the build recorded one; Modified
	// says whether the work tree had changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

func buildVersion() versionInfo {
	v := versionInfo{Version: "(unknown)", Library: "(unknown)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Version, v.Go = bi.Main.Version, bi.GoVersion
	for _, d := range bi.Deps {
		if d.Path == "github.com/telark/protectionplans" {
			v.Library = d.Version
			if d.Replace != nil {
				v.Library = d.Replace.Path + " " + d.Replace.Version
			}
		}
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

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
			v := buildVersion()
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
