package gitops

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// Times around the sample plan's window (Dec 24 18:00 to Dec 27 06:00,
// Berlin).
var (
	berlin, _   = time.LoadLocation("Europe/Berlin")
	beforeStart = time.Date(2026, 12, 1, 10, 0, 0, 0, berlin)
	inside      = time.Date(2026, 12, 24, 20, 0, 0, 0, berlin)
	afterEnd    = time.Date(2026, 12, 28, 9, 0, 0, 0, berlin)
)

func sample() *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		TypeMeta:   metav1.TypeMeta{APIVersion: "telark.io/v1alpha1", Kind: "ProtectionPlan"},
		ObjectMeta: metav1.ObjectMeta{Name: "holiday", Generation: 1},
		Spec: plan.Spec{
			Name:      "Holiday freeze",
			Scope:     plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "all-writes"}},
			Window: window.Spec{Type: window.TimeRange,
				StartAt: &metav1.Time{Time: time.Date(2026, 12, 24, 18, 0, 0, 0, berlin)},
				EndAt:   &metav1.Time{Time: time.Date(2026, 12, 27, 6, 0, 0, 0, berlin)}},
			Mode:         plan.ModeEnforce,
			ApprovalMode: plan.ApprovalAutomatic,
		},
	}
}

func must(t *testing.T, r plan.Result, err error) *plan.ProtectionPlan {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return r.Plan
}

func created(t *testing.T, p *plan.ProtectionPlan, now time.Time) *plan.ProtectionPlan {
	r, err := plan.Create(p, "alice", now)
	return must(t, r, err)
}

func failed(t *testing.T) *plan.ProtectionPlan {
	r, err := plan.Fail(created(t, sample(), inside), plan.ReasonPoliciesRefused, "the cluster refused policy x", inside.Add(time.Minute))
	return must(t, r, err)
}

// phaseCase is a plan in one situation and what each engine reads.
type phaseCase struct {
	plan    func(t *testing.T) *plan.ProtectionPlan
	kstatus plan.KStatus // what kstatus computes (and plan.KStatusOf)
	argo    string       // the health config/argocd/health.lua returns
}

// phases are the plans of every phase (and the situations within a phase
// that read differently), keyed by sentences.
var phases = map[string]phaseCase{
	"a scheduled plan is Current, and Healthy": {
		plan:    func(t *testing.T) *plan.ProtectionPlan { return created(t, sample(), beforeStart) },
		kstatus: plan.KStatusCurrent, argo: "Healthy"},
	"an active plan is Current, and Healthy": {
		plan:    func(t *testing.T) *plan.ProtectionPlan { return created(t, sample(), inside) },
		kstatus: plan.KStatusCurrent, argo: "Healthy"},
	"a terminated plan is Current, and Healthy": {
		plan: func(t *testing.T) *plan.ProtectionPlan {
			return plan.Tick(created(t, sample(), inside), afterEnd).Plan
		},
		kstatus: plan.KStatusCurrent, argo: "Healthy"},
	"a plan waiting for an approver is InProgress, and Suspended": {
		plan: func(t *testing.T) *plan.ProtectionPlan {
			p := sample()
			p.Spec.ApprovalMode = plan.ApprovalRequired
			return created(t, p, beforeStart)
		},
		kstatus: plan.KStatusInProgress, argo: "Suspended"},
	"a canceled plan is Failed, and Suspended": {
		plan: func(t *testing.T) *plan.ProtectionPlan {
			r, err := plan.Cancel(created(t, sample(), inside), "bob", inside.Add(time.Hour))
			return must(t, r, err)
		},
		kstatus: plan.KStatusFailed, argo: "Suspended"},
	"a failed plan is Failed, and Degraded": {
		plan:    failed,
		kstatus: plan.KStatusFailed, argo: "Degraded"},
	"a failed plan being retried is InProgress, and Progressing": {
		plan: func(t *testing.T) *plan.ProtectionPlan {
			return plan.Tick(failed(t), inside.Add(2*time.Minute)).Plan
		},
		kstatus: plan.KStatusInProgress, argo: "Progressing"},
	"an active plan whose spec changed since its status was written is InProgress, and Progressing": {
		plan: func(t *testing.T) *plan.ProtectionPlan {
			p := created(t, sample(), inside)
			p.Generation = 2
			return p
		},
		kstatus: plan.KStatusInProgress, argo: "Progressing"},
	"an active plan whose live policies differ from it is Current, and Degraded for Argo CD": {
		plan: func(t *testing.T) *plan.ProtectionPlan {
			p := created(t, sample(), inside)
			plan.SetCondition(p, metav1.Condition{Type: plan.ConditionPoliciesHealthy, Status: metav1.ConditionFalse,
				Reason: "Drifted", Message: "policy x is missing"}, inside)
			return p
		},
		kstatus: plan.KStatusCurrent, argo: "Degraded"},
	"a plan the operator has not seen yet is Current (kstatus has nothing to read), and Progressing": {
		plan:    func(t *testing.T) *plan.ProtectionPlan { return sample() },
		kstatus: plan.KStatusCurrent, argo: "Progressing"},
}

// toUnstructured reads p as an engine does: its JSON, as unstructured.
func toUnstructured(t *testing.T, p *plan.ProtectionPlan) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}
