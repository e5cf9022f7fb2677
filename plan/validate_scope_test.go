package plan

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate_Scope(t *testing.T) {
	nsPlan := func(ns ...string) func() *ProtectionPlan {
		return func() *ProtectionPlan {
			p := holiday()
			p.Spec.Scope.Namespaces = ns
			return p
		}
	}
	runValidateCases(t, map[string]validateCase{
		"the release namespace is refused (400)": {
			plan: nsPlan("shop", "payments", "telark-system"),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaces[2]",
				"is the release namespace, where protection plans run; a plan may not freeze it"}},
			code: 400,
		},
		"an excluded namespace is refused (400)": {
			plan: nsPlan("kube-system"),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaces[0]",
				"is an excluded namespace; plans may not target it"}},
			code: 400,
		},
		"a namespace that does not exist is refused (400)": {
			plan: nsPlan("shop", "ghost"),
			want: []fieldErr{{field.ErrorTypeNotFound, "spec.scope.namespaces[1]", "no such namespace in the cluster"}},
			code: 400,
		},
		"an unreadable excluded list is a 503 for a namespace-scoped plan, reported once": {
			plan: nsPlan("shop", "payments"),
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				snap := testSnapshot()
				snap.ExcludedUnreadable = true
				env.Cluster = snap
			},
			want: []fieldErr{{field.ErrorTypeInternal, "spec.scope.namespaces",
				"cannot read the excluded-namespace list, try again later: the excluded-namespace list cannot be read"}},
			code: 503,
		},
		"an unreadable excluded list does not matter to an applications plan": {
			plan: nightly,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				snap := testSnapshot()
				snap.ExcludedUnreadable = true
				env.Cluster = snap
			},
			code: 200,
		},
		"an application living in the release namespace is refused (400)": {
			plan: nightly,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				snap := testSnapshot()
				snap.Applications[0].Namespaces = []string{"shop", "telark-system"}
				env.Cluster, env.Applications = snap, snap
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.applications[0]",
				`lives in "telark-system", the release namespace, where protection plans run; a plan may not freeze it`}},
			code: 400,
		},
		"an application living in an excluded namespace is refused (400)": {
			plan: nightly,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				snap := testSnapshot()
				snap.Applications[0].Namespaces = []string{"kube-system"}
				env.Cluster, env.Applications = snap, snap
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.applications[0]",
				`lives in "kube-system", an excluded namespace; plans may not target it`}},
			code: 400,
		},
		"a namespace listed twice is refused": {
			plan: nsPlan("shop", "payments", "shop"),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaces[2]", "listed twice (first at spec.scope.namespaces[0])"}},
			code: 400,
		},
		"a namespace that is not a DNS label is refused": {
			plan: nsPlan("Shop"),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaces[0]",
				"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
			code: 400,
		},
		"a scope with both applications and namespaces is refused": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Scope.Namespaces = []string{"shop"} },
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.scope", "set one of applications, namespaces or namespaceSelectors"}},
			code:   400,
		},
		"a scope with neither is required": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Scope = Scope{} },
			want:   []fieldErr{{field.ErrorTypeRequired, "spec.scope", "set applications, namespaces or namespaceSelectors"}},
			code:   400,
		},
		"an unknown application is refused (400)": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Scope.Applications = []string{"checkout", "ghost"} },
			want:   []fieldErr{{field.ErrorTypeNotFound, "spec.scope.applications[1]", "no such application"}},
			code:   400,
		},
		"an application resolver that fails is a 503": {
			plan: nightly,
			change: func(_ *ProtectionPlan, env *ValidationEnv) {
				env.Applications = ApplicationResolverFunc(func(string) (Application, error) {
					return Application{}, errors.New("argocd unreachable")
				})
			},
			want: []fieldErr{{field.ErrorTypeInternal, "spec.scope.applications[0]",
				"cannot resolve the application, try again later: argocd unreachable"}},
			code: 503,
		},
		"without a cluster view, namespaces are checked for syntax only": {
			plan:   nsPlan("ghost", "telark-system"),
			change: func(_ *ProtectionPlan, env *ValidationEnv) { env.Cluster = nil },
			code:   200,
		},
	})
}

