package plan

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/window"
)

// ProtectionPlan is a change freeze: for the applications or namespaces in
// its scope, during its window, the kinds of change its templates name are
// refused (enforce) or recorded (audit) at admission.
//
// The plan ID is metadata.name (a DNS label; it becomes the value of the
// telark.io/protection-plan label on every policy the plan deploys). People
// see spec.name. Plans are cluster-scoped because a scope spans namespaces.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=pp;pplan,categories=telark
// +kubebuilder:printcolumn:name="Title",type=string,JSONPath=`.spec.name`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="Window",type=string,JSONPath=`.status.window`
// +kubebuilder:printcolumn:name="Enforced",type=string,JSONPath=`.status.conditions[?(@.type=="EnforcementVerified")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:object:generate=true
type ProtectionPlan struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Spec   `json:"spec"`
	Status Status `json:"status,omitempty"`
}

// ProtectionPlanList is a list of plans.
//
// +kubebuilder:object:root=true
// +kubebuilder:object:generate=true
type ProtectionPlanList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ProtectionPlan `json:"items"`
}

// Spec is what the plan's author asks for.
// +kubebuilder:object:generate=true
type Spec struct {
	// Name is the display name: free text, at most 64 characters, unique
	// among plans ignoring case and surrounding spaces.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="!self.contains('{{') && !self.contains('}}')",message="spec.name must not contain {{ or }}"
	Name string `json:"name"`

	// Description says why the freeze exists. At most 512 characters.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="!self.contains('{{') && !self.contains('}}')",message="spec.description must not contain {{ or }}"
	Description string `json:"description,omitempty"`

	// Scope selects what is frozen: applications or namespaces, never both.
	Scope Scope `json:"scope"`

	// Exclusions carve kinds, or named resources of the selected
	// applications, back out of every rule.
	// +optional
	Exclusions Exclusions `json:"exclusions,omitempty"`

	// Requesters narrow the plan by who makes the request: requesters it
	// never freezes (exclude: a release pipeline's service account, an
	// on-call group), and, when include is set, the only requesters it
	// freezes. Exclusions win. Every write an exclusion admits that the
	// plan would otherwise refuse or record is recorded as such.
	// +optional
	Requesters *Requesters `json:"requesters,omitempty"`

	// BreakGlass configures the plan's break-glass grants: time-limited
	// exemptions of named users, requested with a reason and granted by
	// someone else (Status.Grants). Nil takes the defaults.
	// +optional
	BreakGlass *BreakGlass `json:"breakGlass,omitempty"`

	// EdgeActions are changes made at the window's start and undone at its
	// end (package edge): suspending what would fight the freeze, or
	// scaling workloads for maintenance. Each catalog action at most once.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=4
	EdgeActions []edge.Action `json:"edgeActions,omitempty"`

	// Warnings configures the advance warnings on writes in scope before
	// the start, during the window and before the end. Nil: on wherever
	// the operator renders warnings (its --warnings, on by default).
	// +optional
	Warnings *Warnings `json:"warnings,omitempty"`

	// Templates are entries of the fixed catalog, each at most once.
	// +kubebuilder:validation:MinItems=1
	// +listType=atomic
	Templates []TemplateRef `json:"templates"`

	// Window says when the plan is active.
	// +kubebuilder:validation:XValidation:rule="!has(self.startAt) || !has(self.endAt) || self.startAt < self.endAt",message="spec.window.endAt must be after spec.window.startAt",fieldPath=".endAt"
	Window window.Spec `json:"window"`

	// Mode is audit (admit and record) or enforce (refuse).
	Mode Mode `json:"mode"`

	// ApprovalMode is derived when the plan is created or duplicated and
	// never changes afterwards.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.approvalMode cannot change once set; duplicate the plan to get a new one"
	ApprovalMode ApprovalMode `json:"approvalMode,omitempty"`

	// Environment is at most one environment category, e.g. Production.
	// +optional
	Environment string `json:"environment,omitempty"`

	// Tags are up to 20 tag categories.
	// +optional
	// +kubebuilder:validation:MaxItems=20
	// +listType=atomic
	Tags []string `json:"tags,omitempty"`
}

