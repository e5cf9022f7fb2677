package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

func (a *app) renderCmd() *cobra.Command {
	var (
		files   []string
		now     nowFlag
		target  targetFlags
		cluster clusterFlags
		pending bool
		out     outputFlags
	)
	c := &cobra.Command{
		Use:   "render -f PLAN.yaml... [--now RFC3339|DATE] [--target kyverno|kyverno-cel|vap [--compact]] [--namespaces a,b | --cluster SNAPSHOT.yaml]",
		Short: "Print the policies the plans would have in the cluster at an instant",
		Long: `Render prints the admission policies the plans would have in the cluster
at --now, as a YAML stream that kubectl apply -f - accepts (-o json: a v1
List; -o name: kind.group/name of each; -o table: a row each). A plan
that is not active then renders nothing (a note on stderr says why) and
exits 0. Every document of every -f is a plan; if any is invalid, nothing
is printed and every invalid plan is reported.

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
			if err := out.check(); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			if err := target.check(); err != nil {
				return err
			}
			off, err := cluster.offline(a)
			if err != nil {
				return err
			}
			var all render.Result
			tgt := render.Target(target.target)
			err = a.eachPreview(files, off, t, pending, func(d planDoc, pv reconcile.Preview) error {
				res, err := render.Render(pv.Input(tgt, target.compact))
				if err != nil {
					return renderError(d, tgt, err)
				}
				if len(res.Policies) == 0 {
					fmt.Fprintf(a.stderr, "protectctl: no policies: %s\n", pv.Note())
				}
				all.Policies = append(all.Policies, res.Policies...)
				return nil
			})
			if err != nil {
				return err
			}
			return printPolicies(a, out, all)
		},
	}
	fileFlag(c, &files)
	now.register(c, "the instant to render at")
	target.register(c, "the kind of policy to render")
	cluster.register(c, true)
	c.Flags().BoolVar(&pending, "pending", false, "show a plan that requires approval as still waiting for it (it renders nothing)")
	out.register(c, "yaml", "yaml", "json", "name", "table")
	return c
}

// printPolicies writes the render: the library's YAML stream, the objects
// as a v1 List, their names, or a table.
func printPolicies(a *app, out outputFlags, res render.Result) error {
	switch out.format {
	case "yaml":
		if len(res.Policies) == 0 {
			return nil
		}
		data, err := res.YAML()
		if err != nil {
			return fmt.Errorf("writing YAML: %w", err)
		}
		_, err = a.stdout.Write(data)
		return err
	case "name":
		for _, o := range res.Objects() {
			gvk := o.GroupVersionKind()
			fmt.Fprintf(a.stdout, "%s/%s\n", strings.ToLower(strings.TrimSuffix(gvk.Kind+"."+gvk.Group, ".")), o.GetName())
		}
		return nil
	case "table":
		tw := newTable(a.stdout, out.noHeaders, "NAMESPACE", "NAME", "KIND", "PLAN", "TEMPLATE")
		for _, o := range res.Objects() {
			tw.row(dash(o.GetNamespace()), o.GetName(), o.GetKind(), o.GetLabels()[render.LabelPlan], dash(o.GetLabels()[render.LabelTemplate]))
		}
		return tw.flush()
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
