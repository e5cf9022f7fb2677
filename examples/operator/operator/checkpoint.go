package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/violations"
)

// PolicyReportListGVK is what the checkpoint lists PolicyReports as.
var PolicyReportListGVK = schema.GroupVersionKind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Kind: "PolicyReportList"}

// checkpointDue says whether a periodic checkpoint should run at now.
func (r *reconciler) checkpointDue(now time.Time) bool {
	return r.lastCheckpoint.IsZero() || !now.Before(r.lastCheckpoint.Add(r.cfg.Timing.ReportCheckpoint))
}

// checkpoint merges the violations of the plans planIDs into their ledgers
// (R-V3): it lists the PolicyViolation events and the PolicyReports of the
// namespaces those plans' live policies are in (one list per namespace,
// shared by the plans), reads them with the index of the live policies,
// and merges each plan's share into <reports-dir>/<plan>/ledger.json. A
// ledger is written only when the merge changed it.
//
// Only fail, warn and error results are kept (see decisions). Events are
// the record (each decision, refused or audited). A PolicyReport
// holds the latest result per resource and rule of admitted requests, which
// the events of the same decision already say; its results are merged only
// for a policy, rule and resource the ledger has no event-sourced violation
// for (reports outlive events by far), so that a decision is not counted
// twice, once per source.
//
// Per target: kyverno and kyverno-cel policies are namespaced and Kyverno
// writes the events and reports of both in the policy's namespace (a
// NamespacedValidatingPolicy's with an empty rule name). The vap target's
// objects are cluster-scoped and the API server writes no event and no
// report of their decisions (an enforced refusal goes to the client only;
// an audited one to the audit log and to the client as a warning), so
// nothing is listed for them and a vap plan's ledger stays empty.
func (r *reconciler) checkpoint(ctx context.Context, w *world, planIDs []string) error {
	if len(planIDs) == 0 || w.index.Len() == 0 {
		return nil
	}
	var namespaces []string
	for _, id := range planIDs {
		for _, u := range w.byPlan[id] {
			if ns := u.GetNamespace(); ns != "" && !slices.Contains(namespaces, ns) {
				namespaces = append(namespaces, ns)
			}
		}
	}
	slices.Sort(namespaces)
	var events []corev1.Event
	var reports []*unstructured.Unstructured
	reportsServed := true
	for _, ns := range namespaces {
		var list corev1.EventList
		if err := r.reader.List(ctx, &list, client.InNamespace(ns),
			client.MatchingFields{"reason": violations.ReasonPolicyViolation}); err != nil {
			return fmt.Errorf("listing the PolicyViolation events of %s: %w", ns, err)
		}
		events = append(events, list.Items...)
		if !reportsServed {
			continue
		}
		rl := &unstructured.UnstructuredList{}
		rl.SetGroupVersionKind(PolicyReportListGVK)
		err := r.reader.List(ctx, rl, client.InNamespace(ns))
		switch {
		case isNotServed(err):
			reportsServed = false // Kyverno's reports CRDs are not installed
		case err != nil:
			return fmt.Errorf("listing the PolicyReports of %s: %w", ns, err)
		}
		for i := range rl.Items {
			reports = append(reports, &rl.Items[i])
		}
	}
	fromEvents, evErr := violations.FromEvents(w.index, events)
	fromReports, repErr := violations.FromPolicyReports(w.index, reports)
	if err := errors.Join(evErr, repErr); err != nil {
		// Unreadable objects are logged; the rest was read.
		r.log.Info("some events or reports could not be read", "error", err)
	}
	var errs []error
	for _, id := range planIDs {
		l, err := r.store.LoadLedger(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		before := len(l.Violations) + int(l.Dropped)
		l = l.Merge(decisions(fromEvents.Violations))
		l = l.Merge(reportGaps(l, decisions(fromReports.Violations)))
		wrote, err := r.store.SaveLedger(id, l)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if wrote {
			if added := len(l.Violations) + int(l.Dropped) - before; added > 0 {
				metricViolations.Add(float64(added))
			}
		}
	}
	return errors.Join(errs...)
}

// decisions keeps the records that are violations: results fail, warn and
// error. PolicyReports hold a pass or skip result for every rule of every
// policy that saw a resource, and Kyverno's events of a policy with several
// rules can carry the rules that passed (a scope guard next to the rule
// that failed); neither is something a plan caught.
func decisions(vs []violations.Violation) []violations.Violation {
	out := make([]violations.Violation, 0, len(vs))
	for _, v := range vs {
		switch v.Result {
		case violations.ResultFail, violations.ResultWarn, violations.ResultError:
			out = append(out, v)
		}
	}
	return out
}

// reportGaps keeps the PolicyReport violations whose policy, rule and
// resource have no event-sourced violation in the ledger.
func reportGaps(l violations.Ledger, fromReports []violations.Violation) []violations.Violation {
	type k struct{ policyNS, policy, rule, kind, ns, name string }
	seen := map[k]bool{}
	for _, v := range l.Violations {
		if v.Source == violations.SourceEvent {
			seen[k{v.PolicyNamespace, v.Policy, v.Rule, v.Resource.Kind, v.Resource.Namespace, v.Resource.Name}] = true
		}
	}
	var out []violations.Violation
	for _, v := range fromReports {
		if !seen[k{v.PolicyNamespace, v.Policy, v.Rule, v.Resource.Kind, v.Resource.Namespace, v.Resource.Name}] {
			out = append(out, v)
		}
	}
	return out
}
