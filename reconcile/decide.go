package reconcile

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
)

// InputError is an Input that Decide cannot decide from (a nil plan or
// cluster, a zero time): the embedder's mistake, returned as Output.Retry.
type InputError struct{ Field, Reason string }

func (e *InputError) Error() string { return "reconcile: " + e.Field + ": " + e.Reason }

// HTTPCode is 500: the embedder's fault.
func (e *InputError) HTTPCode() int { return 500 }

// pass is one Decide.
type pass struct {
	in      Input
	stored  *plan.ProtectionPlan
	rec     *Record
	before  plan.Phase // the phase the last pass saw
	created bool

	p      *plan.ProtectionPlan
	events []plan.TimelineEvent
	apps   []plan.Application
	render render.Result
	out    Output
	cals   calendars // the window's calendars as this pass resolved them
}

// Decide decides one pass over one plan. See the package documentation
// for the loop around it.
func Decide(in Input) Output {
	if err := checkInput(in); err != nil {
		return Output{Plan: in.Plan, Retry: err}
	}
	d := &pass{in: in, stored: in.Plan, rec: in.Record, before: in.Plan.Status.Phase}
	if d.rec != nil && d.rec.UID != "" && d.rec.UID != in.Plan.UID {
		d.rec = nil
	}
	if d.rec != nil {
		d.before = d.rec.Phase
	}
	if done := d.lifecycle(); done {
		return d.out
	}
	fail, check := d.putInPlace()
	if check != nil && in.Settings.Repair && len(check.Actions) > 0 && in.Carried == nil {
		return Output{Actions: check.Actions, Plan: d.p, Health: check}
	}
	c := in.Carried
	if c == nil {
		c = &Carried{}
	}
	if fail == nil {
		fail = c.Refused
	}
	if probes := d.probesDue(fail, check, c); len(probes) > 0 {
		return Output{Probes: probes, Plan: d.p, Health: check}
	}
	if fail != nil {
		d.out.Failure = fail
		if check == nil && in.Cluster.PolicyAPI == nil { // what is live, against nothing: no repair
			c := health.Check(health.Input{Plan: d.p, Live: in.Live, Now: in.Now})
			d.out.Health = &c
		}
		if res, err := plan.Fail(d.p, fail.Reason, fail.Message, in.Now); err == nil {
			d.p, d.events = res.Plan, append(d.events, res.Events...)
		}
		d.recordFailedEnforcement()
	} else if check != nil {
		d.recordHealth(check, c)
		d.recordEnforcement(d.out.Health, c)
	}
	if d.before == plan.PhaseActive && d.p.Status.Phase == plan.PhaseActive && !d.deploying() {
		d.out.Repairs = c.Done
	}
	d.surfaceWarnings(c)
	d.legacyFinal()
	d.out.Plan = d.p
	d.out.StatusChanged = d.stampReconciled(!equality.Semantic.DeepEqual(d.stored.Status, d.p.Status))
	d.out.Events = append(d.out.Events, d.timelineEvents()...)
	d.out.WriteEvents = actionEvents(c.Done)
	if err := c.Err(); err != nil {
		d.out.WriteEvents = append(d.out.WriteEvents, Event{Reason: EventWriteFailed, Severity: Warning, Action: "Reconcile", Note: err.Error()})
	}
	if e := d.p.Status.NextEdge; e != nil {
		t := e.Time
		d.out.NextEdge = &t
	}
	// A grant's expiry is an edge: the pass that follows it renders the
	// plan without the grant.
	if end, ok := plan.NextGrantEnd(d.p, in.Now); ok && d.p.Status.Phase == plan.PhaseActive && (d.out.NextEdge == nil || end.Before(*d.out.NextEdge)) {
		d.out.NextEdge = &end
	}
	d.preArmEdge()
	d.warningEdge()
	d.out.Final = d.final()
	d.out.Record = d.record()
	return d.out
}

func checkInput(in Input) error {
	switch {
	case in.Plan == nil:
		return &InputError{"Plan", "required"}
	case in.Cluster == nil:
		return &InputError{"Cluster", "required"}
	case in.Now.IsZero():
		return &InputError{"Now", "required"}
	}
	return nil
}