// Scope is a list of applications, a list of namespaces, or namespace
// label selectors. Exactly one of the three is set, and which one cannot
// change after creation.
//
// The CRD checks both with CEL, as Validate and ValidateUpdate do: an
// empty list counts as unset, and a change from or to a scope that has no
// type (an object written before the rule) is not refused.
//
// +kubebuilder:object:generate=true
// +kubebuilder:validation:XValidation:rule="[has(self.applications) && size(self.applications) > 0, has(self.namespaces) && size(self.namespaces) > 0, has(self.namespaceSelectors) && size(self.namespaceSelectors) > 0].filter(x, x).size() == 1",message="spec.scope must set exactly one of applications, namespaces or namespaceSelectors"
// +kubebuilder:validation:XValidation:rule="[has(oldSelf.applications) && size(oldSelf.applications) > 0, has(oldSelf.namespaces) && size(oldSelf.namespaces) > 0, has(oldSelf.namespaceSelectors) && size(oldSelf.namespaceSelectors) > 0].filter(x, x).size() != 1 || [has(self.applications) && size(self.applications) > 0, has(self.namespaces) && size(self.namespaces) > 0, has(self.namespaceSelectors) && size(self.namespaceSelectors) > 0].filter(x, x).size() != 1 || ((has(oldSelf.applications) && size(oldSelf.applications) > 0) == (has(self.applications) && size(self.applications) > 0) && (has(oldSelf.namespaces) && size(oldSelf.namespaces) > 0) == (has(self.namespaces) && size(self.namespaces) > 0))",message="spec.scope: the scope type (applications, namespaces or namespaceSelectors) cannot change after creation; create a new plan instead"
type Scope struct {
	// Applications are resolved by the embedder (see ApplicationResolver)
	// into namespaces, a label selector and member resources.
	// +optional
	// +listType=atomic
	Applications []string `json:"applications,omitempty"`
	// Namespaces are frozen as a whole.
	// +optional
	// +listType=atomic
	Namespaces []string `json:"namespaces,omitempty"`
	// NamespaceSelectors select namespaces by their labels, as Kubernetes
	// writes label selectors; a namespace is in scope when any of them
	// selects it (they are ORed), including a namespace created or
	// labelled after the plan became active. An empty selector ({}) is the
	// whole cluster and must be listed alone. Whatever the selectors say,
	// the release namespace, the excluded namespaces and kube-system,
	// kube-public and kube-node-lease are never in scope
	// (AlwaysLeftOut). While the plan is active, relabelling a namespace
	// out of the selectors is itself frozen.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	NamespaceSelectors []metav1.LabelSelector `json:"namespaceSelectors,omitempty"`
}

// ScopeType says which part of a Scope is used.
type ScopeType string

const (
	// ScopeApplications is a scope given as applications.
	ScopeApplications ScopeType = "applications"
	// ScopeNamespaces is a scope given as namespaces.
	ScopeNamespaces ScopeType = "namespaces"
	// ScopeNamespaceSelectors is a scope given as namespace label
	// selectors (the whole cluster being the selector {}).
	ScopeNamespaceSelectors ScopeType = "namespaceSelectors"
)

// Type returns the scope type, or "" when not exactly one part is set.
func (s Scope) Type() ScopeType {
	apps, nss, sels := len(s.Applications) > 0, len(s.Namespaces) > 0, len(s.NamespaceSelectors) > 0
	switch {
	case apps && !nss && !sels:
		return ScopeApplications
	case nss && !apps && !sels:
		return ScopeNamespaces
	case sels && !apps && !nss:
		return ScopeNamespaceSelectors
	}
	return ""
}

