package reconcile

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
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
	// Approval derives the approval mode of plans applied with kubectl.
	Approval approval.Config
	// EdgeExecutor is the service account (namespace:name) the embedder
	// impersonates to carry out edge actions (render.Input.EdgeExecutor):
	// the plans' policies admit its writes of their own actions.
	EdgeExecutor string
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
	// PolicyAPI is non-nil when the target's policy kinds are not served
	// (the policy engine is not installed): no plan can be put in place.
	PolicyAPI error
	// Plans are every plan in the cluster, for the names of plans applied
	// with kubectl.
	Plans []*plan.ProtectionPlan
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
}
