package reconcile

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
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
		"a plan that is not active keeps its last run's coverage (for the final report)": {
			p:    selPlan(plan.PhaseTerminated, plan.Coverage{Namespace: "pay", Since: since}),
			want: []plan.Coverage{{Namespace: "pay", Since: since}},
		},
		"a new run starts its coverage again": {
			p: func() *plan.ProtectionPlan {
				p := selPlan(plan.PhaseActive, plan.Coverage{Namespace: "pay", Since: since})
				p.Status.StartedAt = &metav1.Time{Time: nine.Add(-time.Minute)}
				return p
			}(),
			want: []plan.Coverage{{Namespace: "pay", Since: metav1.NewTime(nine)}, {Namespace: "pay-2", Since: metav1.NewTime(nine)}},
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

func TestNeedsKinds(t *testing.T) {
	with := func(phase plan.Phase, edit func(s *plan.Spec)) []*plan.ProtectionPlan {
		p := &plan.ProtectionPlan{Spec: plan.Spec{Templates: []plan.TemplateRef{{Name: "delete"}}}, Status: plan.Status{Phase: phase}}
		edit(&p.Spec)
		return []*plan.ProtectionPlan{p}
	}
	for name, tc := range map[string]struct {
		plans []*plan.ProtectionPlan
		want  bool
	}{
		"a plan of catalog kinds does not need them": {with(plan.PhaseActive, func(*plan.Spec) {}), false},
		"a plan naming a custom kind needs them": {with(plan.PhaseActive, func(s *plan.Spec) {
			s.Templates[0].Parameters = map[string]string{"kinds": "Deployment,Rollout.argoproj.io"}
		}), true},
		"a plan excluding a custom kind needs them": {with(plan.PhaseScheduled, func(s *plan.Spec) { s.Exclusions.Kinds = []string{"Rollout.argoproj.io"} }), true},
		"a scaling plan needs them (it covers every served kind with a /scale)": {with(plan.PhaseActive, func(s *plan.Spec) {
			s.Templates = append(s.Templates, plan.TemplateRef{Name: "scaling"})
		}), true},
		"a terminated plan does not": {with(plan.PhaseTerminated, func(s *plan.Spec) { s.Templates = []plan.TemplateRef{{Name: "scaling"}} }), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := NeedsKinds(tc.plans); got != tc.want {
				t.Errorf("NeedsKinds = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCheckpointOf_ClusterWidePolicies(t *testing.T) {
	obj := func(apiVersion, kind, ns, name, planID string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace(ns)
		u.SetName(name)
		u.SetLabels(map[string]string{render.LabelPlan: planID})
		return u
	}
	sel := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "sel"},
		Status: plan.Status{Coverage: []plan.Coverage{{Namespace: "pay"}, {Namespace: "ledger"}}}}
	list := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "list"}}
	vap := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "vap"},
		Status: plan.Status{Coverage: []plan.Coverage{{Namespace: "web"}}}}
	live := []*unstructured.Unstructured{
		obj("kyverno.io/v1", "ClusterPolicy", "", "sel-delete-s0", "sel"),
		obj("kyverno.io/v1", "Policy", "shop", "list-delete", "list"),
		obj("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "", "vap-delete-s0", "vap"),
	}
	c := CheckpointOf([]*plan.ProtectionPlan{sel, list, vap}, live)
	want := []string{"default", "ledger", "pay", "shop"}
	if diff := cmp.Diff(want, c.Namespaces); diff != "" {
		t.Errorf("a ClusterPolicy's events are read in default and the covered namespaces; a VAP leaves none (-want +got):\n%s", diff)
	}
}
