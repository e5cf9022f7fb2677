package plan

import "time"

// ValidationEnv is everything validation needs to know beyond the plan: the
// time, the template catalog, the categories, a view of the cluster, the
// applications and the names other plans use. Validation only reads it.
//
// A nil Catalog, Cluster, Applications or Names skips the checks that need
// it (an offline `validate` without a cluster snapshot, say); a server must
// set all of them. A zero Categories holds the built-in categories.
type ValidationEnv struct {
	// Now is the time the plan is validated at (a window that ended
	// before Now is refused).
	Now time.Time
	// Catalog is the template catalog (render.Catalog implements it).
	Catalog Catalog
	// Categories are the environments and tags plans may carry.
	Categories Categories
	// Cluster answers which namespaces exist and which are off limits.
	Cluster ClusterView
	// Applications resolves the applications of an applications scope.
	Applications ApplicationResolver
	// Names finds the plans that already use a display name.
	Names PlanNames
	// Kinds are the kinds the cluster serves (discovery facts): a custom
	// kind a plan names (<Kind>.<group>) must be one of them, namespaced.
	// nil checks nothing.
	Kinds ServedKinds
}

// ClusterView is what validation needs to know about the cluster's
// namespaces. plantest.Cluster implements it from data (a test, a
// snapshot file); an embedder with a client implements it from an
// informer cache.
type ClusterView interface {
	// HasNamespace reports whether the namespace exists.
	HasNamespace(name string) bool
	// IsReleaseNamespace reports whether name is the namespace the product
	// runs in (a plan must never freeze it).
	IsReleaseNamespace(name string) bool
	// IsExcludedNamespace reports whether name is on the list of namespaces
	// that plans may not target. A non-nil error means the list could not
	// be read: validation then answers 503 for a namespace-scoped plan.
	IsExcludedNamespace(name string) (bool, error)
}

// PlanNames finds the plans that use a display name.
type PlanNames interface {
	// PlansNamed returns the IDs (metadata.name) of the plans whose display
	// name equals name ignoring case and surrounding spaces (see SameName).
	// A non-nil error means the lookup failed (validation answers 503).
	PlansNamed(name string) ([]string, error)
}

// PlanNamesFunc adapts a function to PlanNames.
type PlanNamesFunc func(name string) ([]string, error)

// PlansNamed calls f.
func (f PlanNamesFunc) PlansNamed(name string) ([]string, error) { return f(name) }

var _ PlanNames = PlanNamesFunc(nil)
