package reconcile

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// Current is a plan's ledger as of now: the stored ledger with the
// PolicyViolation events read now merged in as a checkpoint would merge
// them (violations.Checkpoint), in memory. live are the plan's policies,
// which attribute the events to it; read the events of Namespaces(live).
// Events that cannot be read are returned as the error, the rest merged.
func Current(l violations.Ledger, live []*unstructured.Unstructured, events []corev1.Event) (violations.Ledger, error) {
	batch, err := violations.FromEvents(violations.IndexPolicies(live), events)
	return violations.Checkpoint(l, batch.Violations, nil), err
}

// ManualInput is what an on-demand report of a plan is made from.
type ManualInput struct {
	// Plan is the plan as stored.
	Plan *plan.ProtectionPlan
	// Applications are its applications as they resolve now (those that
	// do not are left out: the report says which).
	Applications []plan.Application
	// Live are its policies; Ledger its ledger as of now (Current).
	Live   []*unstructured.Unstructured
	Ledger violations.Ledger
	// Samples are its health samples.
	Samples []report.HealthSample
	// Edge are its edge journals: the one its Secret holds (a report
	// made during a window shows the restores still pending) and the
	// finished ones kept; zero for none.
	Edge FinalEdge
	// Now is when the report is made.
	Now time.Time
}

// ManualReport builds an on-demand report (R-T3): refused with a
// *report.NotStartedError (409) before the plan's run has started.
func ManualReport(in ManualInput) (report.Report, error) {
	if err := report.CheckManual(in.Plan); err != nil {
		return report.Report{}, err
	}
	return report.Build(report.Input{
		Plan: in.Plan, Applications: in.Applications, Policies: LivePolicyInfos(in.Live), Health: in.Samples,
		Violations: in.Ledger.Violations, ViolationsTruncated: in.Ledger.Truncated, ViolationsDropped: in.Ledger.Dropped,
		EdgeJournals: in.Edge.journals(), EdgeDropped: in.Edge.History.Dropped,
		Trigger: report.TriggerManual, Now: in.Now,
	})
}
