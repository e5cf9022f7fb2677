package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// catalog is what templates prints as YAML or JSON.
type catalog struct {
	Templates []plan.TemplateInfo `json:"templates"`
	Targets   []targetInfo        `json:"targets"`
}

type targetInfo struct {
	Name      render.Target `json:"name"`
	Supported bool          `json:"supported"`
}

func (a *app) templatesCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "templates",
		Short: "List the template catalog: names, scopes and parameters",
		Long: `Templates lists the fixed catalog a plan's spec.templates picks from, in
display order, with the scopes each supports and the names of the
parameters it declares. -o yaml and -o json add descriptions, parameter
types, defaults and allowed values, and the render targets; -o name
prints the template names.`,
		Example: `  protectctl templates
  protectctl templates -o json | jq -r '.templates[].name'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			var cat catalog
			for _, t := range render.Catalog() {
				cat.Templates = append(cat.Templates, t.Info())
			}
			for _, t := range render.Targets() {
				cat.Targets = append(cat.Targets, targetInfo{Name: t, Supported: render.Supported(t)})
			}
			switch out.format {
			case "yaml", "json":
				return printObject(a.stdout, out.format, cat)
			case "name":
				for _, info := range cat.Templates {
					fmt.Fprintln(a.stdout, info.Name)
				}
				return nil
			}
			tw := newTable(a.stdout, out.noHeaders, "NAME", "SCOPES", "PARAMETERS", "TITLE")
			for _, info := range cat.Templates {
				tw.row(info.Name, scopesText(info.Scopes), paramsText(info.Parameters), info.Title)
			}
			return tw.flush()
		},
	}
	out.register(c, "table", "table", "yaml", "json", "name")
	return c
}

func scopesText(scopes []plan.ScopeType) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}

func paramsText(params []plan.ParameterInfo) string {
	if len(params) == 0 {
		return "-"
	}
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p.Name
	}
	return strings.Join(out, " ")
}
