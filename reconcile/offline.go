package reconcile

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// Offline decides what a tool without a cluster says of a plan file (the
// example protectctl, a CI linter): whether a server would create it
// (Lint), the plan an operator would hold at an instant (Preview), its
// window (Window), and the report of its run from a ledger (Report). It
// knows of a cluster what a snapshot tells it; what it does not know is
// not checked.
type Offline struct {
	// Cluster answers which namespaces exist and which are off limits;
	// nil skips those checks.
	Cluster plan.ClusterView
	// Applications resolves an applications scope; nil skips that check,
	// and a plan of applications cannot be previewed
	// (*ApplicationsUnknownError).
	Applications plan.ApplicationResolver
	// ReleaseNamespace and ExcludedNamespaces are what a namespaceSelectors
	// scope leaves out (render.Input); a preview of such a plan needs
	// ReleaseNamespace.
	ReleaseNamespace   string
	ExcludedNamespaces []string
	// Kinds are the custom kinds the cluster serves (discovery facts): a
	// plan may name them, and the preview renders them.
	Kinds plan.ServedKinds
	// Names finds the plans that use a display name; only Lint asks (a
	// plan previewed may be in the cluster already).
	Names plan.PlanNames
	// Calendars are the calendars plans' windows name (except: calendar),
	// as Input.Calendars: the ICS text of each ConfigMap key. A calendar
	// missing from it is read as a pass reads it (ConditionCalendars):
	// the freeze holds on its dates.
	Calendars map[window.ConfigMapKeyRef][]byte
	// User creates the plans Offline simulates, and Approver approves
	// those that require approval, as an Owner who is not the proposer.
	// They default to "offline" and User + "-approver".
	User, Approver string
}

// maxEdges bounds a simulated run: it ticks at this many window edges at
// most (two a day for a nightly window is about 14 years).
const maxEdges = 10000

var (
	_ plan.Coder = (*ApplicationsUnknownError)(nil)
	_ plan.Coder = (*LedgerPlanError)(nil)
)

// ApplicationsUnknownError refuses to preview a plan whose scope is
// applications without the applications to resolve them. Its code is
// 400.
type ApplicationsUnknownError struct {
	// Applications are the plan's applications.
	Applications []string
}

func (e *ApplicationsUnknownError) Error() string {
	return fmt.Sprintf("the plan's scope is applications (%s): no applications are known to resolve them", strings.Join(e.Applications, ", "))
}

// HTTPCode is 400.
func (e *ApplicationsUnknownError) HTTPCode() int { return http.StatusBadRequest }

// LedgerPlanError refuses to report a plan's run from another plan's
// ledger. Its code is 400.
type LedgerPlanError struct {
	// Ledger is the plan the ledger is of; Plan the plan reported.
	Ledger, Plan string
}

func (e *LedgerPlanError) Error() string {
	return fmt.Sprintf("the ledger is plan %q's, not %q's", e.Ledger, e.Plan)
}

// HTTPCode is 400.
func (e *LedgerPlanError) HTTPCode() int { return http.StatusBadRequest }

func (o Offline) user() string {
	if o.User == "" {
		return "offline"
	}
	return o.User
}

func (o Offline) approver() string {
	if o.Approver == "" {
		return o.user() + "-approver"
	}
	return o.Approver
}

// env is the validation environment of what o knows, at now (the zero
// instant comes before every window: an ended window is not refused).
func (o Offline) env(now time.Time, names bool) plan.ValidationEnv {
	env := plan.ValidationEnv{Now: now, Catalog: render.DefaultCatalog, Cluster: o.Cluster, Applications: o.Applications, Kinds: o.Kinds}
	if names {
		env.Names = o.Names
	}
	return env
}

// Lint says whether a server would create p at now, as the error it would
// answer (nil when it would): p defaulted at now, validated against all
// that o knows (display names included; a window that has ended is
// refused), then created (which refuses, for one, a Production plan
// without an approval mode). plan.ProblemsOf lists the problems. p is not
// changed.
func (o Offline) Lint(p *plan.ProtectionPlan, now time.Time) error {
	p = p.DeepCopy()
	plan.Defaults(p, now)
	if err := plan.Validate(p, o.env(now, true)); err != nil {
		return err
	}
	_, err := plan.Create(p, o.user(), now)
	return err
}

// check defaults p at now and validates it against what o knows, except
// the display name, whatever the instant.
func (o Offline) check(p *plan.ProtectionPlan, now time.Time) error {
	plan.Defaults(p, now)
	return plan.Validate(p, o.env(time.Time{}, false))
}

