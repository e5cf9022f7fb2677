package reconcile_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/reconcile"
)

func TestHeldListValid(t *testing.T) {
	obj := func(name, uid, rv string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kyverno.io/v1", "kind": "Policy"}}
		u.SetNamespace("shop")
		u.SetName(name)
		u.SetUID(types.UID(uid))
		u.SetResourceVersion(rv)
		return u
	}
	md := func(name, uid, rv string) metav1.PartialObjectMetadata {
		return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(uid), ResourceVersion: rv}}
	}
	held := []*unstructured.Unstructured{obj("a", "u1", "10"), obj("b", "u2", "11")}
	tests := []struct {
		name   string
		held   []*unstructured.Unstructured
		listed []metav1.PartialObjectMetadata
		want   bool
	}{
		{"the same objects at the same versions are valid: nothing was written since", held,
			[]metav1.PartialObjectMetadata{md("a", "u1", "10"), md("b", "u2", "11")}, true},
		{"an empty list held stands for an empty list: no policy, none written since", []*unstructured.Unstructured{}, nil, true},
		{"nothing held is not valid: the first pass lists in full", nil, nil, false},
		{"an object written since (a new resourceVersion) is not valid", held,
			[]metav1.PartialObjectMetadata{md("a", "u1", "10"), md("b", "u2", "12")}, false},
		{"an object deleted and re-created under the same name (a new uid) is not valid", held,
			[]metav1.PartialObjectMetadata{md("a", "u1", "10"), md("b", "u3", "11")}, false},
		{"an object created since is not valid", held,
			[]metav1.PartialObjectMetadata{md("a", "u1", "10"), md("b", "u2", "11"), md("c", "u4", "13")}, false},
		{"an object deleted since is not valid", held, []metav1.PartialObjectMetadata{md("a", "u1", "10")}, false},
		{"the same objects in another order are not valid: the held list keeps the list's order", held,
			[]metav1.PartialObjectMetadata{md("b", "u2", "11"), md("a", "u1", "10")}, false},
		{"metadata without a resourceVersion proves nothing", []*unstructured.Unstructured{obj("a", "u1", "")},
			[]metav1.PartialObjectMetadata{md("a", "u1", "")}, false},
		{"objects without a uid (a fake API server's) are compared by resourceVersion", []*unstructured.Unstructured{obj("a", "", "10")},
			[]metav1.PartialObjectMetadata{md("a", "", "10")}, true},
		{"a uid where the held object had none is not valid", []*unstructured.Unstructured{obj("a", "", "10")},
			[]metav1.PartialObjectMetadata{md("a", "u1", "10")}, false},
		{"a nil object held is not valid", []*unstructured.Unstructured{nil},
			[]metav1.PartialObjectMetadata{md("a", "u1", "10")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reconcile.HeldListValid(tt.held, tt.listed); got != tt.want {
				t.Errorf("HeldListValid = %v, want %v", got, tt.want)
			}
		})
	}
}
