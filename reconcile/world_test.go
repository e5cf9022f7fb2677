package reconcile_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// world is an in-memory cluster and reports directory: what a custom
// controller would read and write, for the tests and the Example.
type world struct {
	cluster  reconcile.Cluster
	settings reconcile.Settings
	plans    map[string]*plan.ProtectionPlan
	policies map[string]*unstructured.Unstructured // by kind/namespace/name
	records  map[string]*reconcile.Record
	samples  map[string][]report.HealthSample
	files    map[string][]string // plan ID -> file names
	ledgers  map[string]violations.Ledger
	events   []string // "<plan> <severity> <reason>: <note>"
	// calendars are the ConfigMap keys holding calendars, as the
	// embedder reads them for every plan.
	calendars map[window.ConfigMapKeyRef][]byte

	writes int // policy writes and status writes
	// fail, when set, answers a policy write instead of the cluster.
	fail func(health.Action) error
	// crashAfterStatus stops a pass after its first status write (a
	// process killed there).
	crashAfterStatus bool
	// warn, when set, is the API server's warnings to a write (its 299
	// Warning headers), as the embedder's client collects them.
	warn func(health.Action) []string
	// probe answers the pass's probes (Settings.Probe); probes counts
	// them.
	probe  func(health.Probe) health.ProbeAnswer
	probes int
	// probeLog shares the probes of a pass (pass); nil outside one.
	probeLog *reconcile.ProbeLog

	// The edge actions (edgePass): the objects they act on, the journals
	// as their Secrets hold them and the finished ones kept, by plan; the
	// API server's answer to a patch (nil: accepted). reports are the
	// final reports written, by ID.
	edgeLive   []*unstructured.Unstructured
	journals   map[string]*edge.Journal
	histories  map[string]reconcile.EdgeHistory
	edgeAnswer func(edge.Patch) edge.Result
	reports    map[string]report.Report
}

func newWorld(namespaces ...string) *world {
	w := &world{plans: map[string]*plan.ProtectionPlan{}, policies: map[string]*unstructured.Unstructured{},
		records: map[string]*reconcile.Record{}, samples: map[string][]report.HealthSample{},
		files: map[string][]string{}, ledgers: map[string]violations.Ledger{},
		journals: map[string]*edge.Journal{}, histories: map[string]reconcile.EdgeHistory{}, reports: map[string]report.Report{}}
	w.cluster.Namespaces = map[string]bool{}
	for _, ns := range namespaces {
		w.cluster.Namespaces[ns] = true
	}
	w.cluster.ReleaseNamespace = "telark-system"
	w.cluster.Excluded = []string{"kube-system"}
	w.settings = reconcile.Settings{Repair: true}
	return w
}