// Window is p defaulted as a create at now would default it, checked as
// Preview checks it, and its compiled window, with o's calendars expanded
// over the window's look-around of now, from and to (a listing from from
// to to; zero instants are left out). p is not changed.
func (o Offline) Window(p *plan.ProtectionPlan, now, from, to time.Time) (*plan.ProtectionPlan, *window.Window, error) {
	p = p.DeepCopy()
	if err := o.check(p, now); err != nil {
		return nil, nil, err
	}
	first, last := now, now
	for _, t := range []time.Time{from, to} {
		if !t.IsZero() && t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	w, err := window.Parse(p.Spec.Window, o.windowOptions(p, first, last)...)
	if err != nil {
		return nil, nil, err
	}
	return p, w, nil
}

// Preview is a plan as an operator would hold it at an instant, with its
// applications resolved: what render.Render and render.Explain take.
type Preview struct {
	Plan         *plan.ProtectionPlan
	Applications []plan.Application
	Now          time.Time
	// ReleaseNamespace, ExcludedNamespaces and Kinds are the Offline's.
	ReleaseNamespace   string
	ExcludedNamespaces []string
	Kinds              plan.ServedKinds
	// WindowOptions are the Offline's calendars as the plan's window
	// names them (render.Input.WindowOptions), and Calendars the
	// ConditionCalendars a pass would set with them: nil when the window
	// names no calendar, False when one is missing from the Offline's
	// or unreadable (the freeze then holds on its dates).
	WindowOptions []window.Option
	Calendars     *metav1.Condition
}

// Preview is p as an operator would hold it at now: defaulted, checked
// against what o knows (not the display name: p may be in the cluster
// already; not the end of the window: a preview after it renders
// nothing), created at now and, when it requires approval and pending is
// false, approved at once. Its applications are those that resolve (the
// check reports the others). Errors: an *ApplicationsUnknownError, the
// *plan.ValidationError of the check, or what plan.Create and
// approval.Approve refuse. p is not changed.
func (o Offline) Preview(p *plan.ProtectionPlan, now time.Time, pending bool) (Preview, error) {
	if p.Spec.Scope.Type() == plan.ScopeApplications && o.Applications == nil {
		return Preview{}, &ApplicationsUnknownError{Applications: append([]string(nil), p.Spec.Scope.Applications...)}
	}
	p = p.DeepCopy()
	if err := o.check(p, now); err != nil {
		return Preview{}, err
	}
	res, err := o.create(p, now, !pending)
	if err != nil {
		return Preview{}, err
	}
	cals := resolveCalendars(p.Spec.Window, o.Calendars, now)
	return Preview{Plan: res.Plan, Applications: o.applications(p), Now: now,
		ReleaseNamespace: o.ReleaseNamespace, ExcludedNamespaces: o.ExcludedNamespaces, Kinds: o.Kinds,
		WindowOptions: cals.opts, Calendars: cals.cond}, nil
}

// Input is the render.Input of the preview for a target and layout.
func (pv Preview) Input(target render.Target, compact bool) render.Input {
	return render.Input{Plan: pv.Plan, Applications: pv.Applications, Now: pv.Now, Target: target, Compact: compact,
		ReleaseNamespace: pv.ReleaseNamespace, ExcludedNamespaces: pv.ExcludedNamespaces, Kinds: pv.Kinds,
		WindowOptions: pv.WindowOptions}
}

// Note says, for people, the plan's phase at the preview's instant and
// what it waits for (approval, its window to open or to close): why a
// plan that is not active renders nothing.
func (pv Preview) Note() string {
	st := pv.Plan.Status
	msg := fmt.Sprintf("plan %s is %s at %s", pv.Plan.Name, st.Phase, pv.Now.Format(time.RFC3339))
	switch {
	case st.Phase == plan.PhasePendingApproval:
		msg += " (waiting for approval)"
	case st.NextEdge != nil && st.Phase == plan.PhaseActive:
		msg += "; its window closes at " + st.NextEdge.Time.In(pv.Now.Location()).Format(time.RFC3339)
	case st.NextEdge != nil:
		msg += "; its window opens at " + st.NextEdge.Time.In(pv.Now.Location()).Format(time.RFC3339)
	}
	return msg
}

// applications resolves p's applications; those that do not resolve are
// left out.
func (o Offline) applications(p *plan.ProtectionPlan) []plan.Application {
	if o.Applications == nil {
		return nil
	}
	var apps []plan.Application
	for _, name := range p.Spec.Scope.Applications {
		if a, err := o.Applications.ResolveApplication(name); err == nil {
			apps = append(apps, a)
		}
	}
	return apps
}

// create creates p at the instant given, as a server would, and approves
// it at once when it requires approval and approve is set.
func (o Offline) create(p *plan.ProtectionPlan, at time.Time, approve bool) (plan.Result, error) {
	return o.createWith(p, at, approve, o.windowOptions(p, at, at))
}

// createWith is create with the window options given.
func (o Offline) createWith(p *plan.ProtectionPlan, at time.Time, approve bool, opts []window.Option) (plan.Result, error) {
	res, err := plan.Create(p, o.user(), at, opts...)
	if err != nil {
		return res, err
	}
	if req := res.Plan.Status.ApprovalRequest; req != nil && approve {
		approver := approval.Caller{Username: o.approver(), Roles: []approval.Role{approval.Owner()}}
		return approval.Approve(res.Plan, req.ID, approver, at, opts...)
	}
	return res, nil
}

// windowOptions are o's calendars as p's window names them, expanded for
// every instant from first to last.
func (o Offline) windowOptions(p *plan.ProtectionPlan, first, last time.Time) []window.Option {
	return resolveCalendarsBetween(p.Spec.Window, o.Calendars, first, last).opts
}

// SimulateRun is a plan file without a status as an operator would hold
// it at now: created when its run began (its window's start when that has
// come, else the start of the interval holding its oldest violation in l,
// else that violation's time or now), approved at once when it requires
// approval, and ticked at every window edge since. p is not changed.
func (o Offline) SimulateRun(p *plan.ProtectionPlan, l violations.Ledger, now time.Time) (*plan.ProtectionPlan, error) {
	first := oldestViolation(l, now)
	if s := p.Spec.Window.StartAt; s != nil && s.Time.Before(first) {
		first = s.Time
	}
	opts := o.windowOptions(p, first, now)
	w, err := window.Parse(p.Spec.Window, opts...)
	if err != nil {
		return nil, err
	}
	res, err := o.createWith(p.DeepCopy(), runStart(p, w, l, now), true, opts)
	if err != nil {
		return nil, err
	}
	for i := 0; i < maxEdges && res.NextEdge != nil && !res.NextEdge.After(now); i++ {
		res = plan.Tick(res.Plan, *res.NextEdge, opts...)
	}
	return plan.Tick(res.Plan, now, opts...).Plan, nil
}

// runStart is when a plan file without a status is taken to have been
// created (see SimulateRun).
func runStart(p *plan.ProtectionPlan, w *window.Window, l violations.Ledger, now time.Time) time.Time {
	if s := p.Spec.Window.StartAt; s != nil && !s.After(now) {
		return s.Time
	}
	oldest := oldestViolation(l, now)
	if iv, ok := w.Containing(oldest); ok && !iv.OpenStart && !iv.Start.IsZero() {
		return iv.Start
	}
	return oldest
}

// oldestViolation is the time of l's oldest violation, or now.
func oldestViolation(l violations.Ledger, now time.Time) time.Time {
	oldest := now
	for _, v := range l.Violations {
		for _, t := range []time.Time{v.FirstSeen, v.Timestamp} {
			if !t.IsZero() && t.Before(oldest) {
				oldest = t
			}
		}
	}
	return oldest
}

// Report is what report.Build takes for the report of p's run as of now,
// from its ledger l: p as stored when it has a status (kubectl get -o
// yaml), else its run simulated (SimulateRun); its applications as o
// resolves them; the policies its run started with (a render of its spec
// created at that instant; none when the run never started or cannot be
// rendered, say applications o does not know). A trigger of "" is end
// for a plan that terminated, cancel for one that was canceled, manual
// otherwise. Errors: a *LedgerPlanError, the *plan.ValidationError of p's
// spec (checked as Preview checks it), or what SimulateRun refuses.
// report.Build says whether the run has started.
func (o Offline) Report(p *plan.ProtectionPlan, l violations.Ledger, trigger report.Trigger, now time.Time) (report.Input, error) {
	if l.Plan != "" && l.Plan != p.Name {
		return report.Input{}, &LedgerPlanError{Ledger: l.Plan, Plan: p.Name}
	}
	spec := p.DeepCopy()
	spec.Status = plan.Status{}
	if err := o.check(spec, now); err != nil {
		return report.Input{}, err
	}
	if p.Status.Phase == "" {
		var err error
		if p, err = o.SimulateRun(p, l, now); err != nil {
			return report.Input{}, err
		}
	}
	if trigger == "" {
		trigger = report.TriggerManual
		switch p.Status.Phase {
		case plan.PhaseTerminated:
			trigger = report.TriggerEnd
		case plan.PhaseCanceled:
			trigger = report.TriggerCancel
		}
	}
	in := report.Input{
		Plan: p, Applications: o.applications(p), Trigger: trigger, Now: now,
		Violations: l.Violations, ViolationsTruncated: l.Truncated, ViolationsDropped: l.Dropped,
	}
	if started := p.Status.StartedAt; started != nil {
		in.Policies = o.deployed(spec, in.Applications, started.Time)
	}
	return in, nil
}

// deployed are the policies of spec created at the instant given.
func (o Offline) deployed(spec *plan.ProtectionPlan, apps []plan.Application, at time.Time) []report.PolicyInfo {
	res, err := o.create(spec.DeepCopy(), at, true)
	if err != nil {
		return nil
	}
	r, err := render.Render(render.Input{Plan: res.Plan, Applications: apps, Now: at,
		ReleaseNamespace: o.ReleaseNamespace, ExcludedNamespaces: o.ExcludedNamespaces, Kinds: o.Kinds,
		WindowOptions: o.windowOptions(spec, at, at)})
	if err != nil || len(r.Policies) == 0 {
		return nil
	}
	return PolicyInfos(r.Policies)
}
