package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// clusterFlags are --cluster SNAPSHOT.yaml and its shorthand --namespaces
// a,b (a snapshot that lists only the namespaces that exist).
type clusterFlags struct {
	file       string
	namespaces []string
	// withNamespaces: the command offers --namespaces.
	withNamespaces bool
}

func (f *clusterFlags) register(c *cobra.Command, withNamespaces bool) {
	c.Flags().StringVar(&f.file, "cluster", "",
		"a cluster snapshot (YAML or JSON: namespaces, releaseNamespace, excludedNamespaces, plans, applications) to check the plan against and resolve its applications")
	f.withNamespaces = withNamespaces
	if withNamespaces {
		c.Flags().StringSliceVar(&f.namespaces, "namespaces", nil,
			"the namespaces that exist in the cluster (a snapshot listing only them); instead of --cluster")
	}
}

// snapshot is the cluster the flags describe.
type snapshot struct {
	plan.ClusterSnapshot
	// given: --cluster or --namespaces was set.
	given bool
	// full: --cluster was set, so applications resolve and the release
	// and excluded namespaces are known.
	full bool
}

func (f *clusterFlags) load(a *app) (snapshot, error) {
	switch {
	case f.file != "" && len(f.namespaces) > 0:
		return snapshot{}, usageErrorf("--cluster and --namespaces: give one of them")
	case f.file != "":
		s, err := a.loadSnapshot(f.file)
		return snapshot{ClusterSnapshot: s, given: true, full: true}, err
	case len(f.namespaces) > 0:
		return snapshot{ClusterSnapshot: plan.ClusterSnapshot{Namespaces: f.namespaces}, given: true}, nil
	}
	return snapshot{}, nil
}

// env is the validation environment the snapshot gives: without one, the
// checks that need a cluster are skipped (plan.ValidationEnv says so).
func (s snapshot) env(now time.Time, withNames bool) plan.ValidationEnv {
	env := plan.ValidationEnv{Now: now, Catalog: render.DefaultCatalog}
	if s.given {
		env.Cluster = s.ClusterSnapshot
	}
	if s.full {
		env.Applications = s.ClusterSnapshot
		if withNames {
			env.Names = s.ClusterSnapshot
		}
	}
	return env
}

// preview is a plan as the operator would hold it at an instant: decoded,
// checked, created, approved when it requires approval (unless --pending),
// ticked to the instant, with its applications resolved.
type preview struct {
	file string
	plan *plan.ProtectionPlan
	apps []plan.Application
	now  time.Time
}

// previewUser and previewApprover are the actors of the simulated create
// and approval (an approver may not be the proposer).
const (
	previewUser     = "protectctl"
	previewApprover = "protectctl-approver"
)

// loadPreview builds the preview of the plan file at now. Errors: a usage
// error for unreadable files and an applications scope without --cluster;
// an invalid plan (exit 1) when it cannot be decoded, fails validation
// against the snapshot, or cannot be created.
func (a *app) loadPreview(file string, now time.Time, cf *clusterFlags, pending bool) (*preview, error) {
	p, err := a.loadPlan(file)
	if err != nil {
		return nil, err
	}
	snap, err := cf.load(a)
	if err != nil {
		return nil, err
	}
	if p.Spec.Scope.Type() == plan.ScopeApplications && !snap.full {
		return nil, usageErrorf("%s: the plan's scope is applications (%s): give --cluster SNAPSHOT.yaml to resolve them",
			file, strings.Join(p.Spec.Scope.Applications, ", "))
	}
	p = p.DeepCopy()
	plan.Defaults(p, now)
	// A preview may be asked for after the window ended (it renders
	// nothing), so the end is not checked here: the zero instant comes
	// before every window. The plan's own name is not checked either: it
	// may be in the cluster already.
	if err := checkPlan(file, p, snap.env(time.Time{}, false)); err != nil {
		return nil, err
	}
	res, err := createApproved(p, now, !pending)
	if err != nil {
		return nil, failedf("%s: %v (%d)", file, err, plan.CodeOf(err))
	}
	return &preview{file: file, plan: res.Plan, now: now, apps: snap.applications(p)}, nil
}

// applications resolves the plan's applications in the snapshot; those
// it does not hold are left out (validation reports them).
func (s snapshot) applications(p *plan.ProtectionPlan) []plan.Application {
	var apps []plan.Application
	for _, name := range p.Spec.Scope.Applications {
		if app, err := s.ResolveApplication(name); err == nil {
			apps = append(apps, app)
		}
	}
	return apps
}

// createApproved creates the plan at the instant given, as the operator
// would, and approves it at once when it requires approval and approve is
// set (by an Owner who did not propose it).
func createApproved(p *plan.ProtectionPlan, at time.Time, approve bool) (plan.Result, error) {
	res, err := plan.Create(p, previewUser, at)
	if err != nil {
		return res, err
	}
	if req := res.Plan.Status.ApprovalRequest; req != nil && approve {
		approver := approval.Caller{Username: previewApprover, Roles: []approval.Role{approval.Owner()}}
		return approval.Approve(res.Plan, req.ID, approver, at)
	}
	return res, nil
}

// checkPlan validates p against env and turns the problems into one line.
func checkPlan(file string, p *plan.ProtectionPlan, env plan.ValidationEnv) error {
	err := plan.Validate(p, env)
	if err == nil {
		return nil
	}
	return failedf("%s: %s", file, strings.Join(problemLines(problemsOf(err)), "; "))
}

// input is what render.Render and render.Explain take for the preview.
func (pv *preview) input(t targetFlags) render.Input {
	return render.Input{Plan: pv.plan, Applications: pv.apps, Now: pv.now, Target: render.Target(t.target), Compact: t.compact}
}

// targetFlags are --target and --compact: what render renders, and whose
// policies explain names.
type targetFlags struct {
	target  string
	compact bool
}

func (t *targetFlags) register(c *cobra.Command, what string) {
	c.Flags().StringVar(&t.target, "target", string(render.TargetKyverno), what+": "+supportedTargets())
	c.Flags().BoolVar(&t.compact, "compact", false, "the compact layout: one policy per namespace holding every template")
}

// check refuses an unknown target (a usage error, before the plan is
// read).
func (t targetFlags) check(file string) error {
	tgt := render.Target(t.target)
	if !render.Supported(tgt) {
		return renderError(file, tgt, &render.UnsupportedTargetError{Target: tgt})
	}
	return nil
}

// phaseNote says why a plan that is not active renders nothing.
func (pv *preview) phaseNote() string {
	st := pv.plan.Status
	msg := fmt.Sprintf("plan %s is %s at %s", pv.plan.Name, st.Phase, pv.now.Format(time.RFC3339))
	switch {
	case st.Phase == plan.PhasePendingApproval:
		msg += " (waiting for approval)"
	case st.NextEdge != nil:
		msg += "; its window opens at " + st.NextEdge.Time.In(pv.now.Location()).Format(time.RFC3339)
	}
	return msg
}

// renderError is exit status 2 for a target protectctl cannot render to,
// 1 for a plan the renderer refuses.
func renderError(file string, target render.Target, err error) error {
	var ute *render.UnsupportedTargetError
	if errors.As(err, &ute) {
		return usageErrorf("--target %s: %v; supported: %s", target, err, supportedTargets())
	}
	var ve *plan.ValidationError
	if errors.As(err, &ve) {
		return failedf("%s: %s", file, strings.Join(problemLines(problemsOf(err)), "; "))
	}
	return failedf("%s: %v (%d)", file, err, plan.CodeOf(err))
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
