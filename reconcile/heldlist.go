package reconcile

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// HeldListValid reports whether held, the objects a full list of one kind
// returned on an earlier pass, can stand for the full list of the same
// kind and selector now, whose metadata alone was listed: the same
// objects in the same order, each at the same resourceVersion. The API
// server gives every write a new resourceVersion, and a deleted and
// re-created object a new uid, so such a full list would return exactly
// the held objects; the embedder keeps them and decodes only the metadata
// of the policies on a steady pass (issue 25). Any difference, an object
// without a resourceVersion, or nothing held (nil) says to list in full
// again. (The resourceVersion alone would do: a re-created object is a
// write too. The uid is compared as well, and may be empty where a fake
// API server sets none.)
func HeldListValid(held []*unstructured.Unstructured, listed []metav1.PartialObjectMetadata) bool {
	if held == nil || len(held) != len(listed) {
		return false
	}
	for i, h := range held {
		m := &listed[i]
		if h == nil || m.ResourceVersion == "" ||
			h.GetUID() != m.UID || h.GetResourceVersion() != m.ResourceVersion {
			return false
		}
	}
	return true
}
