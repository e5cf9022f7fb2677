package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Kyverno policy kinds WaitPolicyReady understands.
var (
	// PolicyGVK is Kyverno's classic namespaced Policy (kyverno.io/v1,
	// deprecated in 1.19 but still served and honoured). It reports
	// readiness as a status condition of type Ready.
	PolicyGVK = schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "Policy"}
	// NamespacedValidatingPolicyGVK is Kyverno's CEL policy
	// (policies.kyverno.io/v1). It reports readiness in
	// .status.conditionStatus.ready.
	NamespacedValidatingPolicyGVK = schema.GroupVersionKind{Group: "policies.kyverno.io", Version: "v1", Kind: "NamespacedValidatingPolicy"}
)

// WaitPolicyReady waits until the Kyverno policy ns/name is ready, then
// sleeps the settle delay (WithSettleDelay, 3 s by default).
//
// It looks for a kyverno.io/v1 Policy and a policies.kyverno.io/v1
// NamespacedValidatingPolicy of that name; every one that exists must be
// ready, and at least one must exist. Why the delay: Kyverno marks a policy
// ready when it has compiled it, and updates its webhook configurations
// asynchronously afterwards; a request sent at once can pass before the API
// server calls Kyverno for that kind.
//
// ctx bounds the wait; without a deadline, one minute applies.
func (e *Env) WaitPolicyReady(ctx context.Context, ns, name string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Minute)
		defer cancel()
	}
	last := ""
	for {
		ready, why, err := e.policyReadyOnce(ctx, ns, name)
		if err != nil {
			return err
		}
		if ready {
			break
		}
		last = why
		select {
		case <-ctx.Done():
			return fmt.Errorf("policy %s/%s not ready: %s: %w", ns, name, last, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(e.opts.settleDelay):
	}
	return nil
}

func (e *Env) policyReadyOnce(ctx context.Context, ns, name string) (bool, string, error) {
	found := 0
	var notReady []string
	for _, gvk := range []schema.GroupVersionKind{PolicyGVK, NamespacedValidatingPolicyGVK} {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		err := e.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, u)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return false, "", err
			}
			notReady = append(notReady, gvk.Kind+": "+err.Error())
			continue
		}
		found++
		if ok, why := policyIsReady(u); !ok {
			notReady = append(notReady, gvk.Kind+": "+why)
		}
	}
	if found == 0 {
		return false, "no Policy or NamespacedValidatingPolicy of that name", nil
	}
	if len(notReady) > 0 {
		return false, strings.Join(notReady, "; "), nil
	}
	return true, "", nil
}

// policyIsReady reads the readiness of either policy kind.
func policyIsReady(u *unstructured.Unstructured) (bool, string) {
	switch u.GroupVersionKind().Kind {
	case NamespacedValidatingPolicyGVK.Kind:
		ready, found, _ := unstructured.NestedBool(u.Object, "status", "conditionStatus", "ready")
		if found && ready {
			return true, ""
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditionStatus", "conditions")
		return false, "status.conditionStatus.ready is not true" + describeConditions(conds)
	default:
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Ready" && m["status"] == "True" {
				return true, ""
			}
		}
		return false, "no Ready=True condition" + describeConditions(conds)
	}
}

func describeConditions(conds []any) string {
	var parts []string
	for _, c := range conds {
		m, _ := c.(map[string]any)
		parts = append(parts, fmt.Sprintf("%v=%v (%v: %v)", m["type"], m["status"], m["reason"], m["message"]))
	}
	if len(parts) == 0 {
		return ""
	}
	return " [" + strings.Join(parts, ", ") + "]"
}

// FailResults counts the fail results of the PolicyReports in namespace
// ns (wgpolicyk8s.io/v1alpha2, what Kyverno 1.19's reports controller
// writes).
func (e *Env) FailResults(ctx context.Context, ns string) (int, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Kind: "PolicyReportList"})
	if err := e.Client.List(ctx, list, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	n := 0
	for _, r := range list.Items {
		results, _, _ := unstructured.NestedSlice(r.Object, "results")
		for _, res := range results {
			if m, _ := res.(map[string]any); m["result"] == "fail" {
				n++
			}
		}
	}
	return n, nil
}
