package operator

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
)

// CreatedByAnnotation names who created a plan that reached the cluster
// without the API server example (kubectl apply). The operator runs
// plan.Create on such a plan as this actor, "kubectl" when the annotation
// is absent: the actor becomes the plan's first proposer, who may not
// approve it.
const CreatedByAnnotation = "telark.io/created-by"

// DefaultActor is the actor of plans created without CreatedByAnnotation.
const DefaultActor = "kubectl"

// reconciler does the work of one pass. Only the loop calls it, one pass at
// a time, so it needs no lock.
type reconciler struct {
	cfg      Config
	c        client.Client // writes, and plans from the manager's cache
	reader   client.Reader // uncached reads: policies, namespaces, members, events, reports
	recorder events.EventRecorder
	store    *store.FS
	log      logr.Logger
	// crash replaces the SIGKILL of Config.CrashAt (unit tests).
	crash func(CrashPoint)

	lastCheckpoint time.Time
	// samples caches the last health sample of each plan's health file.
	samples map[string]report.HealthSample
	// plans are the plans of the current pass, by ID.
	plans map[string]*plan.ProtectionPlan
}

// newReconciler makes the reconciler of cfg (with its defaults) over
// clients c and reader.
func newReconciler(cfg Config, c client.Client, reader client.Reader, recorder events.EventRecorder) *reconciler {
	r := &reconciler{cfg: cfg, c: c, reader: reader, recorder: recorder, log: cfg.Log,
		samples: map[string]report.HealthSample{}}
	r.store = store.New(cfg.ReportsDir, store.OnRecovered(r.fileRecovered))
	return r
}

// reconcileAll is one pass over every plan. It returns the earliest next
// window edge of any plan, for the loop's timer.
//
// A pass reads the world once (the plans; every plan's policies, one list
// per policy kind; the namespaces; the application members when a plan
// needs them), checkpoints violations when due, then moves each plan
// (reconcilePlan), and finally deletes the policies of plans that no
// longer exist and the reports of deleted plans.
func (r *reconciler) reconcileAll(ctx context.Context) *time.Time {
	clk := r.cfg.Clock
	start := clk.Now()
	defer func() { metricTick.Observe(clk.Since(start).Seconds()) }()
	now := start

	var list plan.ProtectionPlanList
	if err := r.c.List(ctx, &list); err != nil {
		metricErrors.WithLabelValues("list").Inc()
		r.log.Error(err, "listing plans")
		return nil
	}
	plans := list.Items
	slices.SortFunc(plans, func(a, b plan.ProtectionPlan) int { return strings.Compare(a.Name, b.Name) })
	r.plans = make(map[string]*plan.ProtectionPlan, len(plans))
	for i := range plans {
		r.plans[plans[i].Name] = &plans[i]
	}
	w, err := r.gather(ctx, plans, now)
	if err != nil {
		metricErrors.WithLabelValues("list").Inc()
		r.log.Error(err, "reading the cluster")
		return nil
	}

	existing := make(map[string]types.UID, len(plans))
	for _, p := range plans {
		existing[p.Name] = p.UID
	}
	removed, err := store.Sweep(r.store, existing)
	if err != nil {
		metricErrors.WithLabelValues("report").Inc()
		r.log.Error(err, "deleting the reports of deleted plans")
	} else if len(removed) > 0 {
		r.log.Info("deleted the reports of deleted plans", "plans", removed)
	}
	for _, id := range removed {
		delete(r.samples, id)
	}

	if r.checkpointDue(now) {
		var ids []string
		for _, p := range plans {
			if len(w.byPlan[p.Name]) > 0 {
				ids = append(ids, p.Name)
			}
		}
		if err := r.checkpoint(ctx, w, ids); err != nil {
			metricErrors.WithLabelValues("checkpoint").Inc()
			r.log.Error(err, "checkpointing violations")
		} else {
			r.lastCheckpoint = now
		}
	}

	counts := map[plan.Phase]int{}
	var next *time.Time
	for i := range plans {
		p := r.reconcilePlan(ctx, &plans[i], w)
		counts[p.Status.Phase]++
		if e := p.Status.NextEdge; e != nil && (next == nil || e.Time.Before(*next)) {
			t := e.Time
			next = &t
		}
	}

	if w.policyAPI == nil {
		out := r.carryOut(ctx, health.Sweep(w.live, sets.KeySet(existing)))
		for _, a := range out.done {
			metricRepairs.WithLabelValues(string(a.Kind)).Inc()
			r.log.Info("swept a policy of a deleted plan", "policy", a.Object.GetNamespace()+"/"+a.Object.GetName(),
				"plan", a.Object.GetLabels()[render.LabelPlan])
		}
		if err := out.err(); err != nil {
			metricErrors.WithLabelValues("apply").Inc()
			r.log.Error(err, "sweeping policies of deleted plans")
		}
	}
	setPlanGauge(counts)
	return next
}

