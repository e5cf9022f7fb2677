package plan

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// InstanceLabel is the label of the most common application convention:
// Helm, Argo CD and Kustomize set app.kubernetes.io/instance=<release>.
const InstanceLabel = "app.kubernetes.io/instance"

// InstanceMemberKinds are the kinds whose objects an embedder lists (by the
// existence of the instance label, metadata only) to feed an
// InstanceLabelResolver: the objects a Helm, Argo CD or Kustomize release
// labels. Every embedder that resolves applications (an operator putting
// plans in place, a server validating them) must list the same kinds, or
// they resolve an application differently; hence one list, here.
func InstanceMemberKinds() []schema.GroupVersionKind {
	return []schema.GroupVersionKind{
		{Group: "apps", Version: "v1", Kind: "Deployment"},
		{Group: "apps", Version: "v1", Kind: "StatefulSet"},
		{Group: "apps", Version: "v1", Kind: "DaemonSet"},
		{Group: "batch", Version: "v1", Kind: "CronJob"},
		{Group: "batch", Version: "v1", Kind: "Job"},
		{Version: "v1", Kind: "Service"},
		{Version: "v1", Kind: "ConfigMap"},
		{Version: "v1", Kind: "Secret"},
		{Version: "v1", Kind: "PersistentVolumeClaim"},
	}
}

// LabeledObject is what InstanceLabelResolver needs to know of an object:
// the embedder lists the workloads (and whatever else it counts as members)
// and passes them in, so that resolving stays pure.
type LabeledObject struct {
	Kind      string
	Namespace string
	Name      string
	Labels    map[string]string
}

// InstanceLabelResolver resolves an application by a label convention: the
// application called X is every object whose label Label (InstanceLabel
// when empty) is X. Its namespaces are where those objects live, its
// selector is {Label: X}, and its members are the objects.
type InstanceLabelResolver struct {
	// Objects are the objects to resolve from, listed by the embedder.
	Objects []LabeledObject
	// Label is the label key; empty means InstanceLabel.
	Label string
}

var _ ApplicationResolver = InstanceLabelResolver{}

// ResolveApplication returns the application called name, or an error
// wrapping ErrApplicationNotFound when no object carries the label.
func (r InstanceLabelResolver) ResolveApplication(name string) (Application, error) {
	label := cmp.Or(r.Label, InstanceLabel)
	app := Application{
		Name:     name,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{label: name}},
	}
	for _, o := range r.Objects {
		if v, ok := o.Labels[label]; !ok || v != name {
			continue
		}
		app.Members = append(app.Members, ResourceRef{Kind: o.Kind, Name: o.Name, Namespace: o.Namespace})
		if !slices.Contains(app.Namespaces, o.Namespace) {
			app.Namespaces = append(app.Namespaces, o.Namespace)
		}
	}
	if len(app.Members) == 0 {
		return Application{}, fmt.Errorf("no object is labelled %s=%s: %w", label, name, ErrApplicationNotFound)
	}
	slices.Sort(app.Namespaces)
	slices.SortFunc(app.Members, func(a, b ResourceRef) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return app, nil
}
