package plan

import (
	"errors"
	"fmt"
	"slices"
)

// fakeCluster is the cluster of this package's tests: plantest.Cluster,
// which they cannot import (plantest imports plan).
type fakeCluster struct {
	Namespaces         []string
	ReleaseNamespace   string
	ExcludedNamespaces []string
	ExcludedUnreadable bool
	Plans              []fakePlanName
	Applications       []Application
}

type fakePlanName struct{ ID, Name string }

var errExcludedUnreadable = errors.New("the excluded-namespace list cannot be read")

func (c fakeCluster) HasNamespace(name string) bool { return slices.Contains(c.Namespaces, name) }

func (c fakeCluster) IsReleaseNamespace(name string) bool {
	return c.ReleaseNamespace != "" && name == c.ReleaseNamespace
}

func (c fakeCluster) IsExcludedNamespace(name string) (bool, error) {
	if c.ExcludedUnreadable {
		return false, errExcludedUnreadable
	}
	return slices.Contains(c.ExcludedNamespaces, name), nil
}

func (c fakeCluster) PlansNamed(name string) ([]string, error) {
	var ids []string
	for _, p := range c.Plans {
		if SameName(p.Name, name) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

func (c fakeCluster) ResolveApplication(name string) (Application, error) {
	for _, a := range c.Applications {
		if a.Name == name {
			return a, nil
		}
	}
	return Application{}, fmt.Errorf("%w: %q", ErrApplicationNotFound, name)
}
