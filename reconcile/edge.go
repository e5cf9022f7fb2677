package reconcile

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// ConditionEdgeActions is the plan condition that says where its edge
// actions stand.
const ConditionEdgeActions = "EdgeActions"

// Reasons of the EdgeActions condition; the events of DecideEdge carry the
// same names prefixed with "EdgeActions" (EdgeActionsStarted, ...).
const (
	// EdgeStarting: the journal is written and patches are being sent.
	EdgeStarting = "Starting"
	// EdgeStarted: every participant is patched or skipped.
	EdgeStarted = "Started"
	// EdgeRestoring: the window ended (or the plan was canceled or
	// deleted) and restores are being sent.
	EdgeRestoring = "Restoring"
	// EdgeRestored: every restore is done; the journal is gone.
	EdgeRestored = "Restored"
	// EdgeRestoreFailed: a restore failed; the journal is kept and the
	// plan's deletion blocked until it is resolved or abandoned.
	EdgeRestoreFailed = "RestoreFailed"
	// EdgeRestoreRetrying: a restore was refused (another plan's freeze,
	// say) or errored; it is sent again at every pass.
	EdgeRestoreRetrying = "RestoreRetrying"
	// EdgeLimitExceeded: the start was refused before any mutation.
	EdgeLimitExceeded = "LimitExceeded"
	// EdgeJournalUnreadable: the journal cannot be trusted; nothing is
	// restored from it until it is repaired or abandoned.
	EdgeJournalUnreadable = "JournalUnreadable"
	// EdgeInvalidScope: an application's selector cannot be read, so no
	// start is decided (restores, which use recorded UIDs, still run).
	EdgeInvalidScope = "InvalidScope"
	// EdgeNoExecutor: the plan has edge actions (or a journal) but no
	// executor is configured (Settings.EdgeExecutor): nothing is started
	// or restored, since only the executor's writes pass the plan's own
	// freeze.
	EdgeNoExecutor = "NoExecutor"
)

// AnnotationEdgeAbandon on a plan gives up its failed restores (and a
// journal that cannot be read) explicitly: its value says who or why, and
// is recorded in the journal (edge.Abandon). The embedder removes the
// annotation once read (EdgeOutput.ClearAbandon), so that it abandons
// only the failures its writer saw.
const AnnotationEdgeAbandon = "protectionplans.telark.io/edge-abandon"

// EdgeInput is what DecideEdge needs: the plan as Decide left it (its
// Output.Plan), the applications Decide resolved (Output.Applications),
// the journal as persisted and the objects of edge.Kinds that are served.
type EdgeInput struct {
	Plan         *plan.ProtectionPlan
	Applications []plan.Application
	// Journal is the journal read from its Secret (edge.JournalOf), nil
	// when there is none. JournalErr is why it could not be read.
	Journal    *edge.Journal
	JournalErr error
	Live       []*unstructured.Unstructured
	Limits     edge.Limits
	// FieldManager is the patches' field manager; empty is
	// edge.DefaultFieldManager, which the plan's policies exempt.
	FieldManager string
	// Executor is the service account the embedder impersonates for the
	// patches (Settings.EdgeExecutor, namespace:name); empty decides
	// nothing (EdgeNoExecutor).
	Executor string
	Now      time.Time
	// Calendars are the calendars the plan's window names, as Input's:
	// a holiday cuts the interval the actions last for, as it cuts the
	// freeze.
	Calendars map[window.ConfigMapKeyRef][]byte
}

// EdgeRecord is one action or restore with its outcome, for the report
// and the operator's log.
type EdgeRecord struct {
	Action    edge.Name      `json:"action"`
	Target    edge.ObjectRef `json:"target"`
	State     edge.State     `json:"state"`
	Reason    string         `json:"reason,omitempty"`
	Attempts  int            `json:"attempts,omitempty"`
	LastError string         `json:"lastError,omitempty"`
}

