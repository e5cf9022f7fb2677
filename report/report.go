package report

import (
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// SchemaVersion is the version of the report's JSON schema
// (schema/report.v1.schema.json). It changes only when a field is removed
// or changes meaning; adding a field keeps it.
const SchemaVersion = 1

// MaxViolations is how many violations a report keeps (the ledger's cap).
// Build keeps the newest and counts the rest in Violations.Dropped.
const MaxViolations = 5000

// Report is the record of one run of a plan: what it was, what it covered,
// what happened to it and what it caught. It is plain data, built by Build
// and written by Write in every Format; its JSON form is the stable,
// versioned schema described in the package documentation. All times are
// UTC.
type Report struct {
	// SchemaVersion is SchemaVersion.
	SchemaVersion int `json:"schemaVersion"`
	// ID names the report: "<plan ID>-<trigger>-<generated, UTC>", e.g.
	// "nightly-image-freeze-end-20260722T040031Z".
	ID string `json:"id"`
	// Trigger is why the report was made: manual, cancel or end.
	Trigger Trigger `json:"trigger"`
	// GeneratedAt is when it was made (Build's now).
	GeneratedAt time.Time `json:"generatedAt"`
	// RunStart is when the plan first became active in this run
	// (Status.StartedAt); RunEnd is when the run ended (the event that
	// terminated or canceled the plan) or, for a run still going, when the
	// report was made.
	RunStart time.Time `json:"runStart"`
	RunEnd   time.Time `json:"runEnd"`
	// Plan is the plan's configuration.
	Plan PlanInfo `json:"plan"`
	// Scope is the scope as resolved when the report was made.
	Scope Scope `json:"scope"`
	// Exclusions carve kinds and named resources out of every rule.
	Exclusions Exclusions `json:"exclusions"`
	// Templates are the catalog templates the plan renders, with their
	// parameters.
	Templates []Template `json:"templates"`
	// Policies are the admission policies the plan deployed.
	Policies []PolicyInfo `json:"policies"`
	// Timeline is what happened to the plan during the run.
	Timeline Timeline `json:"timeline"`
	// Health is the plan's health over the run.
	Health Health `json:"health"`
	// Violations are the admission decisions the plan's policies recorded.
	Violations Violations `json:"violations"`
	// BreakGlass are the run's break-glass grants and the writes made
	// under them; absent when the run had none.
	BreakGlass *BreakGlass `json:"breakGlass,omitempty"`
	// EdgeActions are the run's edge actions: every participant with what
	// its start and its restore did; absent when the plan has none.
	EdgeActions *EdgeActions `json:"edgeActions,omitempty"`
	// Summary are the figures a reader looks at first.
	Summary Summary `json:"summary"`
}

// PlanInfo is the plan's configuration when the report was made.
type PlanInfo struct {
	// ID is the plan's metadata.name.
	ID string `json:"id"`
	// Name is the display name; Description says why the freeze exists.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Environment is the plan's environment category ("" for none); Tags
	// its tag categories.
	Environment string   `json:"environment"`
	Tags        []string `json:"tags"`
	// Mode is audit or enforce; ApprovalMode automatic or required.
	Mode         plan.Mode         `json:"mode"`
	ApprovalMode plan.ApprovalMode `json:"approvalMode"`
	// Phase is the plan's phase when the report was made.
	Phase plan.Phase `json:"phase"`
	// Window is the plan's window.
	Window WindowInfo `json:"window"`
}

// WindowInfo is the plan's window, described and as written.
type WindowInfo struct {
	// Description is window.Describe of Spec.
	Description string `json:"description"`
	// Spec is the window as written in the plan.
	Spec window.Spec `json:"spec"`
}

// Scope is the plan's scope as resolved: applications with the namespaces
// they resolved to, or namespaces.
type Scope struct {
	// Type is applications, namespaces or namespaceSelectors.
	Type plan.ScopeType `json:"type"`
	// Selectors are a namespaceSelectors scope's selectors, as kubectl
	// writes them ("{}" for the whole cluster); Namespaces are then those
	// the run covered (plan.Status.Coverage).
	Selectors []string `json:"selectors,omitempty"`
	// Applications are the applications in scope, in the plan's order.
	// Empty for a namespaces scope.
	Applications []ScopeApplication `json:"applications"`
	// Namespaces are every namespace the scope covers, sorted: the plan's
	// namespaces, or those its applications resolved to.
	Namespaces []string `json:"namespaces"`
}

// ScopeApplication is one application and the namespaces it resolved to.
// Resolved is false when the embedder did not pass its resolution.
type ScopeApplication struct {
	Name       string   `json:"name"`
	Namespaces []string `json:"namespaces"`
	Resolved   bool     `json:"resolved"`
}

// Exclusions are the plan's exclusions.
type Exclusions struct {
	// Kinds are whole kinds excluded, e.g. ConfigMap.
	Kinds []string `json:"kinds"`
	// Resources are named resources excluded.
	Resources []ExcludedResource `json:"resources"`
}

// ExcludedResource is one named resource carved out of the plan.
type ExcludedResource struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Template is one catalog template of the plan with its parameters,
// sorted by name.
type Template struct {
	Name       string      `json:"name"`
	Parameters []Parameter `json:"parameters"`
}

// Parameter is one template parameter as written in the plan.
type Parameter struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PolicyInfo is one admission policy the plan deployed. The embedder fills
// it from its render (package render) or from the live policies.
type PolicyInfo struct {
	// Namespace and Name identify the policy.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Template is the catalog template it renders.
	Template string `json:"template"`
	// Target is the kind of policy, e.g. "kyverno" or "vap".
	Target string `json:"target"`
}

// Timeline is what happened to the plan during the run.
type Timeline struct {
	// Events are the plan's timeline events of this run, oldest first:
	// from the event that began the run (Created or Reactivated) on.
	Events []TimelineEvent `json:"events"`
	// Dropped counts events the plan's timeline cap dropped
	// (Status.TimelineDropped); the run may have had more events.
	Dropped int64 `json:"dropped"`
	// Phases are the plan's phases over the period the report pictures
	// (from the first event to RunEnd), computed from the events.
	Phases []PhaseBand `json:"phases"`
}

// TimelineEvent is one entry of the plan's timeline.
type TimelineEvent struct {
	Time time.Time `json:"time"`
	// Type is what happened, e.g. Approved or PhaseChanged.
	Type plan.EventType `json:"type"`
	// Actor is who did it; empty for the controller.
	Actor string `json:"actor"`
	// Phase is the plan's phase after the event.
	Phase plan.Phase `json:"phase"`
	// Message says more, for people.
	Message string `json:"message"`
}

// PhaseBand is a period the plan spent in one phase: [Start, End).
type PhaseBand struct {
	Phase plan.Phase `json:"phase"`
	Start time.Time  `json:"start"`
	End   time.Time  `json:"end"`
}

// Health is the plan's health over the run.
type Health struct {
	// Samples are the health checks of the run, oldest first.
	Samples []HealthSample `json:"samples"`
	// Unhealthy are the periods the plan was active and not healthy,
	// computed from the samples and the phases (see UnhealthyPeriods).
	Unhealthy []UnhealthyPeriod `json:"unhealthy"`
	// UnhealthySeconds is the total length of Unhealthy, in seconds.
	UnhealthySeconds int64 `json:"unhealthySeconds"`
	// Unverified are the periods the freeze was not verified to refuse
	// (EnforcementVerified not True; UnverifiedPeriods), none when the
	// enforcement check never found anything.
	Unverified []UnhealthyPeriod `json:"unverified,omitempty"`
}

// HealthSample is one health check of the plan's policies, as the
// operator made it (package health computes it; the operator records it).
// A sample's state holds until the next sample.
type HealthSample struct {
	// At is when the check ran.
	At time.Time `json:"at"`
	// Healthy is true when every live policy matched a fresh render.
	Healthy bool `json:"healthy"`
	// Reason and Message say why not (the PoliciesHealthy condition).
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Counts of policies found missing, outdated, with a changed failure
	// action, and unexpected.
	Missing       int `json:"missing"`
	Outdated      int `json:"outdated"`
	ActionChanged int `json:"actionChanged"`
	Unexpected    int `json:"unexpected"`
}

// UnhealthyPeriod is a period [Start, End) during which the plan was
// active and its last health check said it was not healthy.
type UnhealthyPeriod struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Seconds is End - Start, rounded to the second.
	Seconds int64 `json:"seconds"`
	// Reason and Message are those of the sample that began the period.
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Violations are the admission decisions of the run.
type Violations struct {
	// Items are the violations, oldest first (by Timestamp, then Key).
	Items []violations.Violation `json:"items"`
	// Truncated is true when violations were left out: by the ledger's
	// cap or by MaxViolations. Dropped counts them.
	Truncated bool  `json:"truncated"`
	Dropped   int64 `json:"dropped"`
}

// Summary are the report's headline figures.
type Summary struct {
	// ActiveSeconds is how long the plan was active during the run;
	// ActivePeriods how many separate times it was.
	ActiveSeconds int64 `json:"activeSeconds"`
	ActivePeriods int   `json:"activePeriods"`
	// UnhealthySeconds is Health.UnhealthySeconds; UnhealthyPeriods the
	// number of Health.Unhealthy periods.
	UnhealthySeconds int64 `json:"unhealthySeconds"`
	UnhealthyPeriods int   `json:"unhealthyPeriods"`
	// Violations counts Items; Blocked and Audited split them (refused,
	// or admitted and recorded).
	Violations int `json:"violations"`
	Blocked    int `json:"blocked"`
	Audited    int `json:"audited"`
	// Decisions counts admission decisions: the sum of the items' Count
	// (an item counts at least once).
	Decisions int64 `json:"decisions"`
	// Resources counts distinct resources with a violation.
	Resources int `json:"resources"`
}

// Meta is what a report's store keeps to list, filter and prune reports
// without reading them.
type Meta struct {
	ID          string    `json:"id"`
	Plan        string    `json:"plan"`
	Environment string    `json:"environment"`
	Trigger     Trigger   `json:"trigger"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Meta returns the report's metadata.
func (r Report) Meta() Meta {
	return Meta{ID: r.ID, Plan: r.Plan.ID, Environment: r.Plan.Environment, Trigger: r.Trigger, CreatedAt: r.GeneratedAt}
}
