// Package plantest is test support for embedders of package plan: Cluster,
// a plain, serializable picture of a cluster that fills a
// plan.ValidationEnv (and a reconcile.Offline) without a client. Platform
// teams use it in their own tests; the example protectctl reads its
// --cluster file into one, to lint plans offline.
//
//	snap := plantest.Cluster{Namespaces: []string{"shop"}}
//	env := plan.ValidationEnv{Now: now, Catalog: render.DefaultCatalog,
//		Cluster: snap, Names: snap, Applications: snap}
//
// Like package plan, it is pure: no clock, no I/O, no goroutines.
package plantest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/telark/protectionplans/plan"
)

// Cluster is what validation needs to know of a cluster, as data. It
// implements plan.ClusterView, plan.PlanNames and plan.ApplicationResolver.
// Its JSON is the snapshot file protectctl's --cluster reads.
type Cluster struct {
	// Namespaces are the namespaces that exist. A namespace not listed
	// does not exist.
	Namespaces []string `json:"namespaces,omitempty"`
	// ReleaseNamespace is where the product runs.
	ReleaseNamespace string `json:"releaseNamespace,omitempty"`
	// ExcludedNamespaces are namespaces plans may not target.
	ExcludedNamespaces []string `json:"excludedNamespaces,omitempty"`
	// ExcludedUnreadable simulates an excluded list that cannot be read.
	ExcludedUnreadable bool `json:"excludedUnreadable,omitempty"`
	// Plans are the existing plans' IDs and display names.
	Plans []PlanName `json:"plans,omitempty"`
	// Applications are the applications an applications scope may name.
	Applications []plan.Application `json:"applications,omitempty"`
	// Kinds are the custom kinds the cluster serves (discovery facts):
	// what a plan may name as <Kind>.<group>.
	Kinds plan.ServedKinds `json:"kinds,omitempty"`
	// NamespaceLabels are the labels of the namespaces that have any:
	// what a namespaceSelectors scope selects.
	NamespaceLabels map[string]map[string]string `json:"namespaceLabels,omitempty"`
}

// NamespaceInfos are the namespaces with their labels, sorted by name.
func (c Cluster) NamespaceInfos() []plan.NamespaceInfo {
	out := make([]plan.NamespaceInfo, 0, len(c.Namespaces))
	for _, ns := range slices.Sorted(slices.Values(c.Namespaces)) {
		out = append(out, plan.NamespaceInfo{Name: ns, Labels: c.NamespaceLabels[ns]})
	}
	return out
}

// PlanName is one existing plan: its ID and display name.
type PlanName struct {
	// ID is the plan's metadata.name.
	ID string `json:"id"`
	// Name is its spec.name.
	Name string `json:"name"`
}

// ErrExcludedUnreadable is the error a Cluster with ExcludedUnreadable
// returns for the excluded-namespace list.
var ErrExcludedUnreadable = errors.New("the excluded-namespace list cannot be read")

var (
	_ plan.ClusterView         = Cluster{}
	_ plan.PlanNames           = Cluster{}
	_ plan.ApplicationResolver = Cluster{}
)

// HasNamespace reports whether name is in Namespaces.
func (c Cluster) HasNamespace(name string) bool {
	return slices.Contains(c.Namespaces, name)
}

// IsReleaseNamespace reports whether name is ReleaseNamespace.
func (c Cluster) IsReleaseNamespace(name string) bool {
	return c.ReleaseNamespace != "" && name == c.ReleaseNamespace
}

// IsExcludedNamespace reports whether name is in ExcludedNamespaces, or
// ErrExcludedUnreadable when ExcludedUnreadable is set.
func (c Cluster) IsExcludedNamespace(name string) (bool, error) {
	if c.ExcludedUnreadable {
		return false, ErrExcludedUnreadable
	}
	return slices.Contains(c.ExcludedNamespaces, name), nil
}

// PlansNamed returns the IDs of the Plans whose name is the same as name
// ignoring case and surrounding spaces (plan.SameName).
func (c Cluster) PlansNamed(name string) ([]string, error) {
	var ids []string
	for _, p := range c.Plans {
		if plan.SameName(p.Name, name) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// ResolveApplication returns the application called name, or an error
// wrapping plan.ErrApplicationNotFound.
func (c Cluster) ResolveApplication(name string) (plan.Application, error) {
	for _, a := range c.Applications {
		if a.Name == name {
			return a, nil
		}
	}
	return plan.Application{}, fmt.Errorf("%w: %q", plan.ErrApplicationNotFound, name)
}