// EdgeOutput is what DecideEdge decided.
type EdgeOutput struct {
	// Decision is edge.Decide's: persist Decision.Journal before sending
	// any of Decision.Patches; delete the journal's Secret when
	// Decision.DeleteJournal.
	Decision edge.Decision
	// Err is edge.Decide's error (*edge.LimitError, *edge.JournalError),
	// nil when it decided.
	Err error
	// AddFinalizer: add edge.Finalizer to the plan before persisting the
	// journal. RemoveFinalizer: remove it, once the journal's Secret is
	// deleted.
	AddFinalizer, RemoveFinalizer bool
	// ClearAbandon: remove AnnotationEdgeAbandon from the plan, read this
	// pass.
	ClearAbandon bool
	// Condition is the EdgeActions condition to set on the plan's status
	// (plan.SetCondition), nil when the plan has no edge actions and no
	// journal.
	Condition *metav1.Condition
	// Events are the transitions of the condition (an event only when its
	// reason changes, so a pass repeated is not an event repeated).
	Events []Event
	// Records are every action and restore of the journal with its
	// outcome: the finished journal's when it ends, else the current one.
	Records []EdgeRecord
}

// DecideEdge decides a pass of a plan's edge actions, after Decide. The
// plan is active for them while its phase is Active and its window holds
// now; a Failed plan keeps a start already made in the same window (a
// failed render is retried, not a reason to churn every CronJob) but
// starts nothing. Canceled, terminated, scheduled and deleted plans
// restore.
func DecideEdge(in EdgeInput) EdgeOutput {
	p := in.Plan
	var out EdgeOutput
	if p == nil {
		return out
	}
	deleting := p.DeletionTimestamp != nil
	has := slices.Contains(p.Finalizers, edge.Finalizer)
	if in.Executor == "" {
		if len(p.Spec.EdgeActions) == 0 && in.Journal == nil && in.JournalErr == nil {
			out.RemoveFinalizer = has
			return out
		}
		out.Decision.Finalizer = in.Journal != nil || in.JournalErr != nil
		out.RemoveFinalizer = !out.Decision.Finalizer && has
		out.Condition = &metav1.Condition{Type: ConditionEdgeActions, Status: metav1.ConditionFalse, Reason: EdgeNoExecutor,
			Message: "no edge executor is configured: the plan's edge actions are neither started nor restored"}
		out.Events = edgeEvents(p, out.Condition)
		return out
	}
	if by, ok := p.Annotations[AnnotationEdgeAbandon]; ok {
		out.ClearAbandon = true
		by = fmt.Sprintf("annotation %s=%q", AnnotationEdgeAbandon, by)
		switch {
		case in.JournalErr != nil:
			out.Decision = edge.Decision{DeleteJournal: true}
			out.RemoveFinalizer = has
			out.Condition = &metav1.Condition{Type: ConditionEdgeActions, Status: metav1.ConditionTrue, Reason: EdgeRestored,
				Message: fmt.Sprintf("the unreadable journal was abandoned by %s: nothing restored from it (%v)", by, in.JournalErr)}
			out.Events = edgeEvents(p, out.Condition)
			return out
		case in.Journal != nil && anyState(in.Journal, edge.Failed):
			j := edge.Abandon(*in.Journal, by)
			in.Journal = &j
		}
	}
	scope, scopeErr := edgeScope(p, in.Applications)
	active, windowErr := edgeActive(p, in.Journal, deleting, in.Now, resolveCalendars(p.Spec.Window, in.Calendars, in.Now).opts)
	if scopeErr != nil && in.Journal == nil {
		active = nil // without a scope, start nothing
	}
	switch {
	case in.JournalErr != nil:
		out.Err = &edge.JournalError{Reason: in.JournalErr.Error()}
		out.Decision = edge.Decision{Finalizer: true}
	default:
		actions := p.Spec.EdgeActions
		if deleting {
			actions = nil // a plan being deleted starts nothing
		}
		out.Decision, out.Err = edge.Decide(edge.Input{
			Plan:    PlanRef(p),
			Actions: actions, Scope: scope, Active: active, Journal: in.Journal,
			Live: in.Live, Limits: in.Limits, FieldManager: in.FieldManager, Now: in.Now,
		})
		if out.Err != nil && in.Journal != nil {
			out.Decision.Finalizer = true // a journal that stays keeps the finalizer
		}
	}
	out.AddFinalizer = out.Decision.Finalizer && !has && !deleting
	out.RemoveFinalizer = !out.Decision.Finalizer && has

	j := out.Decision.Journal
	if out.Decision.Finished != nil {
		j = out.Decision.Finished
	}
	if j == nil {
		j = in.Journal
	}
	if j != nil {
		out.Records = recordsOf(*j)
	}

	out.Condition = edgeCondition(out, j, len(p.Spec.EdgeActions) > 0, scopeErr, windowErr)
	out.Events = edgeEvents(p, out.Condition)
	return out
}

