package reconcile

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
)

// Do carries out one action against the cluster: a server-side apply, a
// merge patch or a delete (health.Action says how). For an apply or a
// patch it returns the object the server returned.
type Do func(health.Action) (*unstructured.Unstructured, error)

// Carried is what carrying out a list of actions did.
type Carried struct {
	// Done are the actions that succeeded, in order.
	Done []health.Action
	// Written are the objects the server returned for applies and
	// patches; Deleted the objects deleted (or found already gone).
	Written []*unstructured.Unstructured
	Deleted []*unstructured.Unstructured
	// Refused is set when the cluster refused the plan's policies in a
	// way that the same write cannot fix: the plan fails, and the next
	// pass retries.
	Refused *Failure
	// Errs are transient errors (timeouts, conflicts): the next pass
	// decides again.
	Errs []error
	// Warnings are the warnings the API server returned to these writes
	// (its 299 Warning headers), as the embedder's client collected them
	// (client-go's rest.WarningHandlerWithContext): CarryOut does not see
	// them. Decide says which to show (plan.ConditionAPIWarnings).
	Warnings []string
}

// Err joins the transient errors.
func (c *Carried) Err() error {
	if c == nil {
		return nil
	}
	return errors.Join(c.Errs...)
}

// CarryOut calls do for each action in order and sorts out the results.
// A delete of an object already gone succeeded. It stops at the first
// refusal (Refusal): the plan fails, and nothing is removed on its behalf
// in a half-applied state.
func CarryOut(actions []health.Action, do Do) *Carried {
	out := &Carried{}
	for _, a := range actions {
		obj, err := do(a)
		if a.Kind == health.Delete && apierrors.IsNotFound(err) {
			err = nil
		}
		if err == nil {
			out.Done = append(out.Done, a)
			switch {
			case a.Kind == health.Delete:
				out.Deleted = append(out.Deleted, a.Object)
			case obj != nil:
				out.Written = append(out.Written, obj)
			}
			continue
		}
		err = fmt.Errorf("%s %s %s/%s: %w", a.Kind, a.Object.GetKind(), a.Object.GetNamespace(), a.Object.GetName(), err)
		if f := Refusal(a.Kind, err); f != nil {
			out.Refused = f
			return out
		}
		out.Errs = append(out.Errs, err)
	}
	return out
}

// Refusal classifies a failed write: the failure that makes the plan fail,
// or nil for a transient error the next pass retries.
//
//   - a kind that is not served: the policy API is missing;
//   - an apply answered 404: its namespace does not exist;
//   - an apply refused as invalid, bad, forbidden or too large: the
//     cluster refuses the rendered policies.
func Refusal(kind health.ActionKind, err error) *Failure {
	switch {
	case NotServed(err) && !apierrors.IsNotFound(err):
		return &Failure{plan.ReasonPolicyAPIMissing, err.Error()}
	case kind == health.Apply && apierrors.IsNotFound(err):
		return &Failure{plan.ReasonNamespaceGone, err.Error()}
	case kind == health.Apply && (apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsForbidden(err) || apierrors.IsRequestEntityTooLargeError(err)):
		return &Failure{plan.ReasonPoliciesRefused, err.Error()}
	}
	return nil
}

// NotServed reports whether err says that a kind is not served by the API
// server: no REST mapping, or a 404 on a list.
func NotServed(err error) bool {
	if err == nil {
		return false
	}
	var noMatch *meta.NoKindMatchError
	return meta.IsNoMatchError(err) || errors.As(err, &noMatch) || apierrors.IsNotFound(err)
}

// objKey identifies an object in a list of live policies.
type objKey struct{ apiVersion, kind, namespace, name string }

func keyOf(u *unstructured.Unstructured) objKey {
	return objKey{u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName()}
}

// liveAfter returns the live policies as the carried writes left them:
// written objects replace (or join) the listed ones, deleted ones are
// gone. It lets a pass record the health of a plan it just put in place
// or withdrew without listing again.
func liveAfter(live []*unstructured.Unstructured, c *Carried) []*unstructured.Unstructured {
	byKey := map[objKey]int{}
	res := make([]*unstructured.Unstructured, 0, len(live)+len(c.Written))
	for _, u := range live {
		byKey[keyOf(u)] = len(res)
		res = append(res, u)
	}
	for _, u := range c.Written {
		if i, ok := byKey[keyOf(u)]; ok {
			res[i] = u
			continue
		}
		byKey[keyOf(u)] = len(res)
		res = append(res, u)
	}
	gone := map[objKey]bool{}
	for _, u := range c.Deleted {
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
