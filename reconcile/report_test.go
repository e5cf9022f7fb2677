package reconcile_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// kyvernoEvent is the event Kyverno 1.19.1 writes on a policy for one
// audited request (violations/testdata/kyverno-1.19.1); status is the
// rule's result.
func kyvernoEvent(ns, policy, rule, status string, at time.Time) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: ns, Name: policy + "." + rule + "." + status},
		InvolvedObject: corev1.ObjectReference{APIVersion: "kyverno.io/v1", Kind: "Policy", Namespace: ns, Name: policy, UID: "policy-uid"},
		Related:        &corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web", UID: "web-uid"},
		Reason:         violations.ReasonPolicyViolation, Type: corev1.EventTypeWarning, Action: "Resource Passed",
		Message:             "Deployment " + ns + "/web: [" + rule + "] " + status + "; scaling is frozen",
		EventTime:           metav1.NewMicroTime(at),
		ReportingController: "kyverno-admission", ReportingInstance: "kyverno-admission-test",
		Source: corev1.EventSource{Component: "kyverno-admission"},
	}
}

func TestCurrentAndManualReport(t *testing.T) {
	w := inPlace(t)
	live := w.live("xmas")
	var policy string
	for _, u := range live {
		if u.GetNamespace() == "shop" && u.GetLabels()["telark.io/template"] == "scaling" {
			policy = u.GetName()
		}
	}
	at := start.Add(time.Minute)
	events := []corev1.Event{kyvernoEvent("shop", policy, "replicas", "fail", at), kyvernoEvent("shop", policy, "guard", "pass", at)}
	cur, err := reconcile.Current(violations.NewLedger("xmas"), live, events)
	if err != nil {
		t.Fatal(err)
	}
	if len(cur.Violations) != 1 || cur.Violations[0].Rule != "replicas" {
		t.Fatalf("current ledger = %+v, want the failed rule only (a passing rule is not a violation)", cur.Violations)
	}
	again, _ := reconcile.Current(cur, live, events)
	if len(again.Violations) != 1 {
		t.Errorf("reading the same events twice: %d violations", len(again.Violations))
	}
	rep, err := reconcile.ManualReport(reconcile.ManualInput{Plan: w.plans["xmas"], Live: live, Ledger: cur, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trigger != report.TriggerManual || len(rep.Policies) != 4 || len(rep.Violations.Items) != 1 {
		t.Errorf("report: trigger %s, %d policies, %d violations", rep.Trigger, len(rep.Policies), len(rep.Violations.Items))
	}
	w.add(freeze("later", "shop"))
	if _, err := reconcile.ManualReport(reconcile.ManualInput{Plan: w.plans["later"], Now: at}); err == nil {
		t.Error("a report of a plan that never started was made")
	}
}
