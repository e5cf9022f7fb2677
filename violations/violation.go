package violations

import "time"

// Result is a policy result as Kyverno reports it.
type Result string

// Results, as in PolicyReport results.
const (
	ResultPass  Result = "pass"
	ResultFail  Result = "fail"
	ResultWarn  Result = "warn"
	ResultError Result = "error"
	ResultSkip  Result = "skip"
)

// Source says where a violation was read.
type Source string

// Sources.
const (
	// SourceEvent is a Kubernetes event (reason PolicyViolation).
	SourceEvent Source = "event"
	// SourcePolicyReport is a result of a PolicyReport.
	SourcePolicyReport Source = "policyreport"
)

// Resource names the object a change was made to.
type Resource struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// Subresource is e.g. "scale" when the change went through one.
	Subresource string `json:"subresource,omitempty"`
}

// Violation is one admission decision of a plan's policy: what was (or
// would have been) blocked, where, when and why.
type Violation struct {
	// Key identifies the decision across checkpoints so that the ledger
	// merges duplicates: the same event read twice, or an event whose
	// count grew, has the same key.
	Key string `json:"key"`
	// Plan is the plan ID (metadata.name) the policy belongs to.
	Plan string `json:"plan"`
	// Template is the catalog template that produced the policy.
	Template string `json:"template,omitempty"`
	// Policy and PolicyNamespace name the policy; Rule its rule.
	Policy          string `json:"policy"`
	PolicyNamespace string `json:"policyNamespace,omitempty"`
	Rule            string `json:"rule,omitempty"`
	// Resource is the object the change was made to.
	Resource Resource `json:"resource"`
	// Result is fail for a refused or audited change.
	Result Result `json:"result"`
	// Blocked is true when the change was refused (enforce), false when it
	// was admitted and recorded (audit).
	Blocked bool `json:"blocked"`
	// Message is the policy's message.
	Message string `json:"message"`
	// Requester is, for a write an exemption admitted (a record of the
	// plan's exempt template), the requester its message names: decoded
	// from base64 for kyverno, one line, at most 256 characters. Empty
	// otherwise.
	Requester string `json:"requester,omitempty"`
	// Timestamp is when the decision was last seen (the event's last
	// timestamp, the report result's timestamp).
	Timestamp time.Time `json:"timestamp"`
	// FirstSeen is when it was first seen; Count how many times (events
	// aggregate repeats).
	FirstSeen time.Time `json:"firstSeen,omitzero"`
	Count     int32     `json:"count,omitempty"`
	// Source is where it was read.
	Source Source `json:"source"`
}
