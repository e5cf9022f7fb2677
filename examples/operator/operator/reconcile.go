package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// reconciler does the I/O of one pass; package reconcile decides. Only
// the loop calls it, one pass at a time, so it needs no lock.
type reconciler struct {
	cfg      Config
	c        client.Client // writes, and plans from the manager's cache
	kube     *kube.Reader  // uncached reads: policies (their metadata while unchanged), namespaces, members, events, reports
	recorder events.EventRecorder
	store    *store.FS
	log      logr.Logger
	// crash replaces the SIGKILL of Config.CrashAt (unit tests, and
	// Config.OnCrash).
	crash func(CrashPoint)
	// edge sends the edge actions' patches as the executor; nil without
	// Config.EdgeExecutor.
	edge EdgeSender

	lastCheckpoint time.Time
	// samples caches the last health sample of each plan's health file.
	samples map[string]*report.HealthSample
	// records caches each plan's record (records.go).
	records records
	// verified is each plan's last health.Verified (reconcile.Input.Verified):
	// uids and resourceVersions, not objects.
	verified map[string]health.Verified
	// plans are the plans of the current pass, by ID.
	plans map[string]*plan.ProtectionPlan
	// probes shares the probes of the current pass across its plans.
	probes *reconcile.ProbeLog
}

// newReconciler makes the reconciler of cfg (with its defaults) over
// clients c and reader.
func newReconciler(cfg Config, c client.Client, reader client.Reader, recorder events.EventRecorder) *reconciler {
	// The pass keeps the policies it listed and lists only their
	// metadata while nothing is written (kube.Reader.HoldPolicies).
	r := &reconciler{cfg: cfg, c: c, kube: kube.New(reader, cfg.Facts).HoldPolicies(), recorder: recorder, log: cfg.Log,
		samples: map[string]*report.HealthSample{}, records: records{}, verified: map[string]health.Verified{}, crash: cfg.OnCrash}
	r.store = store.New(cfg.ReportsDir, store.OnRecovered(r.fileRecovered))
	return r
}

func (r *reconciler) settings() reconcile.Settings {
	return reconcile.Settings{Target: r.cfg.Target, Compact: r.cfg.Compact, Clock: r.cfg.ClockPolicies, Lead: r.cfg.Lead, Warnings: r.cfg.Warnings, Repair: true, Approval: r.cfg.Approval,
		Probe: !r.cfg.NoProbe && !r.cfg.NoEnforcementCheck, ReconciledEvery: r.reconciledEvery(), EdgeExecutor: r.cfg.EdgeExecutor}
}

// reconciledEvery is Config.ReconciledEvery, defaulted.
func (r *reconciler) reconciledEvery() time.Duration {
	switch e := r.cfg.ReconciledEvery; {
	case e < 0:
		return 0
	case e == 0:
		return reconcile.DefaultReconciledEvery
	default:
		return e
	}
}

// reconcileAll is one pass over every plan: read the plans and the
// cluster once, sweep what deleted plans left, checkpoint violations when
// due, then move each plan. It returns the earliest next window edge of
// any plan, for the loop's timer.
func (r *reconciler) reconcileAll(ctx context.Context) *time.Time {
	clk := r.cfg.Clock
	now := clk.Now()
	defer func() { metricTick.Observe(clk.Since(now).Seconds()) }()

	var list plan.ProtectionPlanList
	if err := r.c.List(ctx, &list); err != nil {
		r.fail("list", err, "listing plans")
		return nil
	}
	slices.SortFunc(list.Items, func(a, b plan.ProtectionPlan) int { return strings.Compare(a.Name, b.Name) })
	plans := make([]*plan.ProtectionPlan, len(list.Items))
	r.plans = make(map[string]*plan.ProtectionPlan, len(plans))
	for i := range list.Items {
		plans[i] = &list.Items[i]
		r.plans[plans[i].Name] = plans[i]
	}
	pass, err := r.kube.Cluster(ctx, r.cfg.Target, plans)
	if err != nil {
		r.fail("list", err, "reading the cluster")
		return nil
	}
	if pass.Cluster.PolicyAPI == nil {
		pass.Cluster.Enforcer = r.enforcer(ctx)
	}
	setNextEdges(plans)
	r.probes = reconcile.NewProbeLog(pass.Live)
	byPlan := health.GroupByPlan(pass.Live)
	r.sweep(ctx, plans, pass)

	if reconcile.CheckpointDue(r.lastCheckpoint, now, r.cfg.Timing.ReportCheckpoint) {
		if err := r.checkpoint(ctx, reconcile.CheckpointOf(plans, pass.Live)); err != nil {
			r.fail("checkpoint", err, "checkpointing violations")
		} else {
			r.lastCheckpoint = now
		}
	}

	counts := map[plan.Phase]int{}
	grants := 0
	var next *time.Time
	after := make([]*plan.ProtectionPlan, 0, len(plans))
	for _, stored := range plans {
		out := r.reconcilePlan(ctx, stored, pass.Cluster, byPlan[stored.Name], now)
		after = append(after, out.Plan)
		counts[out.Plan.Status.Phase]++
		grants += len(plan.GrantsInForce(out.Plan, now))
		if e := out.NextEdge; e != nil && (next == nil || e.Before(*next)) {
			next = e
		}
	}
	for id := range r.verified { // a deleted plan's
		if r.plans[id] == nil {
			delete(r.verified, id)
		}
	}
	setPlanGauge(counts)
	setNextActivations(after)
	passSucceeded(now)
	metricGrants.Set(float64(grants))
	return next
}

