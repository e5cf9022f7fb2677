package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// explanation is explain's answer, as -o yaml and -o json print it.
type explanation struct {
	// Verdict is blocked (refused in enforce mode), audited (admitted and
	// recorded in audit mode) or admitted (no rule applies).
	Verdict string     `json:"decision"`
	Plan    string     `json:"plan"`
	Phase   plan.Phase `json:"phase"`
	Now     time.Time  `json:"now"`
	Request string     `json:"request"`
	// Target is the render target whose policies Policy names.
	Target render.Target `json:"target"`
	// The rule that applies, or why none does.
	render.Decision
}

func (a *app) explainCmd() *cobra.Command {
	var (
		files   []string
		reqFile string
		out     outputFlags
		now     nowFlag
		cluster clusterFlags
		pending bool
		labels  map[string]string
		target  targetFlags
	)
	c := &cobra.Command{
		Use:   "explain -f PLAN.yaml... --request REQ.yaml [--now RFC3339|DATE] [--cluster SNAPSHOT.yaml] [--target T [--compact]]",
		Short: "Say whether the plan would block a change, with the template and the message",
		Long: `Explain answers "would this change be blocked?" from the library's
reference semantics of the rendered policies (render.Explain, which the
end-to-end tests hold real Kyverno to), for each plan as it is at --now.

The request is an admission.k8s.io/v1 AdmissionReview, or a small file:
operation, apiVersion (optional for the catalog's kinds), kind, subresource,
namespace, name, user, groups, parentLabels, object, oldObject. Labels come
from the objects (the old one on DELETE); a /scale request reads its
parent's labels from parentLabels or --labels (a Scale has none).

Exit status, as kubectl diff: 0 when the change is admitted and nothing is
recorded; 1 when a rule of any plan applies (blocked in enforce mode,
admitted and recorded in audit mode); 2 on usage errors.`,
		Example: `  # Would kubectl scale be refused in business hours?
  protectctl explain -f plans/production-release.yaml --cluster cli/samples/cluster.yaml \
    --request cli/samples/requests/scale-payments-api.yaml --now 2026-11-18T12:00:00Z

  # The same question from an AdmissionReview, as JSON:
  protectctl explain -f plans/nightly-image-freeze.yaml --cluster cli/samples/cluster.yaml \
    --request cli/samples/requests/review-image-change.json --now 2026-11-30T23:00:00+01:00 -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.check(); err != nil {
				return err
			}
			if err := target.check(); err != nil {
				return err
			}
			t, err := now.get(a)
			if err != nil {
				return err
			}
			req, err := a.loadRequest(reqFile)
			if err != nil {
				return err
			}
			if len(labels) > 0 {
				req.Labels = labels
			}
			off, err := cluster.offline(a)
			if err != nil {
				return err
			}
			if req.NamespaceLabels == nil {
				// What a plan on namespace selectors selects: the
				// snapshot's labels of the request's namespace.
				req.NamespaceLabels = cluster.namespaceLabels(req.Namespace)
			}
			var (
				exs     []explanation
				applies bool
			)
			tgt := render.Target(target.target)
			err = a.eachPreview(files, off, t, pending, func(d planDoc, pv reconcile.Preview) error {
				dec, err := render.Explain(pv.Input(tgt, target.compact), req)
				if err != nil {
					return renderError(d, tgt, err)
				}
				applies = applies || dec.Blocked || dec.Audited
				exs = append(exs, explanation{Verdict: dec.Verdict(), Plan: pv.Plan.Name, Phase: pv.Plan.Status.Phase,
					Now: t, Request: req.Summary(), Target: tgt, Decision: dec})
				return nil
			})
			if err != nil {
				return err
			}
			if err := printExplanations(a.stdout, out, exs); err != nil {
				return err
			}
			if applies {
				return exitSilently(exitFailed)
			}
			return nil
		},
	}
	fileFlag(c, &files)
	c.Flags().StringVar(&reqFile, "request", "", "the request: an AdmissionReview or a small request file (YAML or JSON; - reads standard input)")
	_ = c.MarkFlagRequired("request")
	now.register(c, "the instant of the request")
	cluster.register(c, true)
	c.Flags().StringToStringVar(&labels, "labels", nil, "the labels of the parent of a /scale request, e.g. app=checkout (overrides parentLabels)")
	target.register(c, "the target whose policies the answer names (they decide alike; vap matches /scale by the applications' members as resolved)")
	c.Flags().BoolVar(&pending, "pending", false, "treat a plan that requires approval as still waiting for it (it blocks nothing)")
	out.register(c, "", "table", "yaml", "json")
	return c
}

func printExplanations(w io.Writer, out outputFlags, exs []explanation) error {
	switch out.format {
	case "yaml", "json":
		return printItems(w, out.format, exs)
	case "table":
		tw := newTable(w, out.noHeaders, "PLAN", "DECISION", "TEMPLATE", "POLICY", "MESSAGE", "REASON")
		for _, ex := range exs {
			tw.row(ex.Plan, ex.Verdict, dash(ex.Template), dash(ex.PolicyRef(ex.Target)), dash(ex.Message), ex.Reason)
		}
		return tw.flush()
	}
	for i, ex := range exs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		tw := newTable(w, false, "Decision:", ex.Verdict)
		tw.row("Request:", ex.Request)
		tw.row("Plan:", fmt.Sprintf("%s (%s at %s)", ex.Plan, ex.Phase, ex.Now.Format(time.RFC3339)))
		if ex.Template != "" {
			tw.row("Template:", ex.Template)
			tw.row("Policy:", ex.PolicyRef(ex.Target))
			tw.row("Rule:", ex.Rule)
			tw.row("Message:", ex.Message)
		}
		tw.row("Reason:", ex.Reason)
		if err := tw.flush(); err != nil {
			return err
		}
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
