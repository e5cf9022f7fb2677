package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/render"
)

func (a *app) renderCmd() *cobra.Command {
	var (
		file    string
		now     nowFlag
		target  targetFlags
		cluster clusterFlags
		pending bool
		output  string
	)
	c := &cobra.Command{
		Use:   "render -f PLAN.yaml [--now RFC3339] [--target kyverno|kyverno-cel|vap [--compact]] [--namespaces a,b | --cluster SNAPSHOT.yaml]",
		Short: "Print the policies the plan would have in the cluster at an instant",
		Long: `Render prints the admission policies the plan would have in the cluster at
--now, as a YAML stream that kubectl apply -f - accepts (-o json: a v1
List). A plan that is not active then renders nothing (a note on stderr
says why) and exits 0.

The plan is checked first (offline, or against --cluster / --namespaces),
then created and ticked to --now exactly as the operator would. A plan
that requires approval is previewed as approved; --pending shows it
waiting (nothing rendered). An applications scope needs --cluster: the
snapshot's applications give their namespaces and label selectors.

Targets: kyverno (kyverno.io/v1 Policy, the default); kyverno-cel
(policies.kyverno.io/v1 NamespacedValidatingPolicy, Kyverno's CEL
policies); vap (a native ValidatingAdmissionPolicy and its binding per
template and namespace: the API server enforces them, no Kyverno needed).
--compact renders one policy per namespace holding every template: a
write in scope then crosses one policy (for kyverno-cel, one webhook)
instead of one per template; messages stay per template.`,
		Example: `  # The policies of the holiday freeze on Christmas Day, applied to a cluster:
  protectctl render -f plans/holiday-freeze.yaml --now 2026-12-25T12:00:00+01:00 | kubectl apply -f -

  # An applications plan, its applications resolved from a snapshot:
  protectctl render -f plans/nightly-image-freeze.yaml --cluster cli/samples/cluster.yaml --now 2026-11-30T23:00:00+01:00

  # The same freeze as native ValidatingAdmissionPolicies:
  protectctl render -f plans/holiday-freeze.yaml --now 2026-12-25T12:00:00+01:00 --target vap`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(output, "yaml", "json"); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			if err := target.check(file); err != nil {
				return err
			}
			pv, err := a.loadPreview(file, t, &cluster, pending)
			if err != nil {
				return err
			}
			res, err := render.Render(pv.Input(render.Target(target.target), target.compact))
			if err != nil {
				return renderError(file, render.Target(target.target), err)
			}
			if len(res.Policies) == 0 {
				fmt.Fprintf(a.stderr, "protectctl: no policies: %s\n", pv.Note())
				if output == "yaml" {
					return nil
				}
			}
			return printPolicies(a, output, res)
		},
	}
	fileFlag(c, &file)
	now.register(c, "the instant to render at")
	target.register(c, "the kind of policy to render")
	cluster.register(c, true)
	c.Flags().BoolVar(&pending, "pending", false, "show a plan that requires approval as still waiting for it (it renders nothing)")
	outputFlag(c, &output, "yaml", "output format: yaml (a stream for kubectl apply -f -) or json (a v1 List)")
	return c
}

// printPolicies writes the render: the library's YAML stream, or the
// objects as a v1 List.
func printPolicies(a *app, format string, res render.Result) error {
	if format == "yaml" {
		data, err := res.YAML()
		if err != nil {
			return fmt.Errorf("writing YAML: %w", err)
		}
		_, err = a.stdout.Write(data)
		return err
	}
	items := []any{}
	for _, o := range res.Objects() {
		items = append(items, o.Object)
	}
	return printObject(a.stdout, "json", map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"items":      items,
	})
}
