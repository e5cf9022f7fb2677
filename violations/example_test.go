package violations_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/violations"
)

// The two events Kyverno writes for one audited `kubectl scale`: on the
// policy (with the Scale as related object) and on the Scale.
func auditedScale(at time.Time) []corev1.Event {
	scale := corev1.ObjectReference{APIVersion: "autoscaling/v1", Kind: "Scale", Namespace: "shop", Name: "web"}
	return []corev1.Event{
		{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "summer-freeze-scaling.1"},
			InvolvedObject: corev1.ObjectReference{APIVersion: "kyverno.io/v1", Kind: "Policy",
				Namespace: "shop", Name: "summer-freeze-scaling"},
			Related: &scale,
			Reason:  "PolicyViolation", Action: "Resource Passed",
			Message:   "Scale shop/web: [replicas] fail; would be blocked by protection plan Summer freeze: scaling",
			EventTime: metav1.NewMicroTime(at),
		},
		{
			ObjectMeta:     metav1.ObjectMeta{Namespace: "shop", Name: "web.2"},
			InvolvedObject: scale,
			Reason:         "PolicyViolation", Action: "Resource Passed",
			Message:   "policy summer-freeze-scaling/replicas fail: would be blocked by protection plan Summer freeze: scaling",
			EventTime: metav1.NewMicroTime(at.Add(40 * time.Microsecond)),
		},
	}
}

// livePolicy is a policy as listed from the cluster, with the labels
// render puts on it.
func livePolicy() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("kyverno.io/v1")
	u.SetKind("Policy")
	u.SetNamespace("shop")
	u.SetName("summer-freeze-scaling")
	u.SetLabels(map[string]string{"telark.io/protection-plan": "summer-freeze", "telark.io/template": "scaling"})
	return u
}

func ExampleFromEvents() {
	idx := violations.IndexPolicies([]*unstructured.Unstructured{livePolicy()})
	at := time.Date(2026, 7, 9, 15, 0, 0, 0, time.UTC)
	b, err := violations.FromEvents(idx, auditedScale(at))
	if err != nil {
		panic(err)
	}
	v := b.Violations[0]
	fmt.Println(len(b.Violations), "violation from", b.Read, "events")
	fmt.Println(v.Plan, v.Template, v.Policy, v.Rule, v.Result, "blocked:", v.Blocked)
	fmt.Println(v.Resource.Kind, v.Resource.Namespace+"/"+v.Resource.Name, "subresource:", v.Resource.Subresource)
	fmt.Println(v.Message)
	// Output:
	// 1 violation from 2 events
	// summer-freeze scaling summer-freeze-scaling replicas fail blocked: false
	// Scale shop/web subresource: scale
	// would be blocked by protection plan Summer freeze: scaling
}

func ExampleLedger_Merge() {
	idx := violations.IndexPolicies([]*unstructured.Unstructured{livePolicy()})
	at := time.Date(2026, 7, 9, 15, 0, 0, 0, time.UTC)
	first, _ := violations.FromEvents(idx, auditedScale(at))
	// The next checkpoint reads the same events again, and a new decision.
	second, _ := violations.FromEvents(idx, append(auditedScale(at), auditedScale(at.Add(time.Minute))...))

	ledger := violations.NewLedger("summer-freeze")
	ledger = ledger.Merge(first.Violations)
	ledger = ledger.Merge(second.Violations)
	fmt.Println(len(ledger.Violations), "violations, truncated:", ledger.Truncated)
	for _, v := range ledger.Violations {
		fmt.Println(v.FirstSeen.Format(time.TimeOnly), v.Resource.Name, v.Count)
	}
	// Output:
	// 2 violations, truncated: false
	// 15:01:00 web 1
	// 15:00:00 web 1
}

func ExampleFeed() {
	idx := violations.IndexPolicies([]*unstructured.Unstructured{livePolicy()})
	at := time.Date(2026, 7, 9, 15, 0, 0, 0, time.UTC)
	var events []corev1.Event
	for i := range 5 {
		events = append(events, auditedScale(at.Add(time.Duration(i)*time.Minute))...)
	}
	b, _ := violations.FromEvents(idx, events)

	q := violations.Query{Plan: "summer-freeze", Namespaces: []string{"shop"}, Limit: 2}
	for page := 1; ; page++ {
		p, err := violations.Feed(b.Violations, q)
		if err != nil {
			panic(err)
		}
		for _, v := range p.Items {
			fmt.Println("page", page, v.FirstSeen.Format(time.TimeOnly))
		}
		if p.NextCursor == "" {
			break
		}
		q.Cursor = p.NextCursor
	}
	// Output:
	// page 1 15:04:00
	// page 1 15:03:00
	// page 2 15:02:00
	// page 2 15:01:00
	// page 3 15:00:00
}
