package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/reconcile"
)

// heldPolicies keeps, per kind, the managed policies of every plan as the
// last full list returned them (Reader.HoldPolicies). A pass lists their
// metadata only (a metadata list, protobuf-encoded, without the
// policies' bodies) and lists a kind in full again only when
// reconcile.HeldListValid says something was written since: on a steady
// pass over 10,000 policies, decoding the full lists was most of the
// operator's CPU (issue 25).
type heldPolicies struct {
	byKind map[schema.GroupVersionKind][]*unstructured.Unstructured
	// fullLists counts the full lists made, for tests.
	fullLists int
}

// HoldPolicies makes r keep every plan's policies between calls of
// Policies(ctx, target, AllPlans) (and so Cluster): each call lists their
// metadata, and lists a kind in full only when an object of it was
// created, written or deleted since the last full list. The objects held
// are returned as the list would return them, without their
// metadata.managedFields (which nothing reads), and are shared between
// calls: callers only read them. Not safe for concurrent use: one loop
// calls it.
func (r *Reader) HoldPolicies() *Reader {
	r.held = &heldPolicies{byKind: map[schema.GroupVersionKind][]*unstructured.Unstructured{}}
	return r
}

// FullPolicyLists is how many full lists of policies HoldPolicies has
// made (0 without it).
func (r *Reader) FullPolicyLists() int {
	if r.held == nil {
		return 0
	}
	return r.held.fullLists
}

// list lists the policies of kind gvk selected by sel: the held ones when
// their metadata says they are unchanged, else a full list, then held.
func (h *heldPolicies) list(ctx context.Context, c client.Reader, gvk schema.GroupVersionKind, sel client.ListOption) ([]*unstructured.Unstructured, error) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	if held, ok := h.byKind[gvk]; ok {
		md := &metav1.PartialObjectMetadataList{}
		md.SetGroupVersionKind(listGVK)
		if err := c.List(ctx, md, sel); err != nil {
			delete(h.byKind, gvk)
			return nil, err
		}
		if reconcile.HeldListValid(held, md.Items) {
			return held, nil
		}
	}
	out, err := listFull(ctx, c, gvk, sel)
	if err != nil {
		delete(h.byKind, gvk)
		return nil, err
	}
	h.fullLists++
	for _, o := range out {
		o.SetManagedFields(nil) // nothing reads them; they are most of a held object
	}
	h.byKind[gvk] = out
	return out, nil
}
