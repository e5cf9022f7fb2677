package render

import (
	"errors"
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
	for name, tc := range map[string]struct {
		req  Request
		want bool
	}{
		"deleting a Rollout the delete template lists is refused":               {del(rollout), true},
		"deleting an excluded custom kind is admitted":                          {del(scaled), false},
		"kubectl scale of a Rollout (a served kind with /scale) is refused":     {scale(rollout), true},
		"a kind whose replicas path is not .spec.replicas is not covered (yet)": {scale(cnpg), false},
	} {
		t.Run(name, func(t *testing.T) {
			for _, target := range Targets() {
				p := namespacePlan(plan.ModeEnforce, []string{"shop"},
					tplWith("delete", "kinds", "Deployment, Rollout.argoproj.io, ScaledObject.keda.sh"), tpl("scaling"))
				p.Spec.Exclusions.Kinds = []string{"ScaledObject.keda.sh"}
				d, err := Explain(Input{Plan: p, Now: now, Target: target, Kinds: servedKinds}, tc.req)
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
