package plan

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func team(v string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{"team": v}}
}

func TestValidate_NamespaceSelectors(t *testing.T) {
	selPlan := func(sels ...metav1.LabelSelector) func() *ProtectionPlan {
		return func() *ProtectionPlan {
			p := holiday()
			p.Spec.Scope = Scope{NamespaceSelectors: sels}
			return p
		}
	}
	runValidateCases(t, map[string]validateCase{
		"a plan selecting namespaces by label is accepted": {
			plan: selPlan(team("payments"), metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "staging"}}}}),
			code: 200,
		},
		"the whole cluster (one empty selector) is accepted": {
			plan: selPlan(metav1.LabelSelector{}),
			code: 200,
		},
		"an empty selector listed with others is refused, naming it": {
			plan: selPlan(team("payments"), metav1.LabelSelector{}),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaceSelectors[1]",
				"an empty selector is the whole cluster; list it alone"}},
			code: 400,
		},
		"a selector listed twice is refused, naming the first": {
			plan: selPlan(team("payments"), team("payments")),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaceSelectors[1]",
				"listed twice (first at spec.scope.namespaceSelectors[0])"}},
			code: 400,
		},
		"a selector Kubernetes would refuse is refused with its message": {
			plan: selPlan(metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: metav1.LabelSelectorOpIn}}}),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaceSelectors[0]",
				"values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"}},
			code: 400,
		},
		"a label value that is not a label value is refused": {
			plan: selPlan(team("pay ments")),
			want: []fieldErr{{field.ErrorTypeInvalid, "spec.scope.namespaceSelectors[0]",
				"values[0][team]: Invalid value: \"pay ments\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
			code: 400,
		},
		"a scope with both namespaces and namespaceSelectors is refused": {
			plan:   selPlan(team("payments")),
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Scope.Namespaces = []string{"shop"} },
			want:   []fieldErr{{field.ErrorTypeInvalid, "spec.scope", "set one of applications, namespaces or namespaceSelectors"}},
			code:   400,
		},
		"named resources cannot be excluded from a namespaceSelectors scope": {
			plan: selPlan(team("payments")),
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Exclusions.Resources = []ResourceRef{{Kind: "Deployment", Name: "web", Namespace: "shop"}}
			},
			want: []fieldErr{{field.ErrorTypeForbidden, "spec.exclusions.resources",
				"named resources can be excluded only from an applications scope; exclude whole kinds instead"}},
			code: 400,
		},
	})
}

