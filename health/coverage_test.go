package health

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestPoliciesHealthy_Coverage: a plan on namespace selectors says in
// PoliciesHealthy how many namespaces its policies cover now; none is
// said plainly, since such policies refuse nothing (issue 23).
func TestPoliciesHealthy_Coverage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		coverage []string
		want     string
	}{
		{"a selector plan covering two namespaces names them",
			[]string{"ledger", "shop"}, "all 2 policies are in place and match the plan; they cover 2 namespaces now (ledger, shop; status.coverage)"},
		{"a selector plan covering five namespaces names three and counts the rest",
			[]string{"a", "b", "c", "d", "e"}, "all 2 policies are in place and match the plan; they cover 5 namespaces now (a, b, c and 2 more; status.coverage)"},
		{"a selector plan covering no namespace says that its freeze refuses nothing",
			nil, "all 2 policies are in place and match the plan; but its namespace selectors select no namespace now: the freeze refuses nothing until a namespace is labelled to match (status.coverage)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := samplePlan(nil, "delete")
			p.Spec.Scope = plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"team": "payments"}}}}
			for _, ns := range tc.coverage {
				p.Status.Coverage = append(p.Status.Coverage, plan.Coverage{Namespace: ns, Since: metav1.NewTime(now)})
			}
			res, err := render.Render(render.Input{Plan: p, Now: now, ReleaseNamespace: "telark-system"})
			if err != nil {
				t.Fatal(err)
			}
			r := Check(Input{Plan: p, Render: res, Live: servedAll(res), Now: now})
			for _, c := range r.Conditions {
				if c.Type == plan.ConditionPoliciesHealthy && (c.Reason != ReasonInPlace || c.Message != tc.want) {
					t.Errorf("%s %q\nwant %s %q", c.Reason, c.Message, ReasonInPlace, tc.want)
				}
			}
		})
	}
	t.Run("a plan of listed namespaces says nothing of coverage", func(t *testing.T) {
		p := samplePlan(nil, "delete")
		r := Check(Input{Plan: p, Render: mustRender(t, p), Live: servedAll(mustRender(t, p)), Now: now})
		for _, c := range r.Conditions {
			if c.Type == plan.ConditionPoliciesHealthy && strings.Contains(c.Message, "cover") {
				t.Errorf("message %q", c.Message)
			}
		}
	})
}