// step is one plan's pass: what it started from and what it decided.
type step struct {
	stored  *plan.ProtectionPlan // as read (after the spec update of a new plan)
	before  *plan.ProtectionPlan // stored, with the phase the operator last observed
	obs     observed
	seen    bool
	created bool
	p       *plan.ProtectionPlan // the plan being decided
	events  []plan.TimelineEvent
	apps    []plan.Application
	render  render.Result
	live    []*unstructured.Unstructured // the plan's policies as listed
	out     outcome
}

// reconcilePlan moves one plan: lifecycle (create or tick), put in place or
// withdraw (render, health check, repairs), failure, health record, status
// write, events, final report. It returns the plan as decided.
func (r *reconciler) reconcilePlan(ctx context.Context, stored *plan.ProtectionPlan, w *world) *plan.ProtectionPlan {
	log := r.log.WithValues("plan", stored.Name)
	now := w.now
	s := &step{stored: stored, before: stored.DeepCopy(), live: w.byPlan[stored.Name]}
	s.obs, s.seen = r.observedOf(stored)
	if s.seen {
		s.before.Status.Phase, s.before.Status.StartedAt = s.obs.Phase, s.obs.StartedAt
	}

	if stored.Status.Phase == "" {
		cur, res, err := r.create(ctx, stored, now)
		if err != nil {
			metricErrors.WithLabelValues("status").Inc()
			log.Error(err, "creating the plan")
			r.event(stored, true, EventCreateFailed, "Create", err.Error())
			return stored
		}
		s.stored, s.created, s.p, s.events = cur, true, res.Plan, res.Events
	} else {
		res := plan.Tick(stored, now)
		s.p, s.events = res.Plan, res.Events
	}

	_, final := report.FinalTrigger(s.before, s.p)
	if final {
		r.crashAt(CrashBeforePolicyWrites)
	}
	fail, check, checked := r.putInPlace(ctx, s, w)
	if final {
		r.crashAt(CrashAfterPolicyWrites)
	}
	if fail != nil {
		res, err := plan.Fail(s.p, fail.reason, fail.message, now)
		if err == nil {
			s.p, s.events = res.Plan, append(s.events, res.Events...)
		}
		// A lasting failure is logged once (plan.Fail appends no event when
		// it fails the same way again), then at V(1) on every retry.
		l := log.V(1)
		if len(res.Events) > 0 {
			l = log
		}
		l.Info("the plan cannot be put in place; the next tick retries", "reason", fail.reason, "message", fail.message)
	} else if checked {
		r.recordHealth(s, check, now)
	}

	wasActive := s.before.Status.Phase == plan.PhaseActive
	if wasActive && s.p.Status.Phase == plan.PhaseActive && !r.deploying(s) {
		for _, a := range s.out.done {
			metricRepairs.WithLabelValues(string(a.Kind)).Inc()
		}
	}

	// The timeline's events become Kubernetes events once they are stored;
	// the writes to policies happened whatever the status write does.
	_, statusErr := r.writeStatus(ctx, s.stored, s.p)
	if statusErr != nil {
		metricErrors.WithLabelValues("status").Inc()
		log.Info("status not written; the next pass decides again", "error", statusErr.Error())
	} else {
		r.recordTimeline(s.p, s.events)
	}
	r.recordActions(s.p, s.out.done)
	if err := s.out.err(); err != nil {
		metricErrors.WithLabelValues("apply").Inc()
		log.Error(err, "writing policies; the next pass retries")
		r.event(s.p, true, EventWriteFailed, "Reconcile", err.Error())
	}
	if statusErr != nil {
		return s.p // the final report and the observed state wait for a stored status
	}
	if trig, ok := report.FinalTrigger(s.before, s.p); ok {
		if !r.finalReport(ctx, s, w, trig) {
			return s.p
		}
	}
	r.observe(s)
	return s.p
}