// lifecycle moves the plan: Create for a plan that has no status yet
// (adopt), Tick otherwise. It reports whether the Output is complete.
func (d *pass) lifecycle() bool {
	if d.stored.Status.Phase != "" {
		validated := false
		if d.stored.Status.ValidatedGeneration != d.stored.Generation {
			switch err := revalidate(d.in); {
			case err == nil:
				validated = true
			case lookupFailed(err):
				d.out = Output{Plan: d.stored, Retry: err, Events: []Event{{Reason: EventValidationDeferred, Severity: Warning, Action: "Validate",
					Note: "the plan's edited spec is not validated yet; nothing new is put in place until it is: " + err.Error()}}}
				return true
			default:
				// Invalid: no tick (a failed plan would be retried into
				// its window), nothing new rendered; what is in place
				// stays as it is.
				d.p = d.stored.DeepCopy()
				d.out.Failure = &Failure{plan.ReasonInvalidPlan, err.Error()}
				return false
			}
		}
		d.cals = resolveCalendars(d.stored.Spec.Window, d.in.Calendars, d.in.Now)
		res := plan.Tick(d.stored, d.in.Now, d.cals.opts...)
		d.p, d.events = res.Plan, res.Events
		d.out.Events = append(d.out.Events, d.cals.note(d.p, d.in.Now)...)
		if validated {
			d.p.Status.ValidatedGeneration = d.stored.Generation
		}
		return false
	}
	a := adopt(d.in)
	switch {
	case a.spec != nil:
		d.out = Output{Spec: a.spec, Plan: d.stored}
		return true
	case a.retry != nil:
		d.out = Output{Plan: d.stored, Retry: a.retry, Events: []Event{{Reason: EventCreateDeferred, Severity: Warning, Action: "Create",
			Note: "the plan is not created yet; the next pass tries again: " + a.retry.Error()}}}
		return true
	case a.err != nil:
		d.out = Output{Plan: d.stored, Events: []Event{{Reason: EventCreateFailed, Severity: Warning, Action: "Create", Note: a.err.Error()}}}
		return true
	}
	d.created, d.p, d.events, d.cals = true, a.res.Plan, a.res.Events, a.cals
	d.out.Events = append(d.out.Events, a.cals.note(d.p, d.in.Now)...)
	if a.invalid != nil {
		d.out.Failure = &Failure{plan.ReasonInvalidPlan, a.invalid.Error()}
		d.out.Events = append(d.out.Events, Event{Reason: plan.ReasonInvalidPlan, Severity: Warning, Action: "Validate", Note: a.invalid.Error()})
	} else {
		d.p.Status.ValidatedGeneration = d.stored.Generation
	}
	return false
}

// putInPlace renders an active plan and checks its live policies against
// the render; any other phase is checked against nothing, so that
// whatever policies the plan still has are withdrawn (R-R7). It returns
// the failure that keeps an active plan from being put in place, or the
// check.
func (d *pass) putInPlace() (*Failure, *health.Result) {
	in, p := d.in, d.p
	if d.out.Failure != nil { // an invalid plan applied with kubectl: failed, renders nothing
		return d.out.Failure, nil
	}
	check := func(r render.Result) *health.Result {
		c := health.Check(health.Input{Plan: d.p, Render: r, Live: in.Live, Now: in.Now, Repair: in.Settings.Repair, Verified: in.Verified})
		d.out.Health = &c
		return &c
	}
	if !render.Armed(d.renderInput(p, nil)) {
		if in.Cluster.PolicyAPI != nil {
			return nil, nil
		}
		return nil, check(render.Result{})
	}
	// Pre-armed (scheduled, within the lead): what keeps the policies from
	// being put in place early fails nothing yet; the start's pass says.
	early := p.Status.Phase != plan.PhaseActive
	if err := in.Cluster.PolicyAPI; err != nil {
		if early {
			return nil, nil
		}
		return &Failure{plan.ReasonPolicyAPIMissing, "the policy API of target " + string(in.Settings.target()) + " is not served: " + err.Error()}, nil
	}
	apps, fail := resolveScope(p, in.Cluster)
	d.apps = apps
	if fail != nil {
		if early {
			return nil, check(render.Result{})
		}
		return fail, nil
	}
	// Break-glass grants in force exempt their users, as requesters the
	// plan excludes do: admitted, and recorded as exempt writes; on a
	// clocked render only until each grant's end, by the engine's clock
	// (render.Input.Grants, renderInput).
	res, err := render.Render(d.renderInput(p, apps))
	if err != nil {
		return &Failure{plan.ReasonInvalidPlan, err.Error()}, nil
	}
	d.render = res
	d.p.Status.Enforcement = &plan.EnforcementStatus{Target: string(in.Settings.target()), Compact: in.Settings.Compact,
		GrantedUsers: plan.GrantedUsers(p, in.Now)}
	d.grantsEnded()
	d.p.Status.Coverage = coverage(d.p, in.Cluster, in.Now)
	return nil, check(res)
}

