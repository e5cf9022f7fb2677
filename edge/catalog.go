package edge

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Name names an action of the catalog.
// +kubebuilder:validation:Enum=suspend-cronjobs;pause-argocd-sync;suspend-flux;scale-to
type Name string

// The catalog's actions.
const (
	// SuspendCronJobs sets spec.suspend of the CronJobs in scope.
	SuspendCronJobs Name = "suspend-cronjobs"
	// PauseArgoCDSync sets spec.syncPolicy.automated.enabled to false on the
	// Argo CD Applications whose destination namespace is in scope.
	PauseArgoCDSync Name = "pause-argocd-sync"
	// SuspendFlux sets spec.suspend of the Flux Kustomizations and
	// HelmReleases whose target namespace is in scope.
	SuspendFlux Name = "suspend-flux"
	// ScaleTo scales the Deployments and StatefulSets in scope to
	// Action.Replicas through their /scale subresource.
	ScaleTo Name = "scale-to"
)

// Kinds the catalog reads and writes.
var (
	CronJob         = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}
	Deployment      = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	StatefulSet     = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	HPA             = schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	Application     = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}
	Kustomization   = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}
	HelmRelease     = schema.GroupVersionKind{Group: "helm.toolkit.fluxcd.io", Version: "v2", Kind: "HelmRelease"}
	scaleGVK        = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	suspendPointer  = "/spec/suspend"
	replicasPointer = "/spec/replicas"
	argoPointer     = "/spec/syncPolicy/automated/enabled"
)

// Touch is one kind an action changes: where, and through which
// subresource.
type Touch struct {
	GVK schema.GroupVersionKind `json:"gvk"`
	// Resource is the kind's plural resource name, as admission requests
	// name it (a plan's policies exempt the executor's writes by it).
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// Pointer is the RFC 6901 pointer of the value captured and changed.
	Pointer string `json:"pointer"`
}