// edgeEvents is the event of cond when its reason is not the plan's
// current one.
func edgeEvents(p *plan.ProtectionPlan, cond *metav1.Condition) []Event {
	if cond == nil {
		return nil
	}
	if prev := findCondition(p.Status.Conditions, ConditionEdgeActions); prev != nil && prev.Reason == cond.Reason {
		return nil
	}
	sev := Normal
	if cond.Status == metav1.ConditionFalse {
		sev = Warning
	}
	return []Event{{Reason: "EdgeActions" + cond.Reason, Severity: sev, Action: "EdgeActions", Note: cond.Message}}
}

// PlanRef is the plan as the journal names it.
func PlanRef(p *plan.ProtectionPlan) edge.ObjectRef {
	return edge.ObjectRef{APIVersion: plan.GroupVersion.String(), Kind: plan.Kind, Namespace: p.Namespace, Name: p.Name, UID: p.UID}
}

// edgeActive is the window interval the edge actions act in, nil when
// they restore.
func edgeActive(p *plan.ProtectionPlan, j *edge.Journal, deleting bool, now time.Time, opts []window.Option) (*window.Interval, error) {
	if deleting {
		return nil, nil
	}
	switch p.Status.Phase {
	case plan.PhaseActive:
	case plan.PhaseFailed:
		if j == nil {
			return nil, nil
		}
	default:
		return nil, nil
	}
	w, err := window.Parse(p.Spec.Window, opts...)
	if err != nil {
		return nil, err
	}
	iv, ok := w.Containing(now)
	if !ok {
		return nil, nil
	}
	return &iv, nil
}

// edgeScope maps the plan's resolved scope to edge.Scope: its namespaces,
// or its applications' namespaces each with its selector.
func edgeScope(p *plan.ProtectionPlan, apps []plan.Application) (edge.Scope, error) {
	if p.Spec.Scope.Type() != plan.ScopeApplications {
		return edge.Scope{Namespaces: slices.Clone(p.Spec.Scope.Namespaces)}, nil
	}
	var s edge.Scope
	var errs []error
	for _, a := range apps {
		m := edge.Member{Namespaces: a.Namespaces}
		if a.Selector != nil {
			sel, err := metav1.LabelSelectorAsSelector(a.Selector)
			if err != nil {
				errs = append(errs, fmt.Errorf("application %q: selector: %w", a.Name, err))
				continue
			}
			m.Selector = sel
		} else {
			m.Selector = labels.Everything()
		}
		s.Members = append(s.Members, m)
		for _, ns := range a.Namespaces {
			if !slices.Contains(s.Namespaces, ns) {
				s.Namespaces = append(s.Namespaces, ns)
			}
		}
	}
	if s.Namespaces == nil {
		s.Namespaces = []string{} // an unresolved scope covers nothing
		s.Members = []edge.Member{{}}
	}
	return s, errors.Join(errs...)
}

func recordsOf(j edge.Journal) []EdgeRecord {
	out := make([]EdgeRecord, len(j.Entries))
	for i, e := range j.Entries {
		out[i] = EdgeRecord{Action: e.Action, Target: e.Target, State: e.State, Reason: e.Reason, Attempts: e.Attempts, LastError: e.LastError}
	}
	return out
}

