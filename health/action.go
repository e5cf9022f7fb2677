package health

import (
	"encoding/json"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// ActionKind is what a repair does. It is a closed set.
type ActionKind string

// Action kinds, in the order Result.Actions lists them: protection is put
// in place before anything is removed.
const (
	// Apply: server-side apply Object (a rendered object) with the
	// operator's field manager, forcing conflicts.
	Apply ActionKind = "Apply"
	// PatchFailureAction: send Object as a JSON merge patch
	// (types.MergePatchType; controller-runtime's client.Merge). Object is
	// partial: apiVersion, kind, name, namespace, uid and resourceVersion
	// (so the API server refuses the patch, 409, if the policy changed
	// since it was listed; the next check decides again) and only the
	// field(s) the target spells the failure action with, set to the plan's
	// mode. It can also be server-side applied, but only under a field
	// manager of its own: applied under the manager that applies the
	// rendered objects, it would drop every field it leaves out.
	PatchFailureAction ActionKind = "PatchFailureAction"
	// Delete: delete the object Object names (apiVersion, kind, namespace,
	// name), with Preconditions, so that a delete never removes a
	// replacement created meanwhile.
	Delete ActionKind = "Delete"
)

func (k ActionKind) rank() int {
	switch k {
	case Apply:
		return 0
	case PatchFailureAction:
		return 1
	}
	return 2
}

// Action is one write that converges the cluster. Actions are data; the
// embedder carries them out.
type Action struct {
	// Kind is what to do.
	Kind ActionKind
	// Object is the rendered object (Apply), the merge patch
	// (PatchFailureAction) or the identity of the live object with its uid
	// and resourceVersion (Delete). It is the caller's: Check copies it.
	Object *unstructured.Unstructured
	// Reason says why, for people (events, logs).
	Reason string
}

// MergePatch is the body of a PatchFailureAction: Object as JSON.
func (a Action) MergePatch() (types.PatchType, []byte, error) {
	b, err := json.Marshal(a.Object.Object)
	return types.MergePatchType, b, err
}

// Preconditions are the uid and resourceVersion of the live object a
// Delete or PatchFailureAction was decided on, for metav1.DeleteOptions;
// nil for Apply.
func (a Action) Preconditions() *metav1.Preconditions {
	if a.Kind == Apply || a.Object == nil {
		return nil
	}
	uid, rv := a.Object.GetUID(), a.Object.GetResourceVersion()
	pre := &metav1.Preconditions{}
	if uid != "" {
		pre.UID = &uid
	}
	if rv != "" {
		pre.ResourceVersion = &rv
	}
	return pre
}

// identity is the part of a live object an action names it by: apiVersion,
// kind, namespace, name, uid and resourceVersion.
func identity(live *unstructured.Unstructured) *unstructured.Unstructured {
	md := map[string]any{"name": live.GetName()}
	if ns := live.GetNamespace(); ns != "" {
		md["namespace"] = ns
	}
	if uid := live.GetUID(); uid != "" {
		md["uid"] = string(uid)
	}
	if rv := live.GetResourceVersion(); rv != "" {
		md["resourceVersion"] = rv
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": live.GetAPIVersion(),
		"kind":       live.GetKind(),
		"metadata":   md,
	}}
}

// sortActions orders actions by kind (Apply, PatchFailureAction, Delete),
// then namespace, name, kind and apiVersion of their object.
func sortActions(as []Action) {
	slices.SortStableFunc(as, func(a, b Action) int {
		if c := a.Kind.rank() - b.Kind.rank(); c != 0 {
			return c
		}
		ka, kb := keyOf(a.Object), keyOf(b.Object)
		for _, c := range []int{
			strings.Compare(ka.namespace, kb.namespace),
			strings.Compare(ka.name, kb.name),
			strings.Compare(ka.kind, kb.kind),
			strings.Compare(a.Object.GetAPIVersion(), b.Object.GetAPIVersion()),
		} {
			if c != 0 {
				return c
			}
		}
		return 0
	})
}