func TestValidate_Exclusions(t *testing.T) {
	runValidateCases(t, map[string]validateCase{
		"named resources cannot be excluded from a namespaces scope": {
			plan: holiday,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Exclusions.Resources = []ResourceRef{{Kind: "Deployment", Name: "checkout", Namespace: "shop"}}
			},
			want: []fieldErr{{field.ErrorTypeForbidden, "spec.exclusions.resources",
				"named resources can be excluded only from an applications scope; exclude whole kinds instead"}},
			code: 400,
		},
		"a member of the selected application can be excluded": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Exclusions.Resources = []ResourceRef{{Kind: "Deployment", Name: "checkout", Namespace: "shop"}}
			},
			code: 200,
		},
		"a resource that is not a member of the selected applications is refused": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Exclusions.Resources = []ResourceRef{{Kind: "Deployment", Name: "billing", Namespace: "shop"}}
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.exclusions.resources[0]",
				"is not a member of the selected applications"}},
			code: 400,
		},
		"membership is not checked when an application's members are unknown": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Scope.Applications = []string{"checkout", "cart"}
				p.Spec.Exclusions.Resources = []ResourceRef{{Kind: "Deployment", Name: "cart", Namespace: "shop"}}
			},
			code: 200,
		},
		"a resource exclusion needs a kind, a name and a namespace": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Exclusions.Resources = []ResourceRef{{Kind: "deployment"}}
			},
			want: []fieldErr{
				{field.ErrorTypeInvalid, "spec.exclusions.resources[0].kind",
					"must be a kind such as ConfigMap (an upper-case letter, then letters and digits), or a custom kind such as Rollout.argoproj.io"},
				{field.ErrorTypeRequired, "spec.exclusions.resources[0].name", "the name of the resource to exclude"},
				{field.ErrorTypeRequired, "spec.exclusions.resources[0].namespace", "the namespace of the resource to exclude"},
			},
			code: 400,
		},
		"a kind excluded twice is refused": {
			plan: holiday,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Exclusions.Kinds = []string{"ConfigMap", "Secret", "ConfigMap"}
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.exclusions.kinds[2]", "listed twice (first at spec.exclusions.kinds[0])"}},
			code: 400,
		},
		"a kind with a subresource is refused (the /scale subresource is excluded with its kind)": {
			plan:   holiday,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Exclusions.Kinds = []string{"Deployment/scale"} },
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.exclusions.kinds[0]",
				"must be a kind such as ConfigMap (an upper-case letter, then letters and digits), or a custom kind such as Rollout.argoproj.io"}},
			code: 400,
		},
	})
}

