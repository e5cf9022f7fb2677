package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// clusterFlags are --cluster SNAPSHOT.yaml and its shorthand --namespaces
// a,b (a snapshot that lists only the namespaces that exist).
type clusterFlags struct {
	file       string
	namespaces []string
	calendars  []string
	snapshot   plantest.Cluster // --cluster's, once offline read it
}

// namespaceLabels are the labels --cluster gives namespace (its
// namespaceLabels), nil without them.
func (f *clusterFlags) namespaceLabels(namespace string) map[string]string {
	return f.snapshot.NamespaceLabels[namespace]
}

func (f *clusterFlags) register(c *cobra.Command, withNamespaces bool) {
	c.Flags().StringVar(&f.file, "cluster", "",
		"a cluster snapshot (YAML or JSON: namespaces, releaseNamespace, excludedNamespaces, plans, applications) to check the plan against and resolve its applications")
	if withNamespaces {
		c.Flags().StringSliceVar(&f.namespaces, "namespaces", nil,
			"the namespaces that exist in the cluster (a snapshot listing only them); instead of --cluster")
	}
	calendarFlag(c, &f.calendars)
}

// offline is what the flags tell of the cluster: --cluster all of the
// snapshot, --namespaces only which namespaces exist, neither nothing (the
// checks that need a cluster are skipped). protectctl creates the plans
// it simulates, and protectctl-approver approves them.
func (f *clusterFlags) offline(a *app) (reconcile.Offline, error) {
	o := reconcile.Offline{User: "protectctl", Approver: "protectctl-approver"}
	texts, err := a.readCalendars(f.calendars)
	if err != nil {
		return o, err
	}
	o.Calendars = texts
	switch {
	case f.file != "" && len(f.namespaces) > 0:
		return o, usageErrorf("--cluster and --namespaces: give one of them")
	case f.file != "":
		s, err := a.loadSnapshot(f.file)
		f.snapshot = s
		o.Cluster, o.Applications, o.Names = s, s, s
		o.ReleaseNamespace, o.ExcludedNamespaces, o.Kinds = s.ReleaseNamespace, s.ExcludedNamespaces, s.Kinds
		return o, err
	case len(f.namespaces) > 0:
		o.Cluster = plantest.Cluster{Namespaces: f.namespaces}
	}
	return o, nil
}

// preview previews a plan at now (reconcile.Offline.Preview). Errors: a
// usage error for an applications scope without --cluster; an invalid
// plan (exit 1) otherwise.
// eachPreview reads the plans of files, previews each at now (preview)
// and calls fn with it, so that one plan's problem does not hide the
// others': every document's problem is reported (joinExit).
func (a *app) eachPreview(files []string, off reconcile.Offline, now time.Time, pending bool, fn func(planDoc, reconcile.Preview) error) error {
	docs, err := a.readPlans(files)
	if err != nil {
		return err
	}
	var errs []error
	for _, d := range docs {
		err := d.failed()
		if err == nil {
			var pv reconcile.Preview
			if pv, err = preview(off, d, now, pending); err == nil {
				if c := pv.Calendars; c != nil && c.Status != metav1.ConditionTrue {
					hint := ""
					if c.Reason == reconcile.ReasonCalendarMissing {
						hint = " (give its ICS file with --calendar NAME/KEY=FILE)"
					}
					fmt.Fprintf(a.stderr, "protectctl: %s: %s%s\n", d, c.Message, hint)
				}
				err = fn(d, pv)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return joinExit(errs)
}

func preview(off reconcile.Offline, d planDoc, now time.Time, pending bool) (reconcile.Preview, error) {
	pv, err := off.Preview(d.plan, now, pending)
	var ae *reconcile.ApplicationsUnknownError
	if errors.As(err, &ae) {
		return pv, usageErrorf("%s: the plan's scope is applications (%s): give --cluster SNAPSHOT.yaml to resolve them",
			d, strings.Join(ae.Applications, ", "))
	}
	return pv, planError(d, err)
}

// planError is exit status 1 for a plan the library refuses: every
// problem of a validation error on one line, or the error and its code.
func planError(d planDoc, err error) error {
	var ve *plan.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return failedf("%s: %s", d, problemLines(plan.ProblemsOf(err)))
	}
	return failedf("%s: %v (%d)", d, err, plan.CodeOf(err))
}

func problemLines(ps []plan.Problem) string { return joinProblems(ps, "; ") }

// joinProblems writes each problem with its field and code, sep between.
func joinProblems(ps []plan.Problem, sep string) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, sep)
}

// targetFlags are --target and --compact: what render renders, and whose
// policies explain names.
type targetFlags struct {
	target  string
	compact bool
}

func (t *targetFlags) register(c *cobra.Command, what string) {
	c.Flags().StringVar(&t.target, "target", string(render.TargetKyverno), what+": "+supportedTargets())
	_ = c.RegisterFlagCompletionFunc("target", cobra.FixedCompletions(strings.Split(supportedTargets(), ", "), cobra.ShellCompDirectiveNoFileComp))
	c.Flags().BoolVar(&t.compact, "compact", false, "the compact layout: one policy per namespace holding every template")
}

// check refuses an unknown target (a usage error, before the plan is
// read).
func (t targetFlags) check() error {
	tgt := render.Target(t.target)
	if !render.Supported(tgt) {
		return renderError(planDoc{}, tgt, &render.UnsupportedTargetError{Target: tgt})
	}
	return nil
}

// renderError is exit status 2 for a target protectctl cannot render to,
// 1 for a plan the renderer refuses.
func renderError(d planDoc, target render.Target, err error) error {
	var ute *render.UnsupportedTargetError
	if errors.As(err, &ute) {
		return usageErrorf("--target %s: %v; supported: %s", target, err, supportedTargets())
	}
	return planError(d, err)
}

func supportedTargets() string {
	var names []string
	for _, t := range render.Targets() {
		if render.Supported(t) {
			names = append(names, string(t))
		}
	}
	return strings.Join(names, ", ")
}
