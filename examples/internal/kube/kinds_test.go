package kube

import (
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
)

func TestServedKindOf(t *testing.T) {
	for name, tc := range map[string]struct {
		crd  string
		want plan.ServedKind
		ok   bool
	}{
		"a namespaced CRD with a /scale gives its storage version and replicas path": {
			crd: `spec:
  group: argoproj.io
  scope: Namespaced
  names: {kind: Rollout, plural: rollouts}
  versions:
  - {name: v1alpha0, served: true, storage: false}
  - name: v1alpha1
    served: true
    storage: true
    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}`,
			want: plan.ServedKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout", Resource: "rollouts", Namespaced: true, ScaleReplicasPath: ".spec.replicas"},
			ok:   true,
		},
		"a cluster-scoped CRD is read as such": {
			crd:  "spec: {group: example.com, scope: Cluster, names: {kind: Tenant, plural: tenants}, versions: [{name: v1, served: true, storage: true}]}",
			want: plan.ServedKind{Group: "example.com", Version: "v1", Kind: "Tenant", Resource: "tenants"},
			ok:   true,
		},
		"a CRD serving no version gives nothing": {
			crd: "spec: {group: example.com, scope: Namespaced, names: {kind: Old, plural: olds}, versions: [{name: v1, served: false, storage: true}]}",
		},
	} {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(tc.crd), &m); err != nil {
				t.Fatal(err)
			}
			got, ok := servedKindOf(m)
			if ok != tc.ok || got != tc.want {
				t.Errorf("servedKindOf = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