// resolveScope resolves an active plan's applications and checks that its
// namespaces exist. It returns the applications (for render and the
// report), or the failure that keeps the plan from being put in place.
func resolveScope(p *plan.ProtectionPlan, c *Cluster) ([]plan.Application, *Failure) {
	var apps []plan.Application
	var namespaces []string
	switch p.Spec.Scope.Type() {
	case plan.ScopeNamespaces:
		namespaces = p.Spec.Scope.Namespaces
	case plan.ScopeNamespaceSelectors:
		// The selectors leave the excluded namespaces out: without the
		// list, the policies could freeze one of them.
		if c.ExcludedErr != nil {
			return nil, &Failure{plan.ReasonExcludedUnreadable, fmt.Sprintf("the excluded-namespace list cannot be read: %v", c.ExcludedErr)}
		}
	case plan.ScopeApplications:
		if c.Applications == nil {
			return nil, &Failure{plan.ReasonApplicationNotFound, "no application could be resolved"}
		}
		for _, name := range p.Spec.Scope.Applications {
			app, err := c.Applications.ResolveApplication(name)
			if err != nil {
				return nil, &Failure{plan.ReasonApplicationNotFound, fmt.Sprintf("application %q: %v", name, err)}
			}
			apps = append(apps, app)
			namespaces = append(namespaces, app.Namespaces...)
		}
	}
	var gone []string
	for _, ns := range namespaces {
		if !c.Namespaces[ns] && !slices.Contains(gone, ns) {
			gone = append(gone, ns)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		return apps, &Failure{plan.ReasonNamespaceGone, fmt.Sprintf("namespaces in scope do not exist: %v", gone)}
	}
	return apps, nil
}

// deploying is true when the pass's writes are not repairs of drift but
// the plan being put in place or withdrawn: it was just created, it
// changed phase, or its spec changed.
func (d *pass) deploying() bool {
	return d.created || d.before != d.p.Status.Phase || d.stored.Status.ObservedGeneration != d.stored.Generation || d.grantsChanged() ||
		d.preArmed()
}

// grantsChanged reports whether the users of the grants in force are not
// those the policies were last put in place with: a grant was granted,
// revoked or expired since.
func (d *pass) grantsChanged() bool {
	var before []string
	if e := d.stored.Status.Enforcement; e != nil {
		before = e.GrantedUsers
	}
	return d.p.Status.Phase == plan.PhaseActive && !slices.Equal(before, plan.GrantedUsers(d.p, d.in.Now))
}

// grantsEnded records on the timeline each grant that expired since the
// policies were last put in place with its users (a revoke is recorded by
// whoever revoked it).
func (d *pass) grantsEnded() {
	e := d.stored.Status.Enforcement
	if e == nil || len(e.GrantedUsers) == 0 || d.before != plan.PhaseActive {
		// Not in place with those users now: a run that ended took them
		// out with everything else.
		return
	}
	for _, g := range d.p.Status.Grants {
		if g.State(d.in.Now) != plan.GrantExpired || !slices.ContainsFunc(g.Users, func(u string) bool { return slices.Contains(e.GrantedUsers, u) }) {
			continue
		}
		if _, still := plan.GrantedBy(d.p, g.Users[0], d.in.Now); still {
			continue
		}
		ev := plan.TimelineEvent{Time: metav1.NewTime(d.in.Now), Type: plan.EventGrantExpired, Phase: d.p.Status.Phase,
			Message: plan.Shorten(fmt.Sprintf("break-glass grant %s expired at %s UTC: %s no longer exempt", g.ID,
				g.ExpiresAt.UTC().Format("2006-01-02 15:04:05"), strings.Join(g.Users, ", ")), 1000)}
		plan.AppendEvent(d.p, ev)
		d.events = append(d.events, ev)
	}
}

// recordHealth records the check on the plan (health.Record). When the
// pass put the plan's policies in place or withdrew them, what it records
// is the health after its writes (a re-check of the objects the server
// returned, without listing again): a plan being put in place is not
// drift. Drift found on a plan already in place is recorded as found, and
// the next pass records the repair, so that a report shows it.
func (d *pass) recordHealth(check *health.Result, c *Carried) {
	in := d.in
	if d.deploying() && len(c.Done) > 0 {
		after := health.Check(health.Input{Plan: d.p, Render: d.render, Live: liveAfter(in.Live, c), Now: in.Now})
		check = &after
		d.out.Health = check
	}
	before := meta.FindStatusCondition(d.p.Status.Conditions, plan.ConditionPoliciesHealthy)
	rec := health.Record(d.p, *check, in.Now)
	d.p, d.events = rec.Plan, append(d.events, rec.Events...)
	firstOfRun := d.p.Status.Phase == plan.PhaseActive && (before == nil || d.before != plan.PhaseActive)
	sample := SampleOf(*check, in.Now)
	last := in.LastSample
	moved := last != nil && (last.Healthy != sample.Healthy || last.Reason != sample.Reason)
	// A sample recorded by a pass whose status write then failed leaves
	// the condition unchanged: moved records the sample that closes it.
	if len(rec.Events) > 0 || firstOfRun || moved {
		d.out.Sample = &sample
	}
}

// SampleOf turns a health check into a report's health sample.
func SampleOf(c health.Result, now time.Time) report.HealthSample {
	s := report.HealthSample{
		At: now.UTC(), Missing: c.Summary.Missing, Outdated: c.Summary.Outdated,
		ActionChanged: c.Summary.ActionChanged, Unexpected: c.Summary.Unexpected,
	}
	if cond := c.Condition(plan.ConditionPoliciesHealthy); cond != nil {
		s.Healthy = cond.Status == metav1.ConditionTrue
		s.Reason, s.Message = cond.Reason, cond.Message
	}
	return s
}

// Healthy reports whether a PoliciesHealthy reason says the policies are
// as they should be (in place, or nothing deployed when nothing should
// be).
func Healthy(reason string) bool {
	return reason == health.ReasonInPlace || reason == health.ReasonNothingDeployed
}

// timelineEvents turns the pass's timeline events into events: a failure,
// and a health change to anything but healthy, are warnings.
func (d *pass) timelineEvents() []Event {
	var out []Event
	cond := meta.FindStatusCondition(d.p.Status.Conditions, plan.ConditionPoliciesHealthy)
	for _, ev := range d.events {
		sev := Normal
		if ev.Type == plan.EventFailed || (ev.Type == plan.EventHealthChanged && (cond == nil || !Healthy(cond.Reason))) ||
			(ev.Type == plan.EventEnforcementChanged && !Verified(d.p)) {
			sev = Warning
		}
		note := ev.Message
		if note == "" {
			note = string(ev.Type)
		}
		out = append(out, Event{Reason: string(ev.Type), Severity: sev, Action: "Reconcile", Note: note})
	}
	return out
}

// actionEvents says what the pass wrote, one event per kind of write.
func actionEvents(done []health.Action) []Event {
	byKind := map[health.ActionKind][]string{}
	for _, a := range done {
		byKind[a.Kind] = append(byKind[a.Kind], fmt.Sprintf("%s (%s)", ObjectName(a.Object), a.Reason))
	}
	reasons := []struct {
		kind   health.ActionKind
		reason string
	}{{health.Apply, EventPoliciesApplied}, {health.PatchFailureAction, EventFailureActionRestored}, {health.Delete, EventPoliciesDeleted}}
	var out []Event
	for _, k := range reasons {
		items := byKind[k.kind]
		if len(items) == 0 {
			continue
		}
		sort.Strings(items)
		out = append(out, Event{Reason: k.reason, Severity: Normal, Action: string(k.kind),
			Note: fmt.Sprintf("%d: %s", len(items), strings.Join(items, "; "))})
	}
	return out
}

// ObjectName names a policy object in events and logs: <namespace>/<name>
// for a namespaced one, <Kind> <name> for a cluster-scoped one (the vap
// target's policy and its binding share their name).
func ObjectName(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + u.GetName()
	}
	return u.GetKind() + " " + u.GetName()
}

