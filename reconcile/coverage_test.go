package reconcile

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

func TestCoverage(t *testing.T) {
	nine := time.Date(2026, time.December, 24, 9, 0, 0, 0, time.UTC)
	selPlan := func(phase plan.Phase, before ...plan.Coverage) *plan.ProtectionPlan {
		return &plan.ProtectionPlan{
			Spec:   plan.Spec{Scope: plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"team": "payments"}}}}},
			Status: plan.Status{Phase: phase, Coverage: before},
		}
	}
	cluster := &Cluster{
		Namespaces:       map[string]bool{"pay": true, "pay-2": true, "web": true, "telark-system": true, "kube-system": true},
		NamespaceLabels:  map[string]map[string]string{"pay": {"team": "payments"}, "pay-2": {"team": "payments"}, "telark-system": {"team": "payments"}, "kube-system": {"team": "payments"}},
		ReleaseNamespace: "telark-system",
	}
	since := metav1.NewTime(nine.Add(-time.Hour))
	for name, tc := range map[string]struct {
		p    *plan.ProtectionPlan
		want []plan.Coverage
	}{
		"an active selector plan covers the labelled namespaces, the release namespace and kube-system left out": {
			p:    selPlan(plan.PhaseActive),
			want: []plan.Coverage{{Namespace: "pay", Since: metav1.NewTime(nine)}, {Namespace: "pay-2", Since: metav1.NewTime(nine)}},
		},
		"a namespace covered before keeps its since": {
			p:    selPlan(plan.PhaseActive, plan.Coverage{Namespace: "pay", Since: since}),
			want: []plan.Coverage{{Namespace: "pay", Since: since}, {Namespace: "pay-2", Since: metav1.NewTime(nine)}},
		},
		"a plan that is not active covers nothing": {
			p: selPlan(plan.PhaseScheduled, plan.Coverage{Namespace: "pay", Since: since}),
		},
		"a namespaces scope records no coverage": {
			p: &plan.ProtectionPlan{Spec: plan.Spec{Scope: plan.Scope{Namespaces: []string{"pay"}}}, Status: plan.Status{Phase: plan.PhaseActive}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, coverage(tc.p, cluster, nine)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
