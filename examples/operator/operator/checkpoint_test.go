package operator

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

// kyvernoAuditEvents are the two events Kyverno 1.19.1 writes for one
// audited request (see violations/testdata/kyverno-1.19.1): one on the
// policy, one on the resource.
func kyvernoAuditEvents(ns, policy, rule, msg string, at time.Time) []client.Object {
	mt := metav1.NewMicroTime(at)
	return []client.Object{
		&corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: policy + ".1"},
			InvolvedObject: corev1.ObjectReference{
				APIVersion: "kyverno.io/v1", Kind: "Policy", Namespace: ns, Name: policy, UID: "policy-uid",
			},
			Related: &corev1.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web", UID: "web-uid"},
			Reason:  violations.ReasonPolicyViolation, Type: corev1.EventTypeWarning, Action: "Resource Passed",
			Message:             "Deployment " + ns + "/web: [" + rule + "] fail; " + msg,
			EventTime:           mt,
			ReportingController: "kyverno-admission", ReportingInstance: "kyverno-admission-test",
			Source: corev1.EventSource{Component: "kyverno-admission"},
		},
		&corev1.Event{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web.2"},
			InvolvedObject: corev1.ObjectReference{
				APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: "web", UID: "web-uid",
			},
			Reason: violations.ReasonPolicyViolation, Type: corev1.EventTypeWarning, Action: "Resource Passed",
			Message:             "policy " + policy + "/" + rule + " fail: " + msg,
			EventTime:           mt,
			ReportingController: "kyverno-admission", ReportingInstance: "kyverno-admission-test",
			Source: corev1.EventSource{Component: "kyverno-admission"},
		},
	}
}

func TestCheckpoint_MergesViolationsIntoTheLedgerOnce(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeAudit, []string{"shop"}, "scaling")})
	f.pass() // deploys; the first checkpoint finds nothing
	msg := "would be blocked by protection plan Plan freeze: scaling"
	for _, ev := range kyvernoAuditEvents("shop", "freeze-scaling", "replicas", msg, t0.Add(time.Second)) {
		if err := f.c.Create(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}

	f.tick(2 * time.Second) // checkpoint not due yet (10 s)
	if l, _ := f.r.store.LoadLedger("freeze"); len(l.Violations) != 0 {
		t.Fatalf("checkpointed before it was due: %+v", l.Violations)
	}
	f.tick(10 * time.Second)
	l, err := f.r.store.LoadLedger("freeze")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Violations) != 1 {
		t.Fatalf("ledger holds %d violations, want 1 (the two events of one decision): %+v", len(l.Violations), l.Violations)
	}
	v := l.Violations[0]
	if v.Plan != "freeze" || v.Template != "scaling" || v.Rule != "replicas" || v.Blocked || v.Message != msg {
		t.Errorf("violation = %+v", v)
	}
	page, err := violations.Feed(l.Violations, violations.Query{Plan: "freeze"})
	if err != nil || len(page.Items) != 1 {
		t.Errorf("feed = %+v, %v", page, err)
	}

	// Read again: the ledger is not rewritten.
	path := filepath.Join(f.dir, "freeze", store.LedgerFile)
	st1, _ := os.Stat(path)
	time.Sleep(10 * time.Millisecond)
	f.tick(10 * time.Second)
	st2, _ := os.Stat(path)
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("the ledger was rewritten though nothing new was read")
	}
}