// sweep deletes the policies and the reports of plans that no longer
// exist (reconcile.Sweep).
func (r *reconciler) sweep(ctx context.Context, plans []*plan.ProtectionPlan, pass kube.Pass) {
	stored := map[string]types.UID{}
	ids, err := r.store.PlanIDs()
	if err != nil {
		r.fail("report", err, "listing the reports directory")
	}
	for _, id := range ids {
		uid, err := r.recordUID(id)
		if err == nil {
			stored[id] = uid
		}
	}
	sw := reconcile.Sweep(reconcile.SweepInput{Plans: plans, Live: pass.Live, PolicyAPI: pass.Cluster.PolicyAPI, Stored: stored})
	done := reconcile.CarryOut(sw.Actions, r.do(ctx))
	for _, a := range done.Done {
		metricRepairs.WithLabelValues(string(a.Kind)).Inc()
		r.log.Info("swept a policy of a deleted plan", "policy", reconcile.ObjectName(a.Object))
	}
	if err := errors.Join(done.Err(), refusedErr(done.Refused)); err != nil {
		r.fail("apply", err, "sweeping policies of deleted plans")
	}
	for _, id := range sw.Remove {
		if err := r.store.RemovePlan(id); err != nil {
			r.fail("report", err, "deleting the reports of a deleted plan", "plan", id)
			continue
		}
		delete(r.samples, id)
		delete(r.records, id)
		r.log.Info("deleted the reports of a deleted plan", "plan", id)
	}
}

func refusedErr(f *reconcile.Failure) error {
	if f == nil {
		return nil
	}
	return f
}

// reconcilePlan is one plan's pass: decide, carry out, decide again over
// what the writes returned, store the status, then what the decision
// asks to record. It returns the last decision.
func (r *reconciler) reconcilePlan(ctx context.Context, stored *plan.ProtectionPlan, c *reconcile.Cluster,
	live []*unstructured.Unstructured, now time.Time) reconcile.Output {
	log := r.log.WithValues("plan", stored.Name)
	cals, err := r.kube.Calendars(ctx, stored.Spec.Window)
	if err != nil { // what could not be read is missing: the freeze holds (reconcile.ConditionCalendars)
		r.fail("list", err, "reading the plan's calendars", "plan", stored.Name)
	}
	in := reconcile.Input{Plan: stored, Live: live, Cluster: c, Now: now, Settings: r.settings(),
		Record: r.record(stored.Name), LastSample: r.lastSample(stored.Name), Calendars: cals, Verified: r.verified[stored.Name]}
	out := reconcile.Decide(in)
	defer func() { r.keepVerified(stored.Name, out) }()
	if out.Spec != nil { // a plan applied with kubectl, completed first
		if err := r.c.Update(ctx, out.Spec); err != nil {
			r.fail("status", err, "storing the spec of a plan applied with kubectl", "plan", stored.Name)
			r.event(stored, reconcile.Event{Reason: reconcile.EventCreateFailed, Severity: reconcile.Warning, Action: "Create", Note: err.Error()})
			return reconcile.Output{Plan: stored}
		}
		in.Plan = out.Spec
		out = reconcile.Decide(in)
	}
	ending := out.Plan.Status.FinalReport.Due() && !in.Plan.Status.FinalReport.Due()
	if ending {
		r.crashAt(CrashBeforePolicyWrites)
	}
	if len(out.Actions) > 0 {
		wctx, warned := collectWarnings(ctx)
		in.Carried = reconcile.CarryOut(out.Actions, r.do(wctx))
		in.Carried.Warnings = warned.all()
		out = reconcile.Decide(in)
	}
	if len(out.Probes) > 0 {
		in.Probes = r.sendProbes(ctx, r.probes, out.Probes)
		out = reconcile.Decide(in)
	}
	if ending {
		r.crashAt(CrashAfterPolicyWrites)
	}
	if out.Retry != nil {
		log.Info("the plan waits for the next pass", "reason", out.Retry.Error())
		r.events(in.Plan, out.Events)
		return out
	}
	for _, a := range out.Repairs {
		metricRepairs.WithLabelValues(string(a.Kind)).Inc()
	}
	r.events(out.Plan, out.WriteEvents)
	if err := in.Carried.Err(); err != nil {
		r.fail("apply", err, "writing policies; the next pass retries", "plan", stored.Name)
	}
	if f := out.Failure; f != nil {
		// A lasting failure is logged once (plan.Fail records no event
		// when it fails the same way again), then at V(1) on every retry.
		l := log.V(1)
		if len(out.Events) > 0 {
			l = log
		}
		l.Info("the plan cannot be put in place; the next tick retries", "reason", f.Reason, "message", f.Message)
	}
	if out.Sample != nil {
		if err := r.store.AppendSample(stored.Name, *out.Sample); err != nil {
			r.fail("report", err, "recording a health sample", "plan", stored.Name)
		} else {
			r.samples[stored.Name] = out.Sample
		}
	}
	cur, err := r.writeStatus(ctx, in.Plan, out)
	if err != nil {
		r.fail("status", err, "status not written; the next pass decides again", "plan", stored.Name)
		return out
	}
	r.events(out.Plan, out.Events)
	if len(out.Warnings) > 0 { // shown once per plan: reconcile decides
		log.Info("the API server warned about the plan's policies", "warnings", out.Warnings)
	}
	setVerified(out.Plan)
	if reconcile.EdgeInvolved(cur) {
		rec := out.Record
		if rec == nil {
			rec = in.Record
		}
		var apps []plan.Application
		if rec != nil {
			apps = rec.Applications
		}
		r.edgePass(ctx, cur, apps, cals, now)
	}
	if out.Record != nil {
		if err := r.saveRecord(stored.Name, out.Record); err != nil {
			r.fail("report", err, "recording the plan's run", "plan", stored.Name)
		}
	}
	if out.Final != nil {
		r.finalReport(ctx, cur, out.Final, now)
	}
	return out
}