func TestValidateUpdate_NamespaceSelectorsScopeTypeIsFixed(t *testing.T) {
	old := holiday()
	for name, tc := range map[string]struct {
		from, to Scope
		want     string
	}{
		"a namespaces scope cannot become a selectors scope": {
			from: Scope{Namespaces: []string{"shop"}}, to: Scope{NamespaceSelectors: []metav1.LabelSelector{team("payments")}},
			want: "the scope type cannot change after creation (from namespaces to namespaceSelectors); create a new plan with a namespaceSelectors scope instead"},
		"a selectors scope cannot become an applications scope": {
			from: Scope{NamespaceSelectors: []metav1.LabelSelector{team("payments")}}, to: Scope{Applications: []string{"checkout"}},
			want: "the scope type cannot change after creation (from namespaceSelectors to applications); create a new plan with an applications scope instead"},
		"other selectors are no change of type": {
			from: Scope{NamespaceSelectors: []metav1.LabelSelector{team("payments")}}, to: Scope{NamespaceSelectors: []metav1.LabelSelector{{}}}},
	} {
		t.Run(name, func(t *testing.T) {
			got := ""
			if e := scopeTypeChange(tc.from, tc.to, field.NewPath("spec", "scope")); e != nil {
				got = e.Detail
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			_ = old
		})
	}
}

func TestSelectsNamespace(t *testing.T) {
	leftOut := AlwaysLeftOut("telark-system", []string{"legacy"})
	ns := func(name string, kv ...string) NamespaceInfo {
		n := NamespaceInfo{Name: name, Labels: map[string]string{}}
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
		return n
	}
	prod := metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}}
	for name, tc := range map[string]struct {
		sels []metav1.LabelSelector
		ns   NamespaceInfo
		want bool
	}{
		"a namespace one selector selects is covered":                      {[]metav1.LabelSelector{team("payments")}, ns("pay", "team", "payments"), true},
		"selectors are ORed: the second one selecting is enough":           {[]metav1.LabelSelector{team("payments"), prod}, ns("web", "env", "prod"), true},
		"a namespace no selector selects is not covered":                   {[]metav1.LabelSelector{team("payments"), prod}, ns("web", "env", "dev"), false},
		"a namespace without labels is not covered by a label selector":    {[]metav1.LabelSelector{team("payments")}, ns("bare"), false},
		"the whole cluster covers a namespace without labels":              {[]metav1.LabelSelector{{}}, ns("bare"), true},
		"the whole cluster leaves kube-system out":                         {[]metav1.LabelSelector{{}}, ns("kube-system"), false},
		"the whole cluster leaves kube-public out":                         {[]metav1.LabelSelector{{}}, ns("kube-public"), false},
		"the whole cluster leaves kube-node-lease out":                     {[]metav1.LabelSelector{{}}, ns("kube-node-lease"), false},
		"the whole cluster leaves the release namespace out":               {[]metav1.LabelSelector{{}}, ns("telark-system"), false},
		"the whole cluster leaves an excluded namespace out":               {[]metav1.LabelSelector{{}}, ns("legacy"), false},
		"a selector matching the release namespace's labels leaves it out": {[]metav1.LabelSelector{team("platform")}, ns("telark-system", "team", "platform"), false},
		"a namespace's name counts as its kubernetes.io/metadata.name label": {
			[]metav1.LabelSelector{{MatchLabels: map[string]string{MetadataNameLabel: "shop"}}}, ns("shop"), true},
		"an empty selector list covers nothing": {nil, ns("shop", "team", "payments"), false},
		"a namespace's name wins over a kubernetes.io/metadata.name label of another value": {
			[]metav1.LabelSelector{{MatchLabels: map[string]string{MetadataNameLabel: "other"}}}, ns("shop", MetadataNameLabel, "other"), false},
		"an invalid selector selects nothing; a valid one beside it still does": {
			[]metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "Near"}}}, team("payments")},
			ns("pay", "team", "payments"), true},
		"a DoesNotExist selector covers a namespace without the label": {
			[]metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}}}},
			ns("bare"), true},
		"a DoesNotExist selector leaves out a namespace with the label": {
			[]metav1.LabelSelector{{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}}}},
			ns("pay", "team", "payments"), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := SelectsNamespace(tc.sels, leftOut, tc.ns); got != tc.want {
				t.Errorf("SelectsNamespace = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCoveredNamespacesAndSince(t *testing.T) {
	nine := time.Date(2026, time.December, 24, 9, 0, 0, 0, time.UTC)
	ten := nine.Add(time.Hour)
	scope := Scope{NamespaceSelectors: []metav1.LabelSelector{team("payments")}}
	leftOut := AlwaysLeftOut("telark-system", nil)
	before := []NamespaceInfo{
		{Name: "pay", Labels: map[string]string{"team": "payments"}},
		{Name: "web", Labels: map[string]string{"team": "web"}},
	}
	at9 := UpdateCoverage(nil, CoveredNamespaces(scope, leftOut, before), nine)
	// At ten, web was labelled into the selector and pay relabelled out.
	after := []NamespaceInfo{
		{Name: "pay", Labels: map[string]string{"team": "payments"}},
		{Name: "web", Labels: map[string]string{"team": "payments"}},
		{Name: "kube-system", Labels: map[string]string{"team": "payments"}},
	}
	at10 := UpdateCoverage(at9, CoveredNamespaces(scope, leftOut, after), ten)
	want := []Coverage{{Namespace: "pay", Since: metav1.NewTime(nine)}, {Namespace: "web", Since: metav1.NewTime(ten)}}
	if diff := cmp.Diff(want, at10); diff != "" {
		t.Errorf("a namespace labelled in later is covered since then, one covered before keeps its since (-want +got):\n%s", diff)
	}
	gone := UpdateCoverage(at10, CoveredNamespaces(scope, leftOut, after[1:]), ten.Add(time.Hour))
	if diff := cmp.Diff([]Coverage{{Namespace: "web", Since: metav1.NewTime(ten)}}, gone); diff != "" {
		t.Errorf("a namespace no longer covered is dropped (-want +got):\n%s", diff)
	}
	nsScope := Scope{Namespaces: []string{"web", "ghost"}}
	if diff := cmp.Diff([]string{"web"}, CoveredNamespaces(nsScope, leftOut, after)); diff != "" {
		t.Errorf("a namespaces scope covers the listed namespaces that exist (-want +got):\n%s", diff)
	}
}
