package render

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
)

// servedKinds are discovery facts: Argo Rollouts (with its /scale), a
// CloudNativePG Cluster (a /scale whose replicas path is .spec.instances)
// and a cluster-scoped kind.
var servedKinds = plan.ServedKinds{
	{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout", Resource: "rollouts", Namespaced: true, ScaleReplicasPath: ".spec.replicas"},
	{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Cluster", Resource: "clusters", Namespaced: true, ScaleReplicasPath: ".spec.instances"},
	{Group: "example.com", Version: "v1", Kind: "Tenant", Resource: "tenants", Namespaced: false},
	{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject", Resource: "scaledobjects", Namespaced: true},
}

func TestGolden_CustomKinds(t *testing.T) {
	for _, target := range Targets() {
		name := goldenName(target, "custom_kinds_enforce")
		t.Run(name, func(t *testing.T) {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"},
				tplWith("delete", "kinds", "Deployment, Rollout.argoproj.io, ScaledObject.keda.sh"), tpl("scaling"))
			p.Spec.Exclusions.Kinds = []string{"ScaledObject.keda.sh"}
			checkGolden(t, name, mustYAML(t, mustRender(t, Input{Plan: p, Now: now, Target: target, Kinds: servedKinds})))
		})
	}
}

func TestRender_CustomKindsRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		kinds string
		in    plan.ServedKinds
		want  string
	}{
		"a custom kind the cluster does not serve is refused, naming the parameter": {
			kinds: "Widget.example.com", in: servedKinds,
			want: `spec.templates[0].parameters[kinds]: Not found: "Widget.example.com"`,
		},
		"a cluster-scoped kind is refused": {
			kinds: "Tenant.example.com", in: servedKinds,
			want: `spec.templates[0].parameters[kinds]: Invalid value: "Tenant.example.com": is cluster-scoped; a plan freezes namespaced kinds only`,
		},
		"a custom kind without discovery facts is refused": {
			kinds: "Rollout.argoproj.io",
			want:  `spec.templates[0].parameters[kinds]: Not found: "Rollout.argoproj.io"`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tplWith("delete", "kinds", tc.kinds))
			_, err := Render(Input{Plan: p, Now: now, Kinds: tc.in})
			var verr *plan.ValidationError
			if !errors.As(err, &verr) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a *plan.ValidationError with %q", err, tc.want)
			}
		})
	}
}

func TestExplain_CustomKinds(t *testing.T) {
	rollout := schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout"}
	scaled := schema.GroupVersionKind{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject"}
	cnpg := schema.GroupVersionKind{Group: "postgresql.cnpg.io", Version: "v1", Kind: "Cluster"}
	scale := func(gvk schema.GroupVersionKind) Request {
		return Request{Operation: OpUpdate, Kind: gvk, Subresource: SubresourceScale, Namespace: "shop", Name: "x",
			Object:    map[string]any{"spec": map[string]any{"replicas": int64(5)}},
			OldObject: map[string]any{"spec": map[string]any{"replicas": int64(2)}}, UserInfo: UserInfo{Username: "alice"}}
	}
	del := func(gvk schema.GroupVersionKind) Request {
		return Request{Operation: OpDelete, Kind: gvk, Namespace: "shop", Name: "x", UserInfo: UserInfo{Username: "alice"}}
	}
	// patch is an update of the resource itself, from old to new spec.
	patch := func(gvk schema.GroupVersionKind, oldSpec, newSpec map[string]any) Request {
		return Request{Operation: OpUpdate, Kind: gvk, Namespace: "shop", Name: "x",
			Object: map[string]any{"spec": newSpec}, OldObject: map[string]any{"spec": oldSpec}, UserInfo: UserInfo{Username: "alice"}}
	}
	odd := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Odd"}
	for name, tc := range map[string]struct {
		req  Request
		want bool
	}{
		"deleting a Rollout the delete template lists is refused":                      {del(rollout), true},
		"deleting an excluded custom kind is admitted":                                 {del(scaled), false},
		"kubectl scale of a Rollout (a served kind with /scale) is refused":            {scale(rollout), true},
		"kubectl scale of a Cluster whose replicas path is .spec.instances is refused": {scale(cnpg), true},
		"a patch of a Cluster's spec.instances (its CRD's replicas path) is refused": {
			patch(cnpg, map[string]any{"instances": int64(3)}, map[string]any{"instances": int64(5)}), true},
		"a patch of a Cluster's other fields is admitted": {
			patch(cnpg, map[string]any{"instances": int64(3), "description": "a"}, map[string]any{"instances": int64(3), "description": "b"}), false},
		"a patch of a Rollout's spec.replicas is refused": {
			patch(rollout, map[string]any{"replicas": int64(3)}, map[string]any{"replicas": int64(4)}), true},
		"kubectl scale of a kind whose replicas path is not plain identifiers is refused": {scale(odd), true},
		"a patch of that kind's replicas is not covered: its path cannot be read safely": {
			patch(odd, map[string]any{"my-replicas": int64(3)}, map[string]any{"my-replicas": int64(5)}), false},
	} {
		t.Run(name, func(t *testing.T) {
			for _, target := range Targets() {
				p := namespacePlan(plan.ModeEnforce, []string{"shop"},
					tplWith("delete", "kinds", "Deployment, Rollout.argoproj.io, ScaledObject.keda.sh"), tpl("scaling"))
				p.Spec.Exclusions.Kinds = []string{"ScaledObject.keda.sh"}
				kinds := append(slices.Clone(servedKinds), plan.ServedKind{Group: "example.com", Version: "v1", Kind: "Odd", Resource: "odds",
					Namespaced: true, ScaleReplicasPath: ".spec.my-replicas"})
				d, err := Explain(Input{Plan: p, Now: now, Target: target, Kinds: kinds}, tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if d.Blocked != tc.want {
					t.Errorf("%s: blocked %v, want %v (%s)", target, d.Blocked, tc.want, d.Reason)
				}
			}
		})
	}
}
