package operator

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/reconcile"
)

// do carries out one health action (reconcile.Do): a server-side apply
// forcing ownership under FieldManager, a failure-action merge patch
// guarded by the resourceVersion it was decided on, or a delete with uid
// and resourceVersion preconditions.
func (r *reconciler) do(ctx context.Context) reconcile.Do {
	return func(a health.Action) (*unstructured.Unstructured, error) {
		obj := a.Object.DeepCopy()
		switch a.Kind {
		case health.Apply:
			err := r.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(FieldManager), client.ForceOwnership)
			return obj, err
		case health.PatchFailureAction:
			_, body, err := a.MergePatch()
			if err != nil {
				return nil, err
			}
			target := &unstructured.Unstructured{}
			target.SetGroupVersionKind(obj.GroupVersionKind())
			target.SetNamespace(obj.GetNamespace())
			target.SetName(obj.GetName())
			err = r.c.Patch(ctx, target, client.RawPatch("application/merge-patch+json", body), client.FieldOwner(FieldManager))
			return target, err
		case health.Delete:
			opts := []client.DeleteOption{client.PropagationPolicy("Background")}
			if pc := a.Preconditions(); pc != nil {
				opts = append(opts, client.Preconditions(*pc))
			}
			return nil, r.c.Delete(ctx, obj, opts...)
		}
		return nil, fmt.Errorf("unknown action %q", a.Kind)
	}
}
