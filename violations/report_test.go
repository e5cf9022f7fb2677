package violations

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// syntheticReport is a SYNTHETIC PolicyReport in the shape Kyverno 1.19.1
// writes (pkg/utils/report/results.go: policy "<ns>/<name>", the resource
// in the report's scope); the recorded ones are in testdata/kyverno-1.19.1.
func syntheticReport(results ...map[string]any) *unstructured.Unstructured {
	rs := make([]any, len(results))
	for i, r := range results {
		rs[i] = r
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "wgpolicyk8s.io/v1alpha2",
		"kind":       "PolicyReport",
		"metadata":   map[string]any{"name": "6a1c", "namespace": "shop"},
		"scope": map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web", "uid": "6a1c",
		},
		"results": rs,
	}}
}

func result(policy, rule, res string, sec int64) map[string]any {
	return map[string]any{
		"policy": policy, "rule": rule, "result": res, "source": "kyverno", "scored": true,
		"message":    "would be blocked by protection plan Summer freeze: scaling",
		"timestamp":  map[string]any{"seconds": sec, "nanos": int64(0)},
		"properties": map[string]any{"process": "admission review"},
	}
}

func TestFromPolicyReports(t *testing.T) {
	sec := t0.Unix()
	rep := syntheticReport(
		result("shop/summer-freeze-scaling", "replicas", "fail", sec),
		result("shop/summer-freeze-image-change", "images", "pass", sec+1),
		result("shop/not-ours", "x", "fail", sec),
		result("cluster-policy", "x", "fail", sec),
	)
	b, err := FromPolicyReports(testIndex(), []*unstructured.Unstructured{rep, rep})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(sec, 0).UTC()
	want := []Violation{
		{
			Plan: "summer-freeze", Template: "image-change", Policy: "summer-freeze-image-change", PolicyNamespace: "shop",
			Rule: "images", Resource: Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"},
			Result: ResultPass, Message: "would be blocked by protection plan Summer freeze: scaling",
			Timestamp: at.Add(time.Second), FirstSeen: at.Add(time.Second), Count: 1, Source: SourcePolicyReport,
		},
		{
			Plan: "summer-freeze", Template: "scaling", Policy: "summer-freeze-scaling", PolicyNamespace: "shop",
			Rule: "replicas", Resource: Resource{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"},
			Result: ResultFail, Message: "would be blocked by protection plan Summer freeze: scaling",
			Timestamp: at, FirstSeen: at, Count: 1, Source: SourcePolicyReport,
		},
	}
	if diff := cmp.Diff(want, b.Violations, ignoreKey); diff != "" {
		t.Errorf("FromPolicyReports (-want +got):\n%s", diff)
	}
	if b.Read != 8 || b.Skipped != 4 || b.Unrecognized != 0 {
		t.Errorf("Read, Skipped, Unrecognized = %d, %d, %d; want 8, 4, 0", b.Read, b.Skipped, b.Unrecognized)
	}
}

func TestFromPolicyReports_Unrecognized(t *testing.T) {
	notAReport := syntheticReport()
	notAReport.SetKind("ConfigMap")
	tests := []struct {
		name string
		obj  *unstructured.Unstructured
	}{
		{"an object that is not a report", notAReport},
		{"a result without a policy", syntheticReport(result("", "r", "fail", 1))},
		{"a result of an unknown kind", syntheticReport(result("shop/summer-freeze-scaling", "r", "denied", 1))},
		{"results that are not a list", &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "wgpolicyk8s.io/v1alpha2", "kind": "PolicyReport", "results": "nope"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := FromPolicyReports(testIndex(), []*unstructured.Unstructured{tt.obj})
			var ue *UnrecognizedError
			if !errors.As(err, &ue) || ue.Source != SourcePolicyReport || b.Unrecognized != 1 {
				t.Fatalf("err = %v, Unrecognized = %d; want one *UnrecognizedError", err, b.Unrecognized)
			}
		})
	}
}