// create runs plan.Create on a plan that has no status yet (created with
// kubectl): it derives spec.approvalMode when empty (approval.DeriveMode:
// Production requires approval, otherwise the configured default), applies
// plan.Defaults (a permanent window starts now) and stores the spec first
// when that changed it, so that the status describes the stored
// generation.
func (r *reconciler) create(ctx context.Context, stored *plan.ProtectionPlan, now time.Time) (*plan.ProtectionPlan, plan.Result, error) {
	p := stored.DeepCopy()
	actor := DefaultActor
	if a := strings.TrimSpace(stored.Annotations[CreatedByAnnotation]); a != "" {
		actor = a
	}
	if p.Spec.ApprovalMode == "" {
		md, err := approval.DeriveMode("", p.Spec.Environment, approval.Caller{Username: actor}, r.cfg.Approval)
		if err != nil {
			return nil, plan.Result{}, err
		}
		p.Spec.ApprovalMode = md.Mode
	}
	plan.Defaults(p, now)
	if !equality.Semantic.DeepEqual(p.Spec, stored.Spec) {
		if err := r.c.Update(ctx, p); err != nil {
			return nil, plan.Result{}, err
		}
	}
	res, err := plan.Create(p, actor, now)
	return p, res, err
}

// putInPlace renders an active plan and converges its live policies on the
// render; for any other phase it withdraws whatever policies the plan
// still has (R-R7). It returns the failure that keeps an active plan from
// being put in place, or the health check to record.
func (r *reconciler) putInPlace(ctx context.Context, s *step, w *world) (*failure, health.Result, bool) {
	p := s.p
	if p.Status.Phase != plan.PhaseActive {
		if w.policyAPI != nil {
			return nil, health.Result{}, false
		}
		check := health.Check(health.Input{Plan: p, Live: w.byPlan[p.Name], Now: w.now, Repair: true})
		s.out = r.carryOut(ctx, check.Actions)
		return nil, check, true
	}
	if w.policyAPI != nil {
		return &failure{plan.ReasonPolicyAPIMissing, "the policy API of target " + string(r.cfg.Target) + " is not served: " + w.policyAPI.Error()}, health.Result{}, false
	}
	apps, fail := resolveScope(p, w)
	s.apps = apps
	if fail != nil {
		return fail, health.Result{}, false
	}
	res, err := render.Render(render.Input{Plan: p, Applications: apps, Now: w.now, Target: r.cfg.Target, Compact: r.cfg.Compact})
	if err != nil {
		return &failure{ReasonInvalidPlan, err.Error()}, health.Result{}, false
	}
	s.render = res
	check := health.Check(health.Input{Plan: p, Render: res, Live: w.byPlan[p.Name], Now: w.now, Repair: true})
	s.out = r.carryOut(ctx, check.Actions)
	return s.out.refused, check, true
}

// deploying is true when the pass's writes are not repairs of drift but the
// plan being put in place or withdrawn: it was just created, it changed
// phase, or its spec changed.
func (r *reconciler) deploying(s *step) bool {
	return s.created || s.before.Status.Phase != s.p.Status.Phase ||
		s.stored.Status.ObservedGeneration != s.stored.Generation
}