func objKey(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

func (w *world) add(p *plan.ProtectionPlan) {
	p = p.DeepCopy()
	if p.UID == "" {
		p.UID = types.UID("uid-" + p.Name)
	}
	p.Generation = 1
	w.plans[p.Name] = p
}

// live lists a plan's policies.
func (w *world) live(id string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, k := range w.keys() {
		if u := w.policies[k]; u.GetLabels()["telark.io/protection-plan"] == id {
			out = append(out, u.DeepCopy())
		}
	}
	return out
}

func (w *world) keys() []string {
	var ks []string
	for k := range w.policies {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// do carries out one action on the in-memory cluster.
func (w *world) do(a health.Action) (*unstructured.Unstructured, error) {
	if w.fail != nil {
		if err := w.fail(a); err != nil {
			return nil, err
		}
	}
	w.writes++
	k := objKey(a.Object)
	switch a.Kind {
	case health.Delete:
		if _, ok := w.policies[k]; !ok {
			return nil, apierrors.NewNotFound(a.Object.GroupVersionKind().GroupVersion().WithResource("policies").GroupResource(), a.Object.GetName())
		}
		delete(w.policies, k)
		return nil, nil
	default: // Apply, and a failure-action patch carries the whole object
		u := a.Object.DeepCopy()
		w.policies[k] = u
		return u.DeepCopy(), nil
	}
}

// pass is the custom controller's loop over every plan at now: gather,
// decide, carry out.
func (w *world) pass(now time.Time) {
	var plans []*plan.ProtectionPlan
	for _, id := range w.ids() {
		plans = append(plans, w.plans[id])
	}
	w.cluster.Plans = plans
	w.probeLog = reconcile.NewProbeLog(w.all())
	for _, p := range plans {
		w.passPlan(p.Name, now)
	}
	w.probeLog = nil
	all := w.all()
	stored := map[string]types.UID{}
	for id, r := range w.records {
		stored[id] = r.UID
	}
	sw := reconcile.Sweep(reconcile.SweepInput{Plans: plans, Live: all, Stored: stored})
	reconcile.CarryOut(sw.Actions, w.do)
	for _, id := range sw.Remove {
		delete(w.records, id)
		delete(w.files, id)
		delete(w.samples, id)
	}
}

func (w *world) all() []*unstructured.Unstructured {
	var all []*unstructured.Unstructured
	for _, k := range w.keys() {
		all = append(all, w.policies[k])
	}
	return all
}

func (w *world) ids() []string {
	var ids []string
	for id := range w.plans {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (w *world) input(id string, now time.Time) reconcile.Input {
	in := reconcile.Input{Plan: w.plans[id].DeepCopy(), Record: w.records[id], Live: w.live(id),
		Cluster: &w.cluster, Now: now, Settings: w.settings, Calendars: w.calendars}
	if s := w.samples[id]; len(s) > 0 {
		in.LastSample = &s[len(s)-1]
	}
	return in
}

// passPlan is one plan's pass; it returns the last Output.
func (w *world) passPlan(id string, now time.Time) reconcile.Output {
	in := w.input(id, now)
	out := reconcile.Decide(in)
	if out.Spec != nil {
		out.Spec.Generation++
		w.plans[id] = out.Spec.DeepCopy()
		w.writes++
		in = w.input(id, now)
		out = reconcile.Decide(in)
	}
	if len(out.Actions) > 0 {
		in.Carried = reconcile.CarryOut(out.Actions, w.do)
		if w.warn != nil {
			for _, a := range in.Carried.Done {
				in.Carried.Warnings = append(in.Carried.Warnings, w.warn(a)...)
			}
		}
		out = reconcile.Decide(in)
	}
	if len(out.Probes) > 0 {
		log := w.probeLog
		if log == nil {
			log = reconcile.NewProbeLog(w.all())
		}
		for _, p := range log.ToSend(out.Probes) {
			w.probes++
			log.Answer(p, w.probe(p))
		}
		in.Probes = log.Results(out.Probes)
		out = reconcile.Decide(in)
	}
	if out.Retry != nil {
		w.event(id, out.Events)
		return out
	}
	w.event(id, out.WriteEvents)
	if out.StatusChanged {
		w.plans[id] = out.Plan.DeepCopy()
		w.writes++
		if w.crashAfterStatus {
			return out
		}
	}
	w.event(id, out.Events)
	if out.Sample != nil {
		w.samples[id] = append(w.samples[id], *out.Sample)
	}
	if out.Record != nil {
		w.records[id] = out.Record
	}
	w.edgePass(id, out, now)
	if f := out.Final; f != nil {
		fe := reconcile.FinalEdge{Journal: w.journals[id], History: w.histories[id]}
		if why := f.Waiting(fe); why != "" {
			w.event(id, []reconcile.Event{{Reason: "ReportWaits", Severity: reconcile.Normal, Note: why}})
			return out
		}
		l, ok := w.ledgers[id]
		if !ok {
			l = violations.NewLedger(id)
		}
		rep, write, err := f.Report(out.Plan, l, w.samples[id], fe, w.files[id], now)
		if err != nil {
			w.event(id, []reconcile.Event{reconcile.ReportFailed(err)})
			return out
		}
		if write {
			w.reports[rep.ID] = rep
			for _, ft := range report.Formats() {
				w.files[id] = append(w.files[id], report.FileName(rep.ID, ft))
			}
		}
		p, ev := reconcile.MarkWritten(out.Plan, f.ID, now)
		w.plans[id] = p
		w.writes++
		w.event(id, []reconcile.Event{ev})
	}
	return out
}

func (w *world) event(id string, evs []reconcile.Event) {
	for _, e := range evs {
		w.events = append(w.events, fmt.Sprintf("%s %s %s: %s", id, e.Severity, e.Reason, e.Note))
	}
}

// reasons are the events' reasons, in order.
func (w *world) reasons() []string {
	var out []string
	for _, e := range w.events {
		f := strings.Fields(e)
		out = append(out, f[1]+" "+strings.TrimSuffix(f[2], ":"))
	}
	return out
}

func (w *world) finalReports(id string) []string {
	var out []string
	for _, f := range w.files[id] {
		if strings.HasSuffix(f, ".json") {
			out = append(out, strings.TrimSuffix(f, ".json"))
		}
	}
	slices.Sort(out)
	return out
}

var (
	berlin, _ = time.LoadLocation("Europe/Berlin")
	start     = time.Date(2026, 12, 24, 18, 0, 0, 0, berlin)
	end       = time.Date(2026, 12, 27, 6, 0, 0, 0, berlin)
)

// freeze is a plan applied with kubectl: Christmas, two namespaces.
func freeze(id string, namespaces ...string) *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: id, CreationTimestamp: metav1.NewTime(start.Add(-48 * time.Hour))},
		Spec: plan.Spec{
			Name:         "Freeze " + id,
			Scope:        plan.Scope{Namespaces: namespaces},
			Templates:    []plan.TemplateRef{{Name: "scaling"}, {Name: "delete"}},
			Window:       window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}},
			Mode:         plan.ModeEnforce,
			ApprovalMode: plan.ApprovalAutomatic,
		},
	}
}
