// Package operator is the protection plans operator: a controller-runtime
// runnable that moves every ProtectionPlan through its lifecycle against a
// real cluster, with the library doing every decision (package plan for
// the lifecycle, render for the policies, health for drift and repairs,
// violations for the ledger, report for final reports) and this package
// doing the I/O.
//
//	mgr, _ := operator.NewManager(restConfig, operator.ManagerOptions{LeaderElection: true, ...})
//	op, _ := operator.New(operator.Config{ReportsDir: dir, Timing: timing}, mgr)
//	err := op.Run(ctx) // installs the CRD if asked, then runs until ctx ends
//
// # One pass
//
// Only the leader reconciles, in one goroutine (ticker.go): on the tick
// (PROTECTION_PLAN_TICK_INTERVAL_SEC), at the earliest next window edge of
// any plan, and soon after a plan changed. A pass (reconcile.go) gathers,
// lets package reconcile decide, and carries out:
//
//  1. gather once: the plans from the manager's cache, and through
//     examples/internal/kube every plan's policies (one list per policy
//     kind of the target, by the telark.io/protection-plan label; the
//     policies of the last full list are kept, and while the metadata list
//     shows none written since, reconcile.HeldListValid, only metadata is
//     listed: kube.Reader.HoldPolicies), the
//     namespaces, the release and excluded namespaces and the categories
//     (the API server's settings, --release-namespace and
//     --excluded-namespaces*), and the members of applications when a plan
//     needs them;
//  2. reconcile.Sweep: the policies and reports of deleted plans go;
//  3. every PROTECTION_PLAN_REPORT_CHECKPOINT_SEC, a violations
//     checkpoint into each plan's ledger (violations.Checkpoint);
//  4. for each plan, reconcile.Decide: for a plan applied with kubectl,
//     the spec completed and stored first, then validated as the server
//     validates (an invalid plan fails with reason InvalidPlan naming the
//     field and renders nothing); the lifecycle; the actions on its
//     policies, carried out (apply.go: server-side apply under
//     FieldManager forcing ownership, failure-action merge patches,
//     deletes with preconditions) and decided again over what the writes
//     returned; the status, written only when it changed (in the steady
//     state a pass writes nothing); events with their severity; a health
//     sample; the plan's record for the next pass;
//  5. a final report that is due (recorded in the plan's status by the
//     lifecycle step that ended the run) once the plan's edge restores
//     are done (reconcile.Final.Waiting; edge.go runs them before): the
//     last checkpoint with the run's policies, the report in every format
//     under the ID derived from the run's end, with the run's edge
//     journals, then the status that says it is written.
//
// # Targets
//
// Config.Target (the command's --target) picks the kind of policy every
// plan renders to, for the whole operator (Targets): kyverno (kyverno.io/v1
// Policy, the default), kyverno-cel (policies.kyverno.io/v1
// NamespacedValidatingPolicy) or vap (a ValidatingAdmissionPolicy and its
// ValidatingAdmissionPolicyBinding, both cluster-scoped, named
// <policy>.<namespace>). A pass lists the kinds render.KindsOf names,
// cluster-wide, by the plan label; health, repairs and sweeps go through
// package render's per-target functions (for vap the failure action is the
// binding's validationActions). When the target's kinds are not served
// (Kyverno or its CEL policy CRD not installed, the
// admissionregistration.k8s.io/v1 policy API absent) an active plan fails
// with reason PolicyAPIMissing and is retried on every tick.
//
// Config.Compact (--compact) renders the compact
// layout: one policy per namespace for all of a plan's templates (see
// package render, "Layouts"). The binary turns it on by default (a write
// in scope then costs 1.04-1.16x one hand-written policy, per template up
// to 2.39x); Config's zero value keeps the per-template layout. Switching it on or off is an ordinary
// render change: the next pass applies the new policies and deletes the
// old ones, which carry the plan's label but are no longer rendered.
//
// Violations come from Kyverno's PolicyViolation events and PolicyReports
// for kyverno and kyverno-cel. A vap policy is enforced by the API server,
// which records no event and no report: an audited request is recorded in
// the API server's audit log (the
// validation.policy.admission.k8s.io/validation_failure annotation) and
// returned to the client as a warning ("Validation failed for
// ValidatingAdmissionPolicy '<name>' with binding '<name>': <message>"),
// an enforced refusal only to the client. A vap plan's ledger, feed and
// final reports therefore hold no violations unless the embedder collects
// the audit log. Policies of plans
// that no longer exist are swept (health.Sweep), and so are their report
// directories (no finalizer: deleting a plan is never blocked).
//
// # Files
//
// The reports directory holds one directory per plan ID: ledger.json (the
// violations.Ledger), health.json (the health samples of the runs),
// observed.json (the plan's reconcile.Record: the run's policies and
// applications, for the final report once they are withdrawn), edge.json
// (reconcile.EdgeHistory: the run's finished edge journals, written before
// a journal's Secret is deleted) and the final reports
// <plan>-<trigger>-<run end>.{html,md,json,csv}. Every file
// is written to a temporary file in the same directory, fsynced, renamed,
// and the directory fsynced (examples/internal/store, shared with the
// server). The plan's JSON files keep their previous generation
// (<file>.bak): one found truncated or corrupt is replaced by it, with an
// error in the log and a FileRecovered event on the plan.
//
// # Faults
//
// Every write can fail, and the process can die between any two. A write
// that fails (429, 500, conflict, timeout) is decided again by the next
// pass from what the cluster then holds. The pass that ends a run is the
// one that must not lose anything: the final report is due in the plan's
// status until a status says it is written, so a pass cut short anywhere
// is taken again by the next (on whichever replica leads), which skips a
// report already whole on disk, rewrites one written in part under the
// same ID, and checkpoints the violations with the run's policies as the
// record kept them, so that events of policies an earlier, unfinished
// pass withdrew still reach the ledger. Config.CrashAt (crash.go,
// CrashEnvVar in the command) kills the process at a named point of that
// pass, for the crash tests of examples/e2e/faults.
package operator
