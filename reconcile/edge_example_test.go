package reconcile_test

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/window"
)

// After Decide, a pass decides the plan's edge actions: at the first pass
// in its window, add the finalizer, persist the journal, then patch.
func ExampleDecideEdge() {
	at := time.Date(2026, 12, 24, 21, 0, 0, 0, time.UTC)
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "xmas", Namespace: "platform", UID: "p1"},
		Spec: plan.Spec{
			Scope:       plan.Scope{Namespaces: []string{"shop"}},
			Window:      window.Spec{Type: window.TimeRange, StartAt: &metav1.Time{Time: at}, EndAt: &metav1.Time{Time: at.Add(10 * time.Hour)}},
			EdgeActions: []edge.Action{{Name: edge.SuspendCronJobs}},
		},
		Status: plan.Status{Phase: plan.PhaseActive},
	}
	cron := &unstructured.Unstructured{}
	_ = json.Unmarshal([]byte(`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"report","namespace":"shop","uid":"u1"},"spec":{}}`), &cron.Object)
	out := reconcile.DecideEdge(reconcile.EdgeInput{Executor: "protectionplans:edge-executor", Plan: p, Live: []*unstructured.Unstructured{cron}, Now: at.Add(time.Minute)})
	fmt.Println("add finalizer:", out.AddFinalizer)
	fmt.Println("journal:", out.Decision.Journal.Phase, "patches:", len(out.Decision.Patches))
	fmt.Println(out.Condition.Type, out.Condition.Reason, out.Events[0].Reason)
	// Output:
	// add finalizer: true
	// journal: Starting patches: 1
	// EdgeActions Starting EdgeActionsStarting
}
