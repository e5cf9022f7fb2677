package lint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// onSelectors is a plan on namespace selectors (issue 23).
func onSelectors(id string, sels []metav1.LabelSelector, template string) *plan.ProtectionPlan {
	p := onNamespaces(id, nil, []string{template}, recurring("Europe/Berlin", "0 22 * * *", "8h"))
	p.Spec.Scope = plan.Scope{NamespaceSelectors: sels}
	return p
}

func TestLint_Selectors(t *testing.T) {
	payments := metav1.LabelSelector{MatchLabels: map[string]string{"team": "payments"}}
	prod := metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	everything := metav1.LabelSelector{}
	cluster := []plan.NamespaceInfo{
		{Name: "shop", Labels: map[string]string{"team": "payments", "env": "prod"}},
		{Name: "ledger", Labels: map[string]string{"team": "payments"}},
		{Name: "blog", Labels: map[string]string{"env": "prod"}},
		{Name: "kube-system"},
		{Name: "telark-system"},
	}
	nightly := recurring("Europe/Berlin", "0 22 * * *", "8h")
	cases := []struct {
		name       string
		plans      []*plan.ProtectionPlan
		namespaces []plan.NamespaceInfo
		want       []brief
		message    string
	}{{
		name: "with the cluster's namespaces, a selector plan overlaps a plan listing a namespace it selects",
		plans: []*plan.ProtectionPlan{
			onSelectors("by-team", []metav1.LabelSelector{prod, payments}, "delete"),
			onNamespaces("listed", []string{"blog", "shop"}, []string{"delete"}, nightly),
		},
		namespaces: cluster,
		want: []brief{{Severity: Warning, Code: PlansOverlap, Plans: []string{"by-team", "listed"},
			Fields: []Field{{"by-team", "spec.scope.namespaceSelectors[0]"}, {"by-team", "spec.scope.namespaceSelectors[1]"},
				{"listed", "spec.scope.namespaces[0]"}, {"listed", "spec.scope.namespaces[1]"}, {"by-team", "spec.templates[0]"},
				{"by-team", "spec.window"}, {"listed", "spec.window"}},
			Instants: []string{"2026-03-01T21:00:00Z", "2026-03-02T05:00:00Z"}}},
		message: "plans by-team and listed are both active on namespaces blog, shop from",
	}, {
		name: "with the cluster's namespaces, two selector plans overlap on the namespaces both select",
		plans: []*plan.ProtectionPlan{
			onSelectors("a", []metav1.LabelSelector{payments}, "create"),
			onSelectors("b", []metav1.LabelSelector{prod}, "delete"),
		},
		namespaces: cluster,
		want: []brief{{Severity: Info, Code: PlansOverlap, Plans: []string{"a", "b"},
			Fields: []Field{{"a", "spec.scope.namespaceSelectors[0]"}, {"b", "spec.scope.namespaceSelectors[0]"},
				{"a", "spec.window"}, {"b", "spec.window"}},
			Instants: []string{"2026-03-01T21:00:00Z", "2026-03-02T05:00:00Z"}}},
		message: "plans a and b are both active on namespaces shop from",
	}, {
		name: "with the cluster's namespaces, a selector that selects none of a plan's namespaces does not overlap it",
		plans: []*plan.ProtectionPlan{
			onSelectors("a", []metav1.LabelSelector{payments}, "delete"),
			onNamespaces("b", []string{"blog"}, []string{"delete"}, nightly),
		},
		namespaces: cluster,
		want:       []brief{},
	}, {
		name: "without labels, the whole cluster overlaps every namespace another plan lists, except those always left out",
		plans: []*plan.ProtectionPlan{
			onSelectors("all", []metav1.LabelSelector{everything}, "delete"),
			onNamespaces("b", []string{"kube-system", "shop"}, []string{"delete"}, nightly),
		},
		want: []brief{{Severity: Warning, Code: PlansOverlap, Plans: []string{"all", "b"},
			Fields: []Field{{"all", "spec.scope.namespaceSelectors[0]"}, {"b", "spec.scope.namespaces[1]"},
				{"all", "spec.templates[0]"}, {"all", "spec.window"}, {"b", "spec.window"}},
			Instants: []string{"2026-03-01T21:00:00Z", "2026-03-02T05:00:00Z"}}},
		message: "plans all and b are both active on namespaces shop from",
	}, {
		name: "without labels, two plans writing the same selector overlap on it",
		plans: []*plan.ProtectionPlan{
			onSelectors("a", []metav1.LabelSelector{payments}, "delete"),
			onSelectors("b", []metav1.LabelSelector{prod, payments}, "create"),
		},
		want: []brief{{Severity: Info, Code: PlansOverlap, Plans: []string{"a", "b"},
			Fields: []Field{{"a", "spec.scope.namespaceSelectors[0]"}, {"b", "spec.scope.namespaceSelectors[1]"},
				{"a", "spec.window"}, {"b", "spec.window"}},
			Instants: []string{"2026-03-01T21:00:00Z", "2026-03-02T05:00:00Z"}}},
		message: "plans a and b are both active on namespaceSelectors {team=payments} from",
	}, {
		name: "without labels, a selector plan and a plan listing namespaces are not compared",
		plans: []*plan.ProtectionPlan{
			onSelectors("a", []metav1.LabelSelector{payments}, "delete"),
			onNamespaces("b", []string{"shop"}, []string{"delete"}, nightly),
		},
		want: []brief{},
	}, {
		name: "a selector plan and a plan of applications are not compared",
		plans: []*plan.ProtectionPlan{
			onSelectors("a", []metav1.LabelSelector{everything}, "delete"),
			appPlan("b", []string{"shop"}, "delete", nightly),
		},
		namespaces: cluster,
		want:       []brief{},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []Option
			if c.namespaces != nil {
				opts = append(opts, WithNamespaces(c.namespaces, plan.AlwaysLeftOut("telark-system", nil)))
			}
			got := Lint(c.plans, now, opts...)
			if diff := cmp.Diff(c.want, briefOf(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if c.message != "" && (len(got) == 0 || len(got[0].Message) < len(c.message) || got[0].Message[:len(c.message)] != c.message) {
				t.Errorf("message %q, want it to start %q", firstMessage(got), c.message)
			}
		})
	}
}

func firstMessage(fs []Finding) string {
	if len(fs) == 0 {
		return ""
	}
	return fs[0].Message
}
