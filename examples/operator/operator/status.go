package operator

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// writeStatus stores next's status when it differs from stored's, with an
// update of the status subresource carrying stored's resourceVersion
// (optimistic concurrency: a conflict means someone else wrote the plan,
// e.g. an approval; the next pass decides again from what they wrote).
// It reports whether it wrote.
func (r *reconciler) writeStatus(ctx context.Context, stored, next *plan.ProtectionPlan) (bool, error) {
	if equality.Semantic.DeepEqual(stored.Status, next.Status) {
		return false, nil
	}
	obj := stored.DeepCopy()
	obj.Status = *next.Status.DeepCopy()
	if err := r.c.Status().Update(ctx, obj); err != nil {
		return false, fmt.Errorf("updating the status of plan %s: %w", stored.Name, err)
	}
	return true, nil
}

// Kubernetes event reasons the operator records on plans, besides the
// timeline event types (Created, PhaseChanged, Failed, Recovered,
// HealthChanged), which it records under their own names.
const (
	EventPoliciesApplied       = "PoliciesApplied"
	EventPoliciesDeleted       = "PoliciesDeleted"
	EventFailureActionRestored = "FailureActionRestored"
	EventWriteFailed           = "WriteFailed"
	EventReportWritten         = "ReportWritten"
	EventReportFailed          = "ReportFailed"
	EventCreateFailed          = "CreateFailed"
	// EventFileRecovered: a file of the plan's reports directory was
	// truncated or corrupt, and its previous generation replaced it.
	EventFileRecovered = "FileRecovered"
)

// event records a Kubernetes event on the plan (events.k8s.io, in the
// default namespace: plans are cluster-scoped).
func (r *reconciler) event(p *plan.ProtectionPlan, warning bool, reason, action, note string) {
	if r.recorder == nil {
		return
	}
	typ := corev1.EventTypeNormal
	if warning {
		typ = corev1.EventTypeWarning
	}
	const maxNote = 1000 // events.k8s.io limits note to 1 kB
	if len(note) > maxNote {
		note = note[:maxNote-3] + "..."
	}
	r.recorder.Eventf(p, nil, typ, reason, action, "%s", note)
}

// recordTimeline records the timeline events of one pass as Kubernetes
// events: phase changes, failures, recoveries, health changes.
func (r *reconciler) recordTimeline(p *plan.ProtectionPlan, evs []plan.TimelineEvent) {
	for _, ev := range evs {
		healthy := strings.HasPrefix(ev.Message, health.ReasonInPlace+":") ||
			strings.HasPrefix(ev.Message, health.ReasonNothingDeployed+":")
		warning := ev.Type == plan.EventFailed || (ev.Type == plan.EventHealthChanged && !healthy)
		note := ev.Message
		if note == "" {
			note = string(ev.Type)
		}
		r.event(p, warning, string(ev.Type), "Reconcile", note)
	}
}

// objectName names a policy object in events and logs: <namespace>/<name>
// for a namespaced one, <Kind> <name> for a cluster-scoped one (the vap
// target's ValidatingAdmissionPolicy and its binding share their name).
func objectName(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + u.GetName()
	}
	return u.GetKind() + " " + u.GetName()
}

// recordActions records what the pass wrote to the plan's policies.
func (r *reconciler) recordActions(p *plan.ProtectionPlan, done []health.Action) {
	byKind := map[health.ActionKind][]string{}
	for _, a := range done {
		byKind[a.Kind] = append(byKind[a.Kind], fmt.Sprintf("%s (%s)", objectName(a.Object), a.Reason))
	}
	for _, k := range []health.ActionKind{health.Apply, health.PatchFailureAction, health.Delete} {
		items := byKind[k]
		if len(items) == 0 {
			continue
		}
		sort.Strings(items)
		reason := map[health.ActionKind]string{
			health.Apply: EventPoliciesApplied, health.PatchFailureAction: EventFailureActionRestored, health.Delete: EventPoliciesDeleted,
		}[k]
		r.event(p, false, reason, string(k), fmt.Sprintf("%d: %s", len(items), strings.Join(items, "; ")))
	}
}

// fileRecovered is told by the store of a plan file found unreadable and
// replaced by its previous generation: an error in the log and the
// metrics, and a warning event on the plan.
func (r *reconciler) fileRecovered(id, name string, cause error) {
	metricErrors.WithLabelValues("report").Inc()
	r.log.Error(cause, "a plan file was unreadable; its previous generation replaces it", "plan", id, "file", name)
	if p := r.plans[id]; p != nil {
		r.event(p, true, EventFileRecovered, "Recover",
			fmt.Sprintf("%s was unreadable (%v); its previous generation %s%s replaces it", name, cause, name, BackupSuffix))
	}
}
