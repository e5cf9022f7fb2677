package violations

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// This file builds SYNTHETIC events for edge cases, in the shapes of
// Kyverno 1.19.1's pkg/event/events.go (buildPolicyEventMessage and
// NewResourceViolationEvent). The recorded, real events are in
// testdata/kyverno-1.19.1 and are read by fixtures_test.go.

// t0 is a readable instant for synthetic events.
var t0 = mustTime("2026-07-09T15:00:00.123456Z")

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// kyvernoPolicyNote formats like Kyverno's buildPolicyEventMessage,
// including the cut at 1,024 bytes that its event controller makes.
func kyvernoPolicyNote(kind, ns, name, rule string, status Result, blocked bool, msg string) string {
	var b strings.Builder
	if ns != "" {
		fmt.Fprintf(&b, "%s %s/%s", kind, ns, name)
	} else {
		fmt.Fprintf(&b, "%s %s", kind, name)
	}
	if rule != "" {
		fmt.Fprintf(&b, ": [%s] %s", rule, status)
	} else {
		fmt.Fprintf(&b, ": %s", status)
	}
	if blocked {
		b.WriteString(" (blocked)")
	}
	if msg != "" {
		fmt.Fprintf(&b, "; %s", msg)
	}
	return cut1024(b.String())
}

// kyvernoResourceNote formats like Kyverno's NewResourceViolationEvent.
func kyvernoResourceNote(policy, rule string, status Result, msg string) string {
	return cut1024(fmt.Sprintf("policy %s/%s %s: %s", policy, rule, status, msg))
}

func cut1024(s string) string {
	if len(s) > 1024 {
		return s[:1021] + "..."
	}
	return s
}

// decisionSpec describes one synthetic decision.
type decisionSpec struct {
	policyNS, policy, rule string
	kind, apiVersion, name string
	uid                    string
	msg                    string
	at                     time.Time
}

func (d decisionSpec) resourceRef() corev1.ObjectReference {
	return corev1.ObjectReference{APIVersion: d.apiVersion, Kind: d.kind, Namespace: d.policyNS, Name: d.name, UID: types.UID(d.uid)}
}

// policyEvent is the synthetic core/v1 event on the policy.
func (d decisionSpec) policyEvent(blocked bool, at time.Time) corev1.Event {
	action := "Resource Passed"
	if blocked {
		action = "Resource Blocked"
	}
	rel := d.resourceRef()
	return corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: d.policyNS, Name: fmt.Sprintf("%s.%x", d.policy, at.UnixNano())},
		InvolvedObject: corev1.ObjectReference{APIVersion: "kyverno.io/v1", Kind: "Policy",
			Namespace: d.policyNS, Name: d.policy, UID: "policy-uid"},
		Related:             &rel,
		Reason:              ReasonPolicyViolation,
		Action:              action,
		Type:                corev1.EventTypeWarning,
		Message:             kyvernoPolicyNote(d.kind, d.policyNS, d.name, d.rule, ResultFail, blocked, d.msg),
		EventTime:           metav1.NewMicroTime(at),
		ReportingController: "kyverno-admission",
	}
}

// resourceEvent is the synthetic core/v1 event on the resource.
func (d decisionSpec) resourceEvent(at time.Time) corev1.Event {
	return corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: d.policyNS, Name: fmt.Sprintf("%s.%x", d.name, at.UnixNano())},
		InvolvedObject:      d.resourceRef(),
		Reason:              ReasonPolicyViolation,
		Action:              "Resource Passed",
		Type:                corev1.EventTypeWarning,
		Message:             kyvernoResourceNote(d.policy, d.rule, ResultFail, d.msg),
		EventTime:           metav1.NewMicroTime(at),
		ReportingController: "kyverno-admission",
	}
}

// audited is the pair of events of an audited decision, the resource's
// 40 µs after the policy's, as Kyverno stamps them.
func (d decisionSpec) audited() []corev1.Event {
	return []corev1.Event{d.policyEvent(false, d.at), d.resourceEvent(d.at.Add(40 * time.Microsecond))}
}

// shopScaling is a synthetic decision: scaling web in shop.
func shopScaling(at time.Time) decisionSpec {
	return decisionSpec{
		policyNS: "shop", policy: "summer-freeze-scaling", rule: "replicas",
		kind: "Deployment", apiVersion: "apps/v1", name: "web", uid: "6a1c",
		msg: "would be blocked by protection plan Summer freeze: scaling",
		at:  at,
	}
}

// testIndex indexes the synthetic policies.
func testIndex() PolicyIndex {
	return NewPolicyIndex(
		IndexEntry{Namespace: "shop", Name: "summer-freeze-scaling", Plan: "summer-freeze", Template: "scaling"},
		IndexEntry{Namespace: "shop", Name: "summer-freeze-image-change", Plan: "summer-freeze", Template: "image-change"},
		IndexEntry{Namespace: "search", Name: "summer-freeze-scaling", Plan: "summer-freeze", Template: "scaling"},
		IndexEntry{Namespace: "shop", Name: "winter-freeze-delete", Plan: "winter-freeze", Template: "delete"},
	)
}
