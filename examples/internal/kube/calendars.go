package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/window"
)

// Calendars reads the calendars a window names (window.Calendars) for
// reconcile.Input.Calendars: each ConfigMap key's text (data, or
// binaryData for a file stored as bytes). The ConfigMaps live in the
// release namespace, as the categories ConfigMap does: a plan is
// cluster-scoped and has no namespace of its own, and the release
// namespace is where only the product's operators write, so a team that
// can write ConfigMaps in its own namespace cannot lift a freeze by
// editing a holiday list. A ConfigMap or key that does not exist is left
// out (reconcile reports it missing); any other read error is returned
// with what was read so far, and the caller leaves the rest out.
func (r *Reader) Calendars(ctx context.Context, spec window.Spec) (map[window.ConfigMapKeyRef][]byte, error) {
	refs := window.Calendars(spec)
	if len(refs) == 0 {
		return nil, nil
	}
	out := map[window.ConfigMapKeyRef][]byte{}
	read := map[string]*corev1.ConfigMap{}
	for _, ref := range refs {
		cm, seen := read[ref.Name]
		if !seen {
			cm = &corev1.ConfigMap{}
			err := r.client.Get(ctx, types.NamespacedName{Namespace: r.facts.ReleaseNamespace, Name: ref.Name}, cm)
			switch {
			case apierrors.IsNotFound(err):
				cm = nil
			case err != nil:
				return out, fmt.Errorf("reading the calendar ConfigMap %s/%s: %w", r.facts.ReleaseNamespace, ref.Name, err)
			}
			read[ref.Name] = cm
		}
		if cm == nil {
			continue
		}
		if text, ok := cm.Data[ref.Key]; ok {
			out[ref] = []byte(text)
		} else if b, ok := cm.BinaryData[ref.Key]; ok {
			out[ref] = b
		}
	}
	return out, nil
}
