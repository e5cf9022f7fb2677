package plan

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var testServedKinds = ServedKinds{
	{Group: "argoproj.io", Version: "v1alpha1", Kind: "Rollout", Resource: "rollouts", Namespaced: true, ScaleReplicasPath: ".spec.replicas"},
	{Group: "example.com", Version: "v1", Kind: "Tenant", Resource: "tenants"},
}

func TestValidate_CustomKinds(t *testing.T) {
	withKinds := func(kinds string, served ServedKinds) func(*ProtectionPlan, *ValidationEnv) {
		return func(p *ProtectionPlan, env *ValidationEnv) {
			p.Spec.Templates = []TemplateRef{{Name: "all-writes", Parameters: map[string]string{"kinds": kinds}}}
			env.Catalog = CatalogFunc(func(name string) (TemplateInfo, bool) {
				return TemplateInfo{Name: name, Scopes: []ScopeType{ScopeNamespaces}, Parameters: []ParameterInfo{{
					Name: "kinds", Type: ParamStringList, Values: []string{"Deployment"}, CustomKinds: true}}}, true
			})
			env.Kinds = served
		}
	}
	runValidateCases(t, map[string]validateCase{
		"a served namespaced custom kind is accepted beside a catalog kind": {
			plan: holiday, change: withKinds("Deployment, Rollout.argoproj.io", testServedKinds), code: 200,
		},
		"a custom kind the cluster does not serve is refused, naming the parameter": {
			plan: holiday, change: withKinds("Widget.example.com", testServedKinds), code: 400,
			want: []fieldErr{{field.ErrorTypeNotFound, "spec.templates[0].parameters[kinds]", "the cluster serves no such kind"}},
		},
		"a cluster-scoped custom kind is refused": {
			plan: holiday, change: withKinds("Tenant.example.com", testServedKinds), code: 400,
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.templates[0].parameters[kinds]", "is cluster-scoped; a plan freezes namespaced kinds only"}},
		},
		"without discovery facts a custom kind is not checked": {
			plan: holiday, change: withKinds("Widget.example.com", nil), code: 200,
		},
		"a custom kind may be excluded": {
			plan: holiday, code: 200,
			change: func(p *ProtectionPlan, env *ValidationEnv) {
				p.Spec.Exclusions.Kinds = []string{"Rollout.argoproj.io"}
				env.Kinds = testServedKinds
			},
		},
		"an excluded custom kind the cluster does not serve is refused": {
			plan: holiday, code: 400,
			change: func(p *ProtectionPlan, env *ValidationEnv) {
				p.Spec.Exclusions.Kinds = []string{"Widget.example.com"}
				env.Kinds = testServedKinds
			},
			want: []fieldErr{{field.ErrorTypeNotFound, "spec.exclusions.kinds[0]", "the cluster serves no such kind"}},
		},
	})
}

func TestIsCustomKindName(t *testing.T) {
	for name, want := range map[string]bool{
		"Rollout.argoproj.io": true, "Cluster.postgresql.cnpg.io": true,
		"Deployment": false, "Rollout.argoproj": false, "rollout.argoproj.io": false,
		"Rollout.Argoproj.io": false, "Rollout/scale.argoproj.io": false, "Rollout..io": false,
	} {
		if got := IsCustomKindName(name); got != want {
			t.Errorf("IsCustomKindName(%q) = %v, want %v", name, got, want)
		}
	}
}