// keepVerified keeps what the plan's last check of the pass found in
// place, for the next pass's; a pass without a check forgets it.
func (r *reconciler) keepVerified(id string, out reconcile.Output) {
	if out.Health == nil {
		delete(r.verified, id)
		return
	}
	r.verified[id] = out.Health.Verified
}

// writeStatus stores the decided status when it changed, with an update
// of the status subresource carrying the stored resourceVersion
// (optimistic concurrency: a conflict means someone else wrote the plan,
// e.g. an approval; the next pass decides again from what they wrote). It
// returns the plan as stored.
func (r *reconciler) writeStatus(ctx context.Context, stored *plan.ProtectionPlan, out reconcile.Output) (*plan.ProtectionPlan, error) {
	if !out.StatusChanged && equality.Semantic.DeepEqual(stored.Status, out.Plan.Status) {
		return stored, nil
	}
	obj := stored.DeepCopy()
	obj.Status = *out.Plan.Status.DeepCopy()
	if err := r.c.Status().Update(ctx, obj); err != nil {
		return nil, fmt.Errorf("updating the status of plan %s: %w", stored.Name, err)
	}
	return obj, nil
}

// finalReport writes the final report that is due once its status is
// stored and the plan's edge restores are done (reconcile.Final.Waiting):
// the plan's last checkpoint (its run's policies, the live ones and those
// withdrawn), the report in every format, with its edge journals, unless
// the directory holds it whole already, then the status that says it is
// written. Any failure leaves it due: the next pass takes it again.
func (r *reconciler) finalReport(ctx context.Context, p *plan.ProtectionPlan, f *reconcile.Final, now time.Time) {
	fail := func(err error) {
		r.fail("report", err, "writing the final report; the next pass retries", "plan", p.Name)
		r.event(p, reconcile.ReportFailed(err))
	}
	fe, err := r.finalEdge(ctx, p)
	if err != nil {
		fail(err)
		return
	}
	// The report lists every edge restore with its outcome: it waits for
	// them (reconcile decides), and the next pass takes it again.
	if why := f.Waiting(fe); why != "" {
		r.log.V(1).Info("the final report waits", "plan", p.Name, "reason", why)
		return
	}
	r.crashAt(CrashBeforeLedgerWrite)
	if err := r.checkpoint(ctx, reconcile.Checkpoint{Plans: []string{p.Name}, Index: f.Index, Namespaces: f.Namespaces}); err != nil {
		fail(err)
		return
	}
	r.crashAt(CrashAfterLedgerWrite)
	ledger, err := r.store.LoadLedger(p.Name)
	if err != nil {
		fail(err)
		return
	}
	samples, err := r.store.LoadSamples(p.Name)
	if err != nil {
		fail(err)
		return
	}
	names, err := r.store.Names(p.Name)
	if err != nil {
		fail(err)
		return
	}
	rep, write, err := f.Report(p, ledger, samples, fe, names, now)
	if err != nil {
		fail(err)
		return
	}
	if write {
		r.crashAt(CrashBeforeReportWrite)
		paths, err := r.store.WriteReport(rep)
		if err != nil {
			fail(err)
			return
		}
		r.crashAt(CrashAfterReportWrite)
		r.log.Info("final report written", "plan", p.Name, "trigger", f.Trigger, "files", paths)
	}
	written, ev := reconcile.MarkWritten(p, f.ID, now)
	obj := p.DeepCopy()
	obj.Status = written.Status
	if err := r.c.Status().Update(ctx, obj); err != nil {
		r.fail("status", err, "recording that the final report is written; the next pass does", "plan", p.Name)
		return
	}
	r.event(obj, ev)
}