func edgeCondition(out EdgeOutput, j *edge.Journal, hasActions bool, scopeErr, windowErr error) *metav1.Condition {
	c := func(status metav1.ConditionStatus, reason, msg string) *metav1.Condition {
		return &metav1.Condition{Type: ConditionEdgeActions, Status: status, Reason: reason, Message: msg}
	}
	var limit *edge.LimitError
	var journal *edge.JournalError
	switch {
	case errors.As(out.Err, &limit):
		return c(metav1.ConditionFalse, EdgeLimitExceeded, limit.Error())
	case errors.As(out.Err, &journal):
		return c(metav1.ConditionFalse, EdgeJournalUnreadable, journal.Error()+": repair or abandon it")
	case out.Decision.DeleteJournal:
		return c(metav1.ConditionTrue, EdgeRestored, fmt.Sprintf("%d participants restored or left as found", count(j, edge.Restored)))
	case j != nil && anyState(j, edge.Failed):
		return c(metav1.ConditionFalse, EdgeRestoreFailed, failedMessage(*j))
	case j != nil && j.Phase == edge.Restoring && lastError(*j) != "":
		return c(metav1.ConditionFalse, EdgeRestoreRetrying, lastError(*j)+": retried at every pass")
	case j != nil && j.Phase == edge.Restoring:
		return c(metav1.ConditionTrue, EdgeRestoring, fmt.Sprintf("%d of %d participants to restore", len(out.Decision.Patches), len(j.Entries)))
	case j != nil && j.Phase == edge.Starting:
		return c(metav1.ConditionTrue, EdgeStarting, fmt.Sprintf("%d participants, %d skipped", len(j.Entries), count(j, edge.Skipped)))
	case j != nil && j.Phase == edge.Started:
		return c(metav1.ConditionTrue, EdgeStarted, fmt.Sprintf("%d participants, %d skipped", len(j.Entries), count(j, edge.Skipped)))
	case scopeErr != nil && hasActions:
		return c(metav1.ConditionFalse, EdgeInvalidScope, scopeErr.Error())
	case windowErr != nil && hasActions:
		return c(metav1.ConditionFalse, plan.ReasonInvalidWindow, windowErr.Error())
	}
	return nil
}

func count(j *edge.Journal, s edge.State) int {
	n := 0
	for _, e := range j.Entries {
		if e.State == s {
			n++
		}
	}
	return n
}

func anyState(j *edge.Journal, s edge.State) bool { return count(j, s) > 0 }

func failedMessage(j edge.Journal) string {
	for _, e := range j.Entries {
		if e.State == edge.Failed {
			msg := fmt.Sprintf("%d restores failed; first: %s: %s", count(&j, edge.Failed), e.Target, cmp.Or(e.Reason, e.LastError))
			return msg + ": the journal is kept and the plan's deletion blocked until it is resolved or abandoned"
		}
	}
	return ""
}

// lastError names the first entry still to restore whose last attempt
// failed, with the error.
func lastError(j edge.Journal) string {
	n := 0
	first := ""
	for _, e := range j.Entries {
		if (e.State == edge.Applied || e.State == edge.Pending) && e.LastError != "" {
			if n++; first == "" {
				first = fmt.Sprintf("%s %s", e.Target, e.LastError)
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d restores not done; first: %s", n, first)
}

func findCondition(conds []metav1.Condition, t string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// EdgeInvolved reports whether p may have an edge journal to read: it
// has edge actions, keeps the restore finalizer, or asks to abandon one.
// An embedder reads the journal (for DecideEdge, and for a final report's
// FinalEdge) only then: a plan without edge actions has none, and an
// embedder with no place for journals must still write its reports.
func EdgeInvolved(p *plan.ProtectionPlan) bool {
	return len(p.Spec.EdgeActions) > 0 || slices.Contains(p.Finalizers, edge.Finalizer) || p.Annotations[AnnotationEdgeAbandon] != ""
}
