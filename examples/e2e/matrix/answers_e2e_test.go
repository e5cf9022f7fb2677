//go:build e2e

package matrix

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// Reading Kyverno's answers: its refusals, its PolicyViolation events.

// refusingPolicies reads the policies out of Kyverno's refusal:
//
//	admission webhook "validate.kyverno.svc-fail" denied the request:
//
//	resource Deployment/ns/name was blocked due to the following policies
//
//	mx-ns-enforce-scaling:
//	  replicas: '...'
func refusingPolicies(text string) ([]string, bool) {
	if !strings.Contains(text, "denied the request") {
		return nil, false
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if m := policyLine.FindStringSubmatch(strings.TrimRight(line, " ")); m != nil {
			out = append(out, m[1])
		}
	}
	return out, len(out) > 0
}

var policyLine = regexp.MustCompile(`^([a-z0-9][-a-z0-9.]*):$`)

// templateOf names a policy of p by its template.
func templateOf(p *plan.ProtectionPlan, policy string) string {
	if p != nil {
		for _, ref := range p.Spec.Templates {
			if render.PolicyName(p.Name, ref.Name) == policy {
				return ref.Name
			}
		}
	}
	return "policy " + policy
}

func sortByCatalog(names []string) {
	order := catalogNames()
	slices.SortFunc(names, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func findCondition(p *plan.ProtectionPlan, typ string) *metav1.Condition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// policyIndex indexes every live managed policy, as the operator does.
func policyIndex(t *testing.T) violations.PolicyIndex {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(harness.PolicyGVK.GroupVersion().WithKind("PolicyList"))
	if err := s.c.List(t.Context(), list, client.HasLabels{render.LabelPlan}); err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for i := range list.Items {
		objs = append(objs, &list.Items[i])
	}
	return violations.IndexPolicies(objs)
}

// auditedByEvents waits until the PolicyViolation events of the audit
// namespaces stop changing, reads them with package violations and returns
// the templates that audited each resource, by "<namespace>/<name>".
func auditedByEvents(t *testing.T, namespaces []string, idx violations.PolicyIndex) map[string][]string {
	t.Helper()
	vs := settledViolations(t, namespaces, idx)
	out := map[string][]string{}
	for _, v := range vs {
		if v.Blocked || v.Result != violations.ResultFail {
			continue
		}
		k := v.Resource.Namespace + "/" + v.Resource.Name
		if !slices.Contains(out[k], v.Template) {
			out[k] = append(out[k], v.Template)
		}
	}
	for k := range out {
		sortByCatalog(out[k])
	}
	return out
}

// settledViolations reads the violations of the events of namespaces once
// the events stopped changing for 5 s (at most 60 s).
func settledViolations(t *testing.T, namespaces []string, idx violations.PolicyIndex) []violations.Violation {
	t.Helper()
	var last string
	stable := time.Now()
	deadline := time.Now().Add(60 * time.Second)
	var vs []violations.Violation
	for {
		evs := policyViolationEvents(t, namespaces)
		b, err := violations.FromEvents(idx, evs)
		if err != nil {
			t.Errorf("reading Kyverno's events: %v", err)
		}
		vs = b.Violations
		sig := fmt.Sprint(len(evs), len(vs))
		if sig != last {
			last, stable = sig, time.Now()
		} else if time.Since(stable) >= 5*time.Second {
			return vs
		}
		if time.Now().After(deadline) {
			t.Logf("events still changing after 60 s")
			return vs
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// eventually polls f every 250 ms until it returns true; on timeout the
// test fails with f's last word.
func eventually(t *testing.T, timeout time.Duration, what string, f func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why, ok := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %s", timeout, what, why)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("canceled while waiting for %s", what)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