func TestValidate_Templates(t *testing.T) {
	withTemplates := func(refs ...TemplateRef) func(*ProtectionPlan, *ValidationEnv) {
		return func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Templates = refs }
	}
	runValidateCases(t, map[string]validateCase{
		"an unknown template is refused": {
			plan:   nightly,
			change: withTemplates(TemplateRef{Name: "image-change"}, TemplateRef{Name: "everything"}),
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.templates[1].name", "no template of this name in the catalog"}},
			code:   400,
		},
		"a template that does not support the scope is refused": {
			plan:   holiday,
			change: withTemplates(TemplateRef{Name: "image-change"}),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.templates[0].name",
				"does not support a namespaces scope (it supports: applications)"}},
			code: 400,
		},
		"a template listed twice is refused (400, not a conflict)": {
			plan:   nightly,
			change: withTemplates(TemplateRef{Name: "scaling"}, TemplateRef{Name: "scaling"}),
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.templates[1].name", "listed twice (first at spec.templates[0])"}},
			code:   400,
		},
		"an undeclared parameter is refused": {
			plan: nightly,
			change: withTemplates(TemplateRef{Name: "image-change"},
				TemplateRef{Name: "scaling", Parameters: map[string]string{"maxReplica": "5"}}),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.templates[1].parameters[maxReplica]",
				"template scaling declares no parameter of this name (it declares: maxReplicas, allowScaleDown, grace)"}},
			code: 400,
		},
		"a parameter of a template that declares none is refused": {
			plan:   holiday,
			change: withTemplates(TemplateRef{Name: "all-writes", Parameters: map[string]string{"x": "1"}}),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.templates[0].parameters[x]",
				"template all-writes declares no parameter of this name (it declares: none)"}},
			code: 400,
		},
		"values must parse as their declared types": {
			plan: nightly,
			change: withTemplates(TemplateRef{Name: "scaling", Parameters: map[string]string{
				"maxReplicas": "ten", "allowScaleDown": "yes", "grace": "5 minutes"}}),
			want: []fieldErr{
				{field.ErrorTypeInvalid, "spec.templates[0].parameters[allowScaleDown]", "must be true or false"},
				{field.ErrorTypeInvalid, "spec.templates[0].parameters[grace]", "must be a duration such as 90s, 15m or 2h"},
				{field.ErrorTypeInvalid, "spec.templates[0].parameters[maxReplicas]", "must be an integer"},
			},
			code: 400,
		},
		"well-typed values pass": {
			plan: nightly,
			change: withTemplates(TemplateRef{Name: "scaling", Parameters: map[string]string{
				"maxReplicas": "10", "allowScaleDown": "true", "grace": "15m"}}),
			code: 200,
		},
		"no template at all is required": {
			plan:   nightly,
			change: withTemplates(),
			want:   []fieldErr{{field.ErrorTypeRequired, "spec.templates", "choose at least one template from the catalog"}},
			code:   400,
		},
	})
}

func TestValidate_ModesAndCategories(t *testing.T) {
	tags := make([]string, 21)
	var custom []Category
	for i := range tags {
		tags[i] = string(rune('A'+i)) + "-team"
		custom = append(custom, Category{Kind: KindTag, Name: tags[i]})
	}
	many, err := NewCategories(custom)
	if err != nil {
		t.Fatal(err)
	}
	runValidateCases(t, map[string]validateCase{
		"a missing mode is required": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Mode = "" },
			want:   []fieldErr{{field.ErrorTypeRequired, "spec.mode", "must be audit or enforce"}},
			code:   400,
		},
		"a mode other than audit or enforce is refused": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Mode = "block" },
			want:   []fieldErr{{field.ErrorTypeNotSupported, "spec.mode", `supported values: "audit", "enforce"`}},
			code:   400,
		},
		"an automatic plan in Production is refused": {
			plan: holiday,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Environment = "Production"
			},
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.approvalMode",
				"a plan in the Production environment always requires approval"}},
			code: 400,
		},
		"a required plan in Production passes": {
			plan: func() *ProtectionPlan { return required(holiday()) },
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Environment = "Production"
				p.Spec.Tags = []string{"Compliance", "Security"}
			},
			code: 200,
		},
		"an unknown environment is refused, listing the known ones": {
			plan:   nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Environment = "production" },
			want: []fieldErr{{field.ErrorTypeNotSupported, "spec.environment",
				`supported values: "Production", "Staging", "Development"`}},
			code: 400,
		},
		"unknown and duplicate tags are refused": {
			plan: nightly,
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Tags = []string{"Security", "PCI", "security"}
			},
			want: []fieldErr{
				{field.ErrorTypeNotSupported, "spec.tags[1]", `supported values: "Compliance", "Security", "Baseline"`},
				{field.ErrorTypeInvalid, "spec.tags[2]", "listed twice (first at spec.tags[0])"},
			},
			code: 400,
		},
		"more than 20 tags are too many": {
			plan: nightly,
			change: func(p *ProtectionPlan, env *ValidationEnv) {
				p.Spec.Tags = tags
				env.Categories = many
			},
			want: []fieldErr{{field.ErrorTypeTooMany, "spec.tags", "must have at most 20 items"}},
			code: 400,
		},
		"a custom environment passes": {
			plan: nightly,
			change: func(p *ProtectionPlan, env *ValidationEnv) {
				env.Categories, _ = NewCategories([]Category{{Kind: KindEnvironment, Name: "Sandbox"}})
				p.Spec.Environment = "Sandbox"
			},
			code: 200,
		},
	})
}
