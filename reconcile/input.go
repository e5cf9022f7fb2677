package reconcile

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/window"
)

// Settings are how the embedder runs.
type Settings struct {
	// Target is the kind of policy plans render to; empty is
	// render.TargetKyverno.
	Target render.Target
	// Compact renders the compact layout (render.Input.Compact).
	Compact bool
	// Repair writes: Decide returns the actions that put a plan's policies
	// in place, withdraw them and repair drift. Without it (a health
	// refresh) nothing is written and the health is reported as found.
	Repair bool
	// Clock renders policies that keep time themselves on a target with a
	// clock (render.Input.Clock): they are put in place up to Lead before
	// a window's start (render.Armed) and refuse only from its start
	// instant to its end instant, so an edge happens on time even while
	// no pass runs (issue 20). vap ignores it.
	Clock bool
	// Lead is how long before the start clocked policies are put in
	// place and warnings begin; zero is render.DefaultLead. A plan's
	// spec.warnings.lead overrides it (render.Lead).
	Lead time.Duration
	// Warnings renders the plans' advance warnings (render.Input.Warnings):
	// a warning policy per namespace, in place from the lead before the
	// start. Where the policies do not read the clock (vap, or without
	// Clock) its text is static, and the pass comes back at each phase
	// change to swap it (render.NextWarningEdge).
	Warnings bool
	// Approval derives the approval mode of plans applied with kubectl.
	Approval approval.Config
	// Probe sends health's active probes (server-side dry-runs the
	// plan's policies must refuse) on every pass that may: see
	// Output.Probes.
	Probe bool
	// EdgeExecutor is the service account (namespace:name) the embedder
	// impersonates to carry out edge actions (render.Input.EdgeExecutor):
	// the plans' policies admit its writes of their own actions.
	EdgeExecutor string
	// ReconciledEvery stamps the plan's status.lastReconciled: on every
	// status the pass writes anyway, and on a pass that would write
	// nothing once the stamp is ReconciledEvery old (DefaultReconciledEvery
	// is the embedder's sensible value). Zero stamps nothing.
	ReconciledEvery time.Duration
}

func (s Settings) target() render.Target {
	if s.Target == "" {
		return render.TargetKyverno
	}
	return s.Target
}

// Cluster is what a pass knows of the cluster, the same for every plan.
type Cluster struct {
	// Namespaces are the namespaces that exist and are not being deleted.
	Namespaces map[string]bool
	// NamespaceLabels are the namespaces' labels, by name: what a
	// namespaceSelectors scope selects (Status.Coverage). nil: none read.
	NamespaceLabels map[string]map[string]string
	// ReleaseNamespace is where the product runs; no plan may freeze it.
	ReleaseNamespace string
	// Excluded are the namespaces plans may not target, and ExcludedErr
	// why they could not be read.
	Excluded    []string
	ExcludedErr error
	// Categories are the environments and tags plans may carry, and
	// CategoriesErr why they could not be read.
	Categories    plan.Categories
	CategoriesErr error
	// Applications resolves applications; nil when nothing was listed
	// (every application is then unresolved).
	Applications plan.ApplicationResolver
	// Kinds are the custom kinds the cluster serves (discovery facts, from
	// its CRDs): what plans may name as <Kind>.<group>, and the kinds with
	// a /scale the scaling template covers. nil: none known.
	Kinds plan.ServedKinds
	// PolicyAPI is non-nil when the target's policy kinds are not served
	// (the policy engine is not installed): no plan can be put in place.
	PolicyAPI error
	// Plans are every plan in the cluster, for the names of plans applied
	// with kubectl.
	Plans []*plan.ProtectionPlan
	// Enforcer is what the pass read of the enforcer; nil: no
	// EnforcementVerified is decided.
	Enforcer *Enforcer
}

// Record is what a pass records about a plan for the next one, on the
// embedder's own storage: the policies and applications of the current
// run (a final report lists them after they are withdrawn), and the
// phase and start it last saw. It is a cache: losing it costs a final
// report the list of policies already withdrawn, never a report.
type Record struct {
	UID          types.UID           `json:"uid"`
	Phase        plan.Phase          `json:"phase"`
	StartedAt    *metav1.Time        `json:"startedAt,omitempty"`
	Policies     []report.PolicyInfo `json:"policies"`
	Applications []plan.Application  `json:"applications,omitempty"`
}

// Input is everything Decide needs about one plan.
type Input struct {
	// Plan is the plan as stored. Required.
	Plan *plan.ProtectionPlan
	// Record is what the last pass recorded; nil when nothing was (a
	// record of another plan of the same ID does not count).
	Record *Record
	// LastSample is the last health sample recorded for the plan, if any.
	LastSample *report.HealthSample
	// Live are the plan's policies as listed.
	Live []*unstructured.Unstructured
	// Cluster is what the pass knows of the cluster. Required.
	Cluster *Cluster
	// Now is the pass's time. Required.
	Now time.Time
	// Settings are the embedder's.
	Settings Settings
	// Carried is what carrying out the Actions of a first Decide on the
	// same input did; nil on the first call.
	Carried *Carried
	// Calendars are the calendars the plan's window names
	// (window.Calendars), as the embedder read them: the ICS text of each
	// ConfigMap key. A reference without an entry was not found. See
	// ConditionCalendars for what a missing or unreadable one does.
	Calendars map[window.ConfigMapKeyRef][]byte
	// Probes are the answers to the Output.Probes of a Decide on the same
	// input (health.JudgeProbe), one per probe; nil until they are sent.
	Probes []health.ProbeResult
	// Verified is the Output.Health.Verified of the plan's previous pass
	// (health.Input.Verified): live policies it remembers, unwritten since,
	// are found in place without being compared again. The zero value
	// compares every one; the decision is the same either way.
	Verified health.Verified
}