// Exclusions carve changes back out of a plan.
// +kubebuilder:object:generate=true
type Exclusions struct {
	// Kinds are whole kinds (e.g. ConfigMap), excluded in either scope
	// type. Excluding a kind also excludes its /scale subresource.
	// +optional
	// +listType=atomic
	Kinds []string `json:"kinds,omitempty"`
	// Resources are named resources of the selected applications
	// (applications scope only). Excluding one also excludes its /scale.
	// +optional
	// +listType=atomic
	Resources []ResourceRef `json:"resources,omitempty"`
}

// Requesters are who a plan freezes, after seed 004's audiences: include
// (when set, only these requesters are frozen; entries are ORed) and
// exclude (never frozen, whatever include says).
// +kubebuilder:object:generate=true
type Requesters struct {
	// Include, when it names anyone, limits the plan to these requesters.
	// +optional
	Include RequesterSet `json:"include,omitzero"`
	// Exclude are requesters the plan never freezes. Their writes that the
	// plan would otherwise refuse or record are admitted and recorded as
	// admitted by an exemption.
	// +optional
	Exclude RequesterSet `json:"exclude,omitzero"`
}

// RequesterSet names requesters as the API server authenticates them.
// Names are exact (no patterns) and case-sensitive, at most
// MaxRequesterNameLength characters, without control characters, "{{",
// "}}", "$(" (Kyverno variables and references), "*" or "?" (Kyverno
// reads them as wildcards); at most
// MaxRequesters entries per list.
// +kubebuilder:object:generate=true
type RequesterSet struct {
	// Users are user names (the request's userInfo.username). A service
	// account goes in ServiceAccounts, not here as
	// system:serviceaccount:<namespace>:<name>.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=256
	// +listType=atomic
	Users []string `json:"users,omitempty"`
	// Groups are group names (any of the request's userInfo.groups).
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=256
	// +listType=atomic
	Groups []string `json:"groups,omitempty"`
	// ServiceAccounts are service accounts written namespace:name (e.g.
	// ci:release-pipeline): the user system:serviceaccount:ci:release-pipeline.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=317
	// +listType=atomic
	ServiceAccounts []string `json:"serviceAccounts,omitempty"`
}

// IsEmpty reports whether the set names nobody.
func (s RequesterSet) IsEmpty() bool {
	return len(s.Users) == 0 && len(s.Groups) == 0 && len(s.ServiceAccounts) == 0
}

// ServiceAccountPrefix starts the user name of every service account.
const ServiceAccountPrefix = "system:serviceaccount:"

// ServiceAccountUser returns the user name of a service account written
// namespace:name: system:serviceaccount:namespace:name.
func ServiceAccountUser(sa string) string { return ServiceAccountPrefix + sa }

// Matches reports whether the set names a requester: its user name is one
// of Users or of the ServiceAccounts' user names, or one of its groups is
// one of Groups. Comparisons are exact.
func (s RequesterSet) Matches(username string, groups []string) bool {
	if slices.Contains(s.Users, username) {
		return true
	}
	if sa, ok := strings.CutPrefix(username, ServiceAccountPrefix); ok && slices.Contains(s.ServiceAccounts, sa) {
		return true
	}
	return slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(s.Groups, g) })
}

// ExcludeSet returns the plan's excluded requesters (none for nil).
func (r *Requesters) ExcludeSet() RequesterSet {
	if r == nil {
		return RequesterSet{}
	}
	return r.Exclude
}

// IncludeSet returns the plan's included requesters (none for nil: the
// plan freezes everyone).
func (r *Requesters) IncludeSet() RequesterSet {
	if r == nil {
		return RequesterSet{}
	}
	return r.Include
}

// ResourceRef names one namespaced resource.
// +kubebuilder:object:generate=true
type ResourceRef struct {
	// Kind is the resource kind, e.g. Deployment.
	Kind string `json:"kind"`
	// Name is the object's name.
	Name string `json:"name"`
	// Namespace is the object's namespace.
	Namespace string `json:"namespace"`
}

