package reconcile

import (
	"time"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
)

// Severity is how an event is recorded: a Kubernetes event's type.
type Severity string

// Severities.
const (
	Normal  Severity = "Normal"
	Warning Severity = "Warning"
)

// Event reasons Decide returns besides the timeline event types (Created,
// PhaseChanged, Failed, Recovered, HealthChanged, ...), which it returns
// under their own names.
const (
	EventPoliciesApplied       = "PoliciesApplied"
	EventPoliciesDeleted       = "PoliciesDeleted"
	EventFailureActionRestored = "FailureActionRestored"
	EventWriteFailed           = "WriteFailed"
	EventReportWritten         = "ReportWritten"
	EventReportFailed          = "ReportFailed"
	EventCreateFailed          = "CreateFailed"
	EventCreateDeferred        = "CreateDeferred"
	EventValidationDeferred    = "ValidationDeferred"
)

// Event is something to tell people about a plan (a Kubernetes event).
type Event struct {
	Reason   string
	Severity Severity
	// Action is what was done ("Reconcile", "Create", "Apply", ...).
	Action string
	Note   string
}

// Failure is why an active plan cannot be put in place: a plan.Fail
// reason and message.
type Failure struct {
	Reason  string
	Message string
}

func (f *Failure) Error() string { return f.Reason + ": " + f.Message }

// Output is what Decide decided.
type Output struct {
	// Spec, when set, is a plan applied with kubectl with its spec
	// completed (approval mode, defaults): store it, then decide again
	// from the stored object. Nothing else is set.
	Spec *plan.ProtectionPlan
	// Actions are the writes to the plan's policies, in order. On a first
	// call, carry them out (CarryOut) and call Decide again with Carried;
	// only that second Output counts.
	Actions []health.Action
	// Probes, when set, are server-side dry-runs to send (create with
	// dryRun=All) before deciding again with their answers in
	// Input.Probes; only that Output counts. Set on a pass that wrote
	// nothing to the plan's policies, whose policies are in place, with
	// Settings.Probe.
	Probes []health.Probe
	// Enforcement is the pass's enforcement check (nil when the Cluster
	// has no Enforcer or no health check ran).
	Enforcement *health.EnforcementResult
	// Plan is the plan as decided.
	Plan *plan.ProtectionPlan
	// StatusChanged is true when Plan's status differs from the stored
	// one: write it, with the stored resourceVersion.
	StatusChanged bool
	// Events are what to tell people once the status is stored (the
	// timeline of the pass: a status that was not stored is decided
	// again, and its events with it).
	Events []Event
	// WriteEvents say what the pass wrote to the plan's policies, and
	// which writes failed: tell them whatever becomes of the status.
	WriteEvents []Event
	// Health is the health check of the pass (nil when none ran: a plan
	// that failed before it was rendered, or a policy API not served).
	Health *health.Result
	// Failure is why an active plan renders nothing, when it does not.
	Failure *Failure
	// Sample is a health sample to append to the plan's history.
	Sample *report.HealthSample
	// Record is what to record for the next pass; nil when unchanged.
	Record *Record
	// Final is a final report that is due. Write it only once the status
	// that holds it (Plan's) is stored.
	Final *Final
	// Repairs are the writes of this pass that repaired drift of a plan
	// already in place (not the plan being put in place or withdrawn).
	Repairs []health.Action
	// NextEdge is the plan's next window edge, or the expiry of a
	// break-glass grant when that comes first: the embedder's timer.
	NextEdge *time.Time
	// Retry says why a plan applied with kubectl was left as it is (a
	// lookup failed); the next pass tries again.
	Retry error
	// Warnings are the API server's warnings to this pass's writes
	// (Carried.Warnings) that the plan shows for the first time: log
	// them. They are also the lines of one EventAPIWarning in Events and
	// lines of plan.ConditionAPIWarnings; a warning already shown is in
	// none of them.
	Warnings []string
}
