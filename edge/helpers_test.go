package edge

import (
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/window"
)

var (
	t0      = time.Date(2026, 12, 24, 21, 0, 0, 0, time.UTC) // a window's start
	t1      = t0.Add(10 * time.Hour)                         // its end
	planRef = ObjectRef{APIVersion: "protectionplans.telark.io/v1alpha1", Kind: "ProtectionPlan", Namespace: "platform", Name: "xmas", UID: "plan-uid"}
	scope   = Scope{Namespaces: []string{"shop"}}
	active  = &window.Interval{Start: t0, End: t1}
)

// obj builds an object from JSON, as a List of the API server returns it.
func obj(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(s), &u.Object); err != nil {
		t.Fatalf("fixture %s: %v", s, err)
	}
	return u
}

func cronJob(t *testing.T, ns, name, uid, rv string, suspend *bool) *unstructured.Unstructured {
	u := obj(t, `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"`+name+`","namespace":"`+ns+`","uid":"`+uid+`","resourceVersion":"`+rv+`","labels":{"app":"web"}},"spec":{"schedule":"*/5 * * * *","jobTemplate":{}}}`)
	if suspend != nil {
		_ = unstructured.SetNestedField(u.Object, *suspend, "spec", "suspend")
	}
	return u
}

func deployment(t *testing.T, ns, name, uid string, replicas int64) *unstructured.Unstructured {
	u := obj(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"`+name+`","namespace":"`+ns+`","uid":"`+uid+`","resourceVersion":"7"},"spec":{"selector":{}}}`)
	_ = unstructured.SetNestedField(u.Object, replicas, "spec", "replicas")
	return u
}

func ptr[T any](v T) *T { return &v }

func decide(t *testing.T, in Input) Decision {
	t.Helper()
	if in.Plan == (ObjectRef{}) {
		in.Plan = planRef
	}
	if in.Scope.Namespaces == nil {
		in.Scope = scope
	}
	if in.Now.IsZero() {
		in.Now = t0.Add(time.Minute)
	}
	d, err := Decide(in)
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	return d
}

func body(t *testing.T, p Patch) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(p.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func uidOf(s string) types.UID { return types.UID(s) }