// Parameter describes one parameter of an action.
type Parameter struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// Definition is an action of the catalog as data a caller can list.
type Definition struct {
	Name        Name        `json:"name"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Parameters  []Parameter `json:"parameters,omitempty"`
	// Touches are the kinds the action changes.
	Touches []Touch `json:"touches"`
	// Reads are kinds the action reads to decide but never changes (the
	// HorizontalPodAutoscalers of scale-to).
	Reads []schema.GroupVersionKind `json:"reads,omitempty"`
}

var catalog = []Definition{
	{
		Name:        SuspendCronJobs,
		Title:       "Suspend CronJobs",
		Description: "Suspends the CronJobs in scope for the window, so that no Job starts that the freeze may refuse halfway; a CronJob already suspended stays so.",
		Touches:     []Touch{{GVK: CronJob, Resource: "cronjobs", Pointer: suspendPointer}},
	},
	{
		Name:        PauseArgoCDSync,
		Title:       "Pause Argo CD automated sync",
		Description: "Disables automated sync (spec.syncPolicy.automated.enabled: false) of the Argo CD Applications whose destination namespace is in scope, so that they do not retry against the freeze all night. Applications without automated sync, and those an ApplicationSet owns, are left alone (the latter with a reason).",
		Touches:     []Touch{{GVK: Application, Resource: "applications", Pointer: argoPointer}},
	},
	{
		Name:        SuspendFlux,
		Title:       "Suspend Flux",
		Description: "Suspends the Flux Kustomizations and HelmReleases whose target namespace (spec.targetNamespace, else their own) is in scope.",
		Touches:     []Touch{{GVK: Kustomization, Resource: "kustomizations", Pointer: suspendPointer}, {GVK: HelmRelease, Resource: "helmreleases", Pointer: suspendPointer}},
	},
	{
		Name:        ScaleTo,
		Title:       "Scale to",
		Description: "Scales the Deployments and StatefulSets in scope to a replica count through /scale, and back to their captured replicas at the end. Workloads a HorizontalPodAutoscaler targets are skipped with a reason.",
		Parameters:  []Parameter{{Name: "replicas", Description: "The replica count during the window, 0 or more.", Required: true}},
		Touches:     []Touch{{GVK: Deployment, Resource: "deployments", Subresource: "scale", Pointer: replicasPointer}, {GVK: StatefulSet, Resource: "statefulsets", Subresource: "scale", Pointer: replicasPointer}},
		Reads:       []schema.GroupVersionKind{HPA},
	},
}

// Catalog returns the actions a plan may carry, in a stable order. The
// result is the caller's to keep.
func Catalog() []Definition {
	out := make([]Definition, len(catalog))
	for i, d := range catalog {
		d.Parameters = slices.Clone(d.Parameters)
		d.Touches = slices.Clone(d.Touches)
		d.Reads = slices.Clone(d.Reads)
		out[i] = d
	}
	return out
}

// Lookup returns the definition of name.
func Lookup(name Name) (Definition, bool) {
	for _, d := range catalog {
		if d.Name == name {
			return d, true
		}
	}
	return Definition{}, false
}

// Kinds returns every kind the actions read or change: what an embedder
// lists each pass for Decide's Input.Live.
func Kinds(actions []Action) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, a := range actions {
		d, ok := Lookup(a.Name)
		if !ok {
			continue
		}
		for _, t := range d.Touches {
			if !slices.Contains(out, t.GVK) {
				out = append(out, t.GVK)
			}
		}
		for _, g := range d.Reads {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// Action is an entry of a plan's spec.edgeActions.
// +kubebuilder:object:generate=true
type Action struct {
	// Name is an action of the catalog.
	Name Name `json:"name"`
	// Replicas is scale-to's replica count during the window.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Replicas *int32 `json:"replicas,omitempty"`
	// Overwrite restores the captured value even when someone changed it
	// during the window (with a break-glass grant, say). Off by default:
	// a change made during the window is kept and reported.
	// +optional
	Overwrite bool `json:"overwrite,omitempty"`
	// Force takes the field over from the field manager that owns it
	// (server-side apply's force), at the start and at the restore. Off
	// by default: a field another manager owns (kubectl, Helm, Argo CD,
	// and the creator of an object whose field was defaulted) is an
	// ownership conflict, which skips the start (or fails the restore)
	// naming the field and its manager. The restore then leaves the field
	// owned by the edge field manager.
	// +optional
	Force bool `json:"force,omitempty"`
}

// MaxActions bounds a plan's edge actions: each name at most once.
var MaxActions = len(catalog)

// Validate checks actions at path (spec.edgeActions): each a catalog
// name at most once, scale-to with a replica count of 0 or more and no
// other action with one.
func Validate(actions []Action, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[Name]bool{}
	for i, a := range actions {
		p := path.Index(i)
		if _, ok := Lookup(a.Name); !ok {
			errs = append(errs, field.NotSupported(p.Child("name"), string(a.Name), names()))
			continue
		}
		if seen[a.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), string(a.Name)))
		}
		seen[a.Name] = true
		switch {
		case a.Name == ScaleTo && a.Replicas == nil:
			errs = append(errs, field.Required(p.Child("replicas"), "scale-to needs the replica count for the window"))
		case a.Name == ScaleTo && *a.Replicas < 0:
			errs = append(errs, field.Invalid(p.Child("replicas"), *a.Replicas, "must be 0 or more"))
		case a.Name != ScaleTo && a.Replicas != nil:
			errs = append(errs, field.Forbidden(p.Child("replicas"), fmt.Sprintf("only scale-to takes replicas, not %s", a.Name)))
		}
	}
	return errs
}

func names() []string {
	out := make([]string, len(catalog))
	for i, d := range catalog {
		out[i] = string(d.Name)
	}
	return out
}

// ListKinds returns the kinds an embedder lists for a pass: those of the
// actions (Kinds) and those of the journal's entries, whose restores need
// their live objects even when the actions no longer name them.
func ListKinds(actions []Action, j *Journal) []schema.GroupVersionKind {
	out := Kinds(actions)
	if j == nil {
		return out
	}
	for _, e := range j.Entries {
		gv, err := schema.ParseGroupVersion(e.Target.APIVersion)
		if err != nil {
			continue
		}
		if g := gv.WithKind(e.Target.Kind); !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// TouchOf returns the catalog's Touch of kind gk: its resource name and
// subresource, for an embedder that sends a Patch by resource.
func TouchOf(gk schema.GroupKind) (Touch, bool) {
	for _, d := range catalog {
		for _, t := range d.Touches {
			if t.GVK.GroupKind() == gk {
				return t, true
			}
		}
	}
	return Touch{}, false
}