// TemplateRef selects one template of the catalog.
// +kubebuilder:object:generate=true
type TemplateRef struct {
	// Name is the catalog name of the template, e.g. image-change.
	Name string `json:"name"`
	// Parameters are values for parameters the template declares, written
	// as strings and parsed with the declared type.
	// +optional
	Parameters map[string]string `json:"parameters,omitempty"`
}

// Mode is audit or enforce.
// +kubebuilder:validation:Enum=audit;enforce
type Mode string

const (
	// ModeAudit admits the change and records "would be blocked by
	// protection plan ...".
	ModeAudit Mode = "audit"
	// ModeEnforce refuses the change at admission.
	ModeEnforce Mode = "enforce"
)

// ApprovalMode says whether the plan waits for an approver.
// +kubebuilder:validation:Enum=automatic;required
type ApprovalMode string

const (
	// ApprovalAutomatic plans need no approval.
	ApprovalAutomatic ApprovalMode = "automatic"
	// ApprovalRequired plans wait in pending_approval, deploying nothing,
	// until an approver decides.
	ApprovalRequired ApprovalMode = "required"
)

// Phase is where a plan is in its lifecycle.
// +kubebuilder:validation:Enum=pending_approval;scheduled;active;terminated;canceled;failed
type Phase string

const (
	// PhasePendingApproval waits for a decision; nothing is deployed.
	PhasePendingApproval Phase = "pending_approval"
	// PhaseScheduled waits for its window; nothing is deployed.
	PhaseScheduled Phase = "scheduled"
	// PhaseActive is inside its window; its policies are deployed.
	PhaseActive Phase = "active"
	// PhaseTerminated ended with its window.
	PhaseTerminated Phase = "terminated"
	// PhaseCanceled was canceled (or rejected).
	PhaseCanceled Phase = "canceled"
	// PhaseFailed could not be put in place; Ready says why and the next
	// tick retries.
	PhaseFailed Phase = "failed"
)

// Condition types on a plan's status.
const (
	// ConditionReady is true when the plan is in the phase its window asks
	// for and nothing stops it from being put in place.
	ConditionReady = "Ready"
	// ConditionApproved is true when the plan needs no approval or the
	// current version was approved.
	ConditionApproved = "Approved"
	// ConditionPoliciesHealthy is true when the live policies match a fresh
	// render of the plan.
	ConditionPoliciesHealthy = "PoliciesHealthy"
)

