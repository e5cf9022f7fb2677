package violations

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
)

// IndexEntry says which plan and template a policy was rendered from.
type IndexEntry struct {
	// Namespace and Name name the policy object. Namespace is empty for a
	// cluster-scoped object.
	Namespace, Name string
	// Plan is the plan ID (the plan's metadata.name).
	Plan string
	// Template is the catalog name of the template.
	Template string
}

// policyRef is a policy's namespace and name.
type policyRef struct{ namespace, name string }

// PolicyIndex maps a policy (namespace, name) to its plan and template.
// Kyverno's events name the policy but do not carry its labels, so
// attributing a violation to a plan needs this index, built by the caller
// from the policies it listed (IndexPolicies) or from plain entries
// (NewPolicyIndex). A PolicyIndex is immutable; its zero value is empty.
type PolicyIndex struct {
	m map[policyRef]IndexEntry
}

// NewPolicyIndex indexes entries. When two entries name the same policy,
// the first wins.
func NewPolicyIndex(entries ...IndexEntry) PolicyIndex {
	m := make(map[policyRef]IndexEntry, len(entries))
	for _, e := range entries {
		ref := policyRef{e.Namespace, e.Name}
		if _, dup := m[ref]; !dup {
			m[ref] = e
		}
	}
	return PolicyIndex{m: m}
}

// IndexPolicies indexes policy objects by their labels: the plan from
// render.LabelPlan, the template from render.LabelTemplate. Objects without
// the plan label are not the library's and are left out; nil objects are
// ignored. Pass the live policies listed from the cluster (any kind, any
// target), or the Objects of a render.Result's Policies.
func IndexPolicies(objs []*unstructured.Unstructured) PolicyIndex {
	entries := make([]IndexEntry, 0, len(objs))
	for _, o := range objs {
		if o == nil {
			continue
		}
		labels := o.GetLabels()
		id := labels[render.LabelPlan]
		if id == "" {
			continue
		}
		entries = append(entries, IndexEntry{
			Namespace: o.GetNamespace(),
			Name:      o.GetName(),
			Plan:      id,
			Template:  labels[render.LabelTemplate],
		})
	}
	return NewPolicyIndex(entries...)
}

// Lookup returns the entry of the policy namespace/name.
func (x PolicyIndex) Lookup(namespace, name string) (IndexEntry, bool) {
	e, ok := x.m[policyRef{namespace, name}]
	return e, ok
}

// Len is the number of policies indexed.
func (x PolicyIndex) Len() int { return len(x.m) }
