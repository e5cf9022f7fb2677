package operator

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// outcome is what carrying out a list of health actions did.
type outcome struct {
	// done are the actions that succeeded, in order.
	done []health.Action
	// written are the objects the server returned for applies and patches
	// (the live objects after the write).
	written []*unstructured.Unstructured
	// deleted are the objects deleted (or found already gone).
	deleted []*unstructured.Unstructured
	// refused is set when the server refused the plan's policies in a way
	// that retrying the same write cannot fix: the plan fails (plan.Fail)
	// and the next tick retries.
	refused *failure
	// errs are transient errors (timeouts, conflicts): the next tick
	// decides again.
	errs []error
}

// carryOut performs the actions in order: server-side applies (forcing
// ownership) under FieldManager, failure-action merge patches guarded by
// the resourceVersion they were decided on, and deletes with uid and
// resourceVersion preconditions. It stops at the first refusal: the plan
// fails and nothing is removed on its behalf in a half-applied state.
func (r *reconciler) carryOut(ctx context.Context, actions []health.Action) outcome {
	var out outcome
	for _, a := range actions {
		obj := a.Object.DeepCopy()
		var err error
		switch a.Kind {
		case health.Apply:
			err = r.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj),
				client.FieldOwner(FieldManager), client.ForceOwnership)
			if err == nil {
				out.written = append(out.written, obj)
			}
		case health.PatchFailureAction:
			var body []byte
			_, body, err = a.MergePatch()
			if err == nil {
				target := &unstructured.Unstructured{}
				target.SetGroupVersionKind(obj.GroupVersionKind())
				target.SetNamespace(obj.GetNamespace())
				target.SetName(obj.GetName())
				err = r.c.Patch(ctx, target, client.RawPatch("application/merge-patch+json", body), client.FieldOwner(FieldManager))
				if err == nil {
					out.written = append(out.written, target)
				}
			}
		case health.Delete:
			opts := []client.DeleteOption{client.PropagationPolicy("Background")}
			if pc := a.Preconditions(); pc != nil {
				opts = append(opts, client.Preconditions(*pc))
			}
			err = r.c.Delete(ctx, obj, opts...)
			if apierrors.IsNotFound(err) {
				err = nil
			}
			if err == nil {
				out.deleted = append(out.deleted, obj)
			}
		default:
			err = fmt.Errorf("unknown action %q", a.Kind)
		}
		if err == nil {
			out.done = append(out.done, a)
			continue
		}
		err = fmt.Errorf("%s %s %s/%s: %w", a.Kind, obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		if f := refusal(a.Kind, err); f != nil {
			out.refused = f
			return out
		}
		out.errs = append(out.errs, err)
	}
	return out
}

// refusal classifies a failed write: the failure that makes the plan fail,
// or nil for a transient error.
func refusal(kind health.ActionKind, err error) *failure {
	switch {
	case isNotServed(err) && !apierrors.IsNotFound(err):
		return &failure{plan.ReasonPolicyAPIMissing, err.Error()}
	case kind == health.Apply && apierrors.IsNotFound(err):
		// Applying into a namespace that does not exist.
		return &failure{plan.ReasonNamespaceGone, err.Error()}
	case kind == health.Apply && (apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsForbidden(err) || apierrors.IsRequestEntityTooLargeError(err)):
		return &failure{plan.ReasonPoliciesRefused, err.Error()}
	}
	return nil
}

// objKey identifies an object in a list of live policies.
type objKey struct{ apiVersion, kind, namespace, name string }

func keyOf(u *unstructured.Unstructured) objKey {
	return objKey{u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName()}
}

// liveAfter returns the plan's live policies as the outcome left them:
// written objects replace (or join) the listed ones, deleted ones are gone.
// It lets the operator record the health of a plan it just deployed or
// withdrew without listing again.
func liveAfter(live []*unstructured.Unstructured, out outcome) []*unstructured.Unstructured {
	byKey := map[objKey]int{}
	res := make([]*unstructured.Unstructured, 0, len(live)+len(out.written))
	for _, u := range live {
		byKey[keyOf(u)] = len(res)
		res = append(res, u)
	}
	for _, u := range out.written {
		if i, ok := byKey[keyOf(u)]; ok {
			res[i] = u
			continue
		}
		byKey[keyOf(u)] = len(res)
		res = append(res, u)
	}
	gone := map[objKey]bool{}
	for _, u := range out.deleted {
		gone[keyOf(u)] = true
	}
	kept := res[:0]
	for _, u := range res {
		if !gone[keyOf(u)] {
			kept = append(kept, u)
		}
	}
	return kept
}

// err joins an outcome's transient errors.
func (o outcome) err() error { return errors.Join(o.errs...) }