// Status is what the operator and the API observed and decided.
// +kubebuilder:object:generate=true
type Status struct {
	// Phase is the lifecycle phase.
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Window describes the window for people (and the printer column).
	// +optional
	Window string `json:"window,omitempty"`

	// NextEdge is the next start or end of the window after the last
	// transition: the operator's timer.
	// +optional
	NextEdge *metav1.Time `json:"nextEdge,omitempty"`

	// LastReconciled is when a pass of the operator last decided the plan,
	// to within reconcile.Settings.ReconciledEvery (10 minutes by
	// default): a pass stamps it when it writes the status anyway, and
	// otherwise only once it is that old, so that a steady pass writes
	// nothing. The operator's metric
	// protectionplans_last_successful_pass_timestamp_seconds has the
	// exact time.
	// +optional
	LastReconciled *metav1.Time `json:"lastReconciled,omitempty"`

	// StartedAt is when the plan first became active in its current run
	// (since creation or the last reactivation). A plan that never started
	// has no final report.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// Conditions are Ready, Approved and PoliciesHealthy, and Reconciling
	// and Stalled in the kstatus convention (see ConditionReconciling).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ApprovalRequest is the open request, while the plan waits for a
	// decision.
	// +optional
	ApprovalRequest *ApprovalRequest `json:"approvalRequest,omitempty"`

	// LastDecision is the latest approval decision.
	// +optional
	LastDecision *ApprovalDecision `json:"lastDecision,omitempty"`

	// Proposers are the users who put the current version up for approval
	// since the last decision: the creator, reactivators and material
	// editors. None of them may decide it.
	// +optional
	// +listType=set
	Proposers []string `json:"proposers,omitempty"`

	// RequestSeq numbers approval requests so that every request ID of a
	// plan is new.
	// +optional
	RequestSeq int64 `json:"requestSeq,omitempty"`

	// Timeline is what happened to the plan, oldest first, capped at
	// MaxTimeline entries (the oldest are dropped and counted).
	// +optional
	// +listType=atomic
	Timeline []TimelineEvent `json:"timeline,omitempty"`

	// TimelineDropped counts timeline events dropped by the cap.
	// +optional
	TimelineDropped int64 `json:"timelineDropped,omitempty"`

	// Policies is the health of each policy at the last check, those not
	// ok first, at most health.MaxRecordedPolicies of them (a plan over
	// thousands of namespaces would not fit in one object).
	// +optional
	// +listType=atomic
	Policies []PolicyStatus `json:"policies,omitempty"`

	// PoliciesOmitted counts the policies of the last check that Policies
	// leaves out (all ok when fewer than the cap are not).
	// +optional
	PoliciesOmitted int64 `json:"policiesOmitted,omitempty"`

	// ValidatedGeneration is the spec generation last validated against
	// the cluster: by a server when it created or edited the plan, or by
	// the controller for a plan applied or edited with kubectl. A plan
	// whose generation is not validated renders nothing new.
	// +optional
	ValidatedGeneration int64 `json:"validatedGeneration,omitempty"`

	// FinalReport is the final report of the current run: set by the
	// lifecycle step that ends a started run (its window ended, or it was
	// canceled), and marked written by the pass that wrote it. Recorded
	// here, not on one replica's disk, so that a report is written once
	// whichever replica leads.
	// +optional
	FinalReport *FinalReportStatus `json:"finalReport,omitempty"`

	// Grants are the plan's break-glass grants, requested, in force or
	// ended, oldest first, at most MaxGrants (the oldest ended ones are
	// dropped first).
	// +optional
	// +listType=map
	// +listMapKey=id
	Grants []Grant `json:"grants,omitempty"`

	// GrantSeq numbers grants so that every grant ID of a plan is new.
	// +optional
	GrantSeq int64 `json:"grantSeq,omitempty"`

	// Enforcement is how the plan's policies were last put in place: the
	// render target and layout. Readers (a server's health refresh) take
	// them from here instead of mirroring the operator's settings.
	// +optional
	Enforcement *EnforcementStatus `json:"enforcement,omitempty"`

	// Coverage, for a namespaceSelectors scope, are the namespaces its
	// selectors cover in the current run (or covered in the last one) and
	// since when (UpdateCoverage): for reports, health and dashboards. The
	// policies do not depend on it: their own namespace selectors cover a
	// namespace the moment it is labelled.
	// +optional
	// +listType=atomic
	Coverage []Coverage `json:"coverage,omitempty"`
}

// FinalReportStatus is the final report of a run.
// +kubebuilder:object:generate=true
type FinalReportStatus struct {
	// Trigger is why the run ended: end (its window ended) or cancel.
	// +kubebuilder:validation:Enum=end;cancel
	Trigger string `json:"trigger"`

	// RunEndedAt is when the run ended. The report's ID is derived from
	// it, so that every writer names the report the same way.
	RunEndedAt metav1.Time `json:"runEndedAt"`

	// ID is the report's ID, once written.
	// +optional
	ID string `json:"id,omitempty"`

	// WrittenAt is when the report was written; unset while it is due.
	// +optional
	WrittenAt *metav1.Time `json:"writtenAt,omitempty"`
}

// Due reports whether the final report is still to be written.
func (f *FinalReportStatus) Due() bool { return f != nil && f.WrittenAt == nil }