// record is what to record for the next pass, nil when it is what was
// recorded: phase, start, and the policies and applications of the
// current run.
func (d *pass) record() *Record {
	p := d.p
	o := &Record{UID: p.UID, Phase: p.Status.Phase, StartedAt: p.Status.StartedAt}
	if d.rec != nil && equalTimes(d.rec.StartedAt, p.Status.StartedAt) {
		o.Policies, o.Applications = d.rec.Policies, d.rec.Applications
	}
	if p.Status.Phase == plan.PhaseActive && len(d.render.Policies) > 0 {
		o.Policies = PolicyInfos(d.render.Policies)
		o.Applications = d.apps
	}
	if o.Policies == nil {
		o.Policies = []report.PolicyInfo{}
	}
	if d.rec != nil && equality.Semantic.DeepEqual(d.rec, o) {
		return nil
	}
	return o
}

func equalTimes(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(b)
}

// PolicyInfos lists policies for a report.
func PolicyInfos(ps []render.Policy) []report.PolicyInfo {
	out := make([]report.PolicyInfo, 0, len(ps))
	for _, p := range ps {
		out = append(out, report.PolicyInfo{Namespace: p.Namespace, Name: p.Name, Template: p.Template, Target: string(p.Target)})
	}
	return out
}

// LivePolicyInfos lists live policy objects for a report, one per policy
// (render.Identify).
func LivePolicyInfos(live []*unstructured.Unstructured) []report.PolicyInfo {
	var ps []render.Policy
	for _, u := range live {
		if p, ok := render.Identify(u); ok {
			ps = append(ps, p)
		}
	}
	return PolicyInfos(ps)
}
