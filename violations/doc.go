// Package violations turns what Kyverno records about admission decisions
// (PolicyViolation events and PolicyReport results) into Violation records
// of protection plans; serves them as a feed, newest first and paged
// (R-V2); and keeps each plan's ledger, which outlives Kubernetes' events
// (R-V3).
//
//	idx := violations.IndexPolicies(livePolicies)         // policy -> plan, template
//	b, err := violations.FromEvents(idx, eventList.Items) // err: unreadable events, b holds the rest
//	ledger = ledger.Merge(b.Violations)                   // every checkpoint
//
// Everything here is pure: values in, values out, no clock, no I/O. The
// caller lists events (field selector reason=PolicyViolation) and
// policies; this package reads them.
//
// # What it owns
//
//   - PolicyIndex: events name a policy but do not carry its labels, so a
//     violation is attributed to its plan and template through an index of
//     the plan's policies (IndexPolicies reads the telark.io labels that
//     package render puts on every policy).
//   - FromEvents, FromEventsV1 (core/v1 and events.k8s.io/v1 Events) and
//     FromPolicyReports: the readers. Each decision is counted once: an
//     audited request leaves an event on the resource and one on the
//     policy, which are paired into one violation; a refused request leaves
//     only the one on the policy, whose message says "(blocked)". See
//     FromEvents for how the pair is found and keyed.
//   - Feed: filter to a plan, its namespaces and results; newest first; 50
//     a page by default, 200 at most; an opaque cursor.
//   - Ledger: the per-plan record, merged at every checkpoint, capped at
//     5,000 violations (newest kept), serialised as versioned JSON.
//
// # Why the ledger exists
//
// The API server deletes events an hour after they were last written (the
// kube-apiserver --event-ttl, 1h by default), and a plan that has ended has
// no policies left to report on. The operator therefore reads the plan's
// events every checkpoint (PROTECTION_PLAN_REPORT_CHECKPOINT_SEC, 15
// minutes by default) and merges them into the plan's ledger: an event is
// read about four times in its hour, and a key that does not change between
// reads makes the merge count it once. Reports are built from the ledger.
//
// # Dry runs
//
// Kyverno 1.19.1 writes PolicyViolation events for server dry-runs too: the
// recorded fixtures (testdata/kyverno-1.19.1, the *-dryrun-* cases) hold
// one event per policy per refused dry-run, and the same pair as a real
// request for an audited one. Nothing in those events tells a dry-run
// apart: reason, action, message shape, reporting controller and instance,
// involved and related objects are as for a real request (only names,
// UIDs and times differ), and Kyverno's event code has no field for it. So
// a violation does not say whether it was a dry-run, and a refused
// `kubectl scale --dry-run=server` counts like a refused `kubectl scale`.
// PolicyReports hold no result for dry-runs (Kyverno turns reports off for
// them), but none for refused requests either, and only the latest result
// per resource and rule, so their silence does not tell a dry-run apart.
//
// # Known limits
//
//   - A policy with spec.emitWarning: true makes Kyverno emit each event
//     twice; the two copies differ only in time and are counted as two
//     decisions. Package render never sets it.
//   - The two events of one audited decision are paired only when both are
//     in the same read; if a read lists the event on the resource without
//     the one on the policy (they are written microseconds apart), the
//     decision can be counted twice in the ledger.
//
// # Errors
//
// Errors carry an HTTP-like code by type (HTTPCode, as plan.CodeOf reads
// it): *UnrecognizedError (502: the cluster wrote something this package
// cannot read), *CursorError (400), *VersionError and *DecodeError (400,
// a ledger this package cannot read).
package violations