// EnforcementStatus is how a plan's policies were put in place.
// +kubebuilder:object:generate=true
type EnforcementStatus struct {
	// Target is the render target (kyverno, kyverno-cel, vap).
	// +kubebuilder:validation:MaxLength=32
	Target string `json:"target"`

	// Compact is true for the compact layout: one policy per namespace
	// for all of the plan's templates.
	// +optional
	Compact bool `json:"compact,omitempty"`

	// GrantedUsers are the users of the break-glass grants in force that
	// the policies were last put in place with: when the grants in force
	// change (granted, revoked, expired), the policies are put in place
	// again, which is not drift.
	// +optional
	// +listType=atomic
	GrantedUsers []string `json:"grantedUsers,omitempty"`
}

// ApprovalRequest is an open request for a decision.
// +kubebuilder:object:generate=true
type ApprovalRequest struct {
	// ID names the request; a decision must quote it.
	ID string `json:"id"`
	// Reason is why it was opened: created, reactivated or edited.
	Reason string `json:"reason"`
	// RequestedBy is who opened it.
	RequestedBy string `json:"requestedBy"`
	// RequestedAt is when.
	RequestedAt metav1.Time `json:"requestedAt"`
}

// Decision is approve or reject.
// +kubebuilder:validation:Enum=approved;rejected
type Decision string

const (
	// DecisionApproved lets the plan proceed.
	DecisionApproved Decision = "approved"
	// DecisionRejected cancels the plan.
	DecisionRejected Decision = "rejected"
)

// ApprovalDecision records a decision.
// +kubebuilder:object:generate=true
type ApprovalDecision struct {
	// RequestID is the request answered.
	RequestID string `json:"requestID"`
	// Decision is approved or rejected.
	Decision Decision `json:"decision"`
	// DecidedBy is the approver.
	DecidedBy string `json:"decidedBy"`
	// DecidedAt is when.
	DecidedAt metav1.Time `json:"decidedAt"`
	// Comment is mandatory for a rejection.
	// +optional
	Comment string `json:"comment,omitempty"`
}

// EventType is what a timeline entry records.
type EventType string

// Timeline event types.
const (
	EventCreated          EventType = "Created"
	EventEdited           EventType = "Edited"
	EventApprovalRequired EventType = "ApprovalRequested"
	EventApproved         EventType = "Approved"
	EventRejected         EventType = "Rejected"
	EventPhaseChanged     EventType = "PhaseChanged"
	EventCanceled         EventType = "Canceled"
	EventReactivated      EventType = "Reactivated"
	EventDuplicated       EventType = "Duplicated"
	EventFailed           EventType = "Failed"
	EventHealthChanged    EventType = "HealthChanged"
	// EventGrantRequested, EventGranted and EventGrantRevoked record a
	// break-glass grant's steps.
	EventGrantRequested EventType = "GrantRequested"
	EventGranted        EventType = "Granted"
	EventGrantRevoked   EventType = "GrantRevoked"
	// EventGrantExpired records that a grant's users are no longer
	// exempt, recorded by the pass that put the policies in place without
	// them.
	EventGrantExpired EventType = "GrantExpired"
	// EventRecovered records that a failed plan was put in place again
	// on retry.
	EventRecovered EventType = "Recovered"
)

// TimelineEvent is one entry of a plan's timeline.
// +kubebuilder:object:generate=true
type TimelineEvent struct {
	// Time is when it happened.
	Time metav1.Time `json:"time"`
	// Type is what happened.
	Type EventType `json:"type"`
	// Actor is who did it; empty for the controller.
	// +optional
	Actor string `json:"actor,omitempty"`
	// Phase is the phase after the event.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Message says more, for people.
	// +optional
	Message string `json:"message,omitempty"`
}

// PolicyStatus is the health of one managed policy.
// +kubebuilder:object:generate=true
type PolicyStatus struct {
	// Namespace and Name identify the policy.
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Template is the catalog template it renders.
	Template string `json:"template"`
	// State is ok, missing, outdated, action_changed or unexpected.
	State string `json:"state"`
}