// recordHealth records the health check on the plan (health.Record). When
// the pass deployed or withdrew the plan's policies, what it records is the
// health after its writes (computed from the objects the server returned,
// without listing again): a plan being put in place is not drift. Drift
// found on a plan that was already in place is recorded as found, and the
// next pass records the repair, so that a report shows it.
func (r *reconciler) recordHealth(s *step, check health.Result, now time.Time) {
	if r.deploying(s) && len(s.out.done) > 0 {
		check = health.Check(health.Input{Plan: s.p, Render: s.render, Live: liveAfter(s.live, s.out), Now: now})
	}
	before := meta.FindStatusCondition(s.p.Status.Conditions, plan.ConditionPoliciesHealthy)
	rec := health.Record(s.p, check, now)
	s.p, s.events = rec.Plan, append(s.events, rec.Events...)
	firstOfRun := s.p.Status.Phase == plan.PhaseActive && (before == nil || s.before.Status.Phase != plan.PhaseActive)
	sample := sampleOf(check, now)
	if len(rec.Events) > 0 || firstOfRun || r.healthMoved(s.p.Name, sample) {
		if err := r.store.AppendSample(s.p.Name, sample); err != nil {
			metricErrors.WithLabelValues("report").Inc()
			r.log.Error(err, "recording a health sample", "plan", s.p.Name)
			return
		}
		r.samples[s.p.Name] = sample
	}
}

// healthMoved says whether a health sample differs (healthy or reason)
// from the last one of the plan's health file. In a pass that completes
// the two move together with the PoliciesHealthy condition; when a pass
// recorded a sample and then failed to store the condition (a status write
// that failed, a process that died), the next pass sees no change of the
// condition and records the sample that closes the previous one. The
// last sample of each plan is read once, then kept.
func (r *reconciler) healthMoved(id string, sample report.HealthSample) bool {
	last, ok := r.samples[id]
	if !ok {
		samples, err := r.store.LoadSamples(id)
		if err != nil || len(samples) == 0 {
			return false
		}
		last = samples[len(samples)-1]
		r.samples[id] = last
	}
	return last.Healthy != sample.Healthy || last.Reason != sample.Reason
}

// sampleOf turns a health check into a report's health sample.
func sampleOf(c health.Result, now time.Time) report.HealthSample {
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

// observedOf reads what the operator last observed of the plan; a record of
// another plan that had the same ID does not count.
func (r *reconciler) observedOf(p *plan.ProtectionPlan) (observed, bool) {
	var o observed
	ok, err := r.store.LoadRecord(p.Name, &o)
	if err != nil {
		r.log.Error(err, "reading the observed state", "plan", p.Name)
		return observed{}, false
	}
	if !ok || (o.UID != "" && o.UID != p.UID) {
		return observed{}, false
	}
	return o, true
}

// observe records what the pass left the plan in, when that differs from
// what was recorded: phase, start, and the policies and applications of
// the current run (for its final report).
func (r *reconciler) observe(s *step) {
	p := s.p
	o := observed{UID: p.UID, Phase: p.Status.Phase, StartedAt: p.Status.StartedAt}
	sameRun := s.seen && equalTimes(s.obs.StartedAt, p.Status.StartedAt)
	if sameRun {
		o.Policies, o.Applications = s.obs.Policies, s.obs.Applications
	}
	if p.Status.Phase == plan.PhaseActive && len(s.render.Policies) > 0 {
		o.Policies = policyInfos(s.render)
		o.Applications = s.apps
	}
	if o.Policies == nil {
		o.Policies = []report.PolicyInfo{}
	}
	if s.seen {
		a, _ := json.Marshal(s.obs)
		b, _ := json.Marshal(o)
		if string(a) == string(b) {
			return
		}
	}
	if err := r.store.SaveRecord(p.Name, o); err != nil {
		metricErrors.WithLabelValues("report").Inc()
		r.log.Error(err, "recording the observed state", "plan", p.Name)
	}
}

func equalTimes(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(b)
}

// policyInfos lists a render's policies for a report.
func policyInfos(res render.Result) []report.PolicyInfo {
	out := make([]report.PolicyInfo, 0, len(res.Policies))
	for _, p := range res.Policies {
		out = append(out, report.PolicyInfo{Namespace: p.Namespace, Name: p.Name, Template: p.Template, Target: string(p.Target)})
	}
	return out
}
