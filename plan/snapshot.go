package plan

import (
	"errors"
	"fmt"
	"slices"
)

// ClusterSnapshot is a plain, serializable picture of a cluster: what the
// CLI's offline `validate --cluster SNAPSHOT.yaml` reads, and a handy fake
// in tests. It implements ClusterView, PlanNames and ApplicationResolver,
// so one value fills a ValidationEnv:
//
//	env := plan.ValidationEnv{Now: now, Catalog: cat,
//		Cluster: snap, Names: snap, Applications: snap}
type ClusterSnapshot struct {
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
	Applications []Application `json:"applications,omitempty"`
}

// PlanName is one existing plan: its ID and display name.
type PlanName struct {
	// ID is the plan's metadata.name.
	ID string `json:"id"`
	// Name is its spec.name.
	Name string `json:"name"`
}

// ErrExcludedUnreadable is the error a ClusterSnapshot with
// ExcludedUnreadable returns for the excluded-namespace list.
var ErrExcludedUnreadable = errors.New("the excluded-namespace list cannot be read")

var (
	_ ClusterView         = ClusterSnapshot{}
	_ PlanNames           = ClusterSnapshot{}
	_ ApplicationResolver = ClusterSnapshot{}
)

// HasNamespace reports whether name is in Namespaces.
func (s ClusterSnapshot) HasNamespace(name string) bool {
	return slices.Contains(s.Namespaces, name)
}

// IsReleaseNamespace reports whether name is ReleaseNamespace.
func (s ClusterSnapshot) IsReleaseNamespace(name string) bool {
	return s.ReleaseNamespace != "" && name == s.ReleaseNamespace
}

// IsExcludedNamespace reports whether name is in ExcludedNamespaces, or
// ErrExcludedUnreadable when ExcludedUnreadable is set.
func (s ClusterSnapshot) IsExcludedNamespace(name string) (bool, error) {
	if s.ExcludedUnreadable {
		return false, ErrExcludedUnreadable
	}
	return slices.Contains(s.ExcludedNamespaces, name), nil
}

// PlansNamed returns the IDs of the Plans whose name is the same as name
// ignoring case and surrounding spaces.
func (s ClusterSnapshot) PlansNamed(name string) ([]string, error) {
	var ids []string
	for _, p := range s.Plans {
		if SameName(p.Name, name) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// ResolveApplication returns the application called name, or an error
// wrapping ErrApplicationNotFound.
func (s ClusterSnapshot) ResolveApplication(name string) (Application, error) {
	for _, a := range s.Applications {
		if a.Name == name {
			return a, nil
		}
	}
	return Application{}, fmt.Errorf("%w: %q", ErrApplicationNotFound, name)
}
