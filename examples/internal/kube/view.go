package kube

import (
	"context"
	"slices"
	"sync"

	"github.com/telark/protectionplans/plan"
)

// ClusterView is plan.ClusterView over facts read once.
type ClusterView struct {
	// Namespaces exist and are not being deleted.
	Namespaces       []string
	ReleaseNamespace string
	Excluded         []string
	// ExcludedErr is why Excluded could not be read; IsExcludedNamespace
	// returns it.
	ExcludedErr error
}

var _ plan.ClusterView = ClusterView{}

// HasNamespace reports whether name is in Namespaces.
func (v ClusterView) HasNamespace(name string) bool { return slices.Contains(v.Namespaces, name) }

// IsReleaseNamespace reports whether name is ReleaseNamespace.
func (v ClusterView) IsReleaseNamespace(name string) bool {
	return v.ReleaseNamespace != "" && name == v.ReleaseNamespace
}

// IsExcludedNamespace reports whether name is in Excluded, or ExcludedErr.
func (v ClusterView) IsExcludedNamespace(name string) (bool, error) {
	if v.ExcludedErr != nil {
		return false, v.ExcludedErr
	}
	return slices.Contains(v.Excluded, name), nil
}

// ClusterView reads the namespaces and the excluded list. An excluded
// list that cannot be read is not an error here: it is the view's
// ExcludedErr, for validation to report where it matters.
func (r *Reader) ClusterView(ctx context.Context) (ClusterView, error) {
	ns, err := r.Namespaces(ctx)
	if err != nil {
		return ClusterView{}, err
	}
	v := ClusterView{Namespaces: ns, ReleaseNamespace: r.facts.ReleaseNamespace}
	v.Excluded, v.ExcludedErr = r.Excluded(ctx)
	return v, nil
}

// Applications resolves applications by the instance label of the
// cluster's objects (plan.InstanceLabelResolver), listing them (Members)
// on first use only. A failed list is the error of every resolution, not
// an unknown application.
func (r *Reader) Applications(ctx context.Context) plan.ApplicationResolver {
	var (
		once     sync.Once
		resolver plan.InstanceLabelResolver
		listErr  error
	)
	return plan.ApplicationResolverFunc(func(name string) (plan.Application, error) {
		once.Do(func() { resolver.Objects, listErr = r.Members(ctx) })
		if listErr != nil {
			return plan.Application{}, listErr
		}
		return resolver.ResolveApplication(name)
	})
}