// checkpoint carries out a violations checkpoint (R-V3): it lists the
// PolicyViolation events and the PolicyReports of c's namespaces, reads
// them with c's index, and merges each plan's share into its ledger
// (violations.Checkpoint), written only when the merge changed it.
func (r *reconciler) checkpoint(ctx context.Context, c reconcile.Checkpoint) error {
	if len(c.Plans) == 0 || c.Index.Len() == 0 || len(c.Namespaces) == 0 {
		return nil
	}
	src, err := r.kube.ViolationSources(ctx, c.Namespaces)
	if err != nil {
		return err
	}
	fromEvents, evErr := violations.FromEvents(c.Index, src.Events)
	fromReports, repErr := violations.FromPolicyReports(c.Index, src.Reports)
	if err := errors.Join(evErr, repErr); err != nil {
		r.log.Info("some events or reports could not be read", "error", err) // the rest was read
	}
	var errs []error
	for _, id := range c.Plans {
		l, err := r.store.LoadLedger(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		before := len(l.Violations) + int(l.Dropped)
		l = violations.Checkpoint(l, fromEvents.Violations, fromReports.Violations)
		wrote, err := r.store.SaveLedger(id, l)
		if err != nil {
			errs = append(errs, err)
		} else if added := len(l.Violations) + int(l.Dropped) - before; wrote && added > 0 {
			metricViolations.Add(float64(added))
		}
	}
	return errors.Join(errs...)
}

// lastSample is the last sample of the plan's health file, read once,
// then kept.
func (r *reconciler) lastSample(id string) *report.HealthSample {
	if s, ok := r.samples[id]; ok {
		return s
	}
	samples, err := r.store.LoadSamples(id)
	if err != nil || len(samples) == 0 {
		return nil
	}
	r.samples[id] = &samples[len(samples)-1]
	return r.samples[id]
}

// fail counts and logs an error of a pass's step.
func (r *reconciler) fail(step string, err error, msg string, kv ...any) {
	metricErrors.WithLabelValues(step).Inc()
	r.log.Error(err, msg, kv...)
}

// events records events on the plan.
func (r *reconciler) events(p *plan.ProtectionPlan, evs []reconcile.Event) {
	for _, ev := range evs {
		r.event(p, ev)
	}
}

// event records a Kubernetes event on the plan (events.k8s.io, in the
// default namespace: plans are cluster-scoped).
func (r *reconciler) event(p *plan.ProtectionPlan, ev reconcile.Event) {
	if r.recorder == nil {
		return
	}
	typ := corev1.EventTypeNormal
	if ev.Severity == reconcile.Warning {
		typ = corev1.EventTypeWarning
	}
	const maxNote = 1000 // events.k8s.io limits note to 1 kB
	note := ev.Note
	if len(note) > maxNote {
		note = note[:maxNote-3] + "..."
	}
	r.recorder.Eventf(p, nil, typ, ev.Reason, ev.Action, "%s", note)
}

// EventFileRecovered: a file of the plan's reports directory was
// truncated or corrupt, and its previous generation replaced it.
const EventFileRecovered = "FileRecovered"

// fileRecovered is told by the store of a plan file found unreadable and
// replaced by its previous generation: an error in the log and the
// metrics, and a warning event on the plan.
func (r *reconciler) fileRecovered(id, name string, cause error) {
	r.fail("report", cause, "a plan file was unreadable; its previous generation replaces it", "plan", id, "file", name)
	if p := r.plans[id]; p != nil {
		r.event(p, reconcile.Event{Reason: EventFileRecovered, Severity: reconcile.Warning, Action: "Recover",
			Note: fmt.Sprintf("%s was unreadable (%v); its previous generation %s%s replaces it", name, cause, name, store.BackupSuffix)})
	}
}
