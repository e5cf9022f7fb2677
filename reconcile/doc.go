// Package reconcile decides what a controller does with a protection plan
// in one pass, and what a server does when a plan is created or edited.
// It is the part of an operator that is not I/O: the embedder gathers the
// inputs (the plan, its live policies, the cluster's namespaces and
// applications, what the last pass recorded, the time), calls Decide, and
// carries out what it returns. It reads no clock, does no I/O and starts
// no goroutine, so a platform team's own controller decides exactly what
// the example operator decides, and its unit tests cover every branch.
//
// One pass over one plan:
//
//	out := reconcile.Decide(in)
//	if out.Spec != nil { // a plan applied with kubectl, completed
//		store out.Spec; decide again from what was stored
//	}
//	if len(out.Actions) > 0 {
//		in.Carried = reconcile.CarryOut(out.Actions, do) // do writes one action
//		out = reconcile.Decide(in)
//	}
//	write out.Plan's status when out.StatusChanged; record out.Events,
//	out.Sample and out.Record
//	edge pass (DecideEdge); keep its Decision.Finished (EdgeHistory.Keep)
//	before deleting the journal's Secret
//	if out.Final != nil (once the status holding it is stored) &&
//		out.Final.Waiting(edge) == "" {
//		checkpoint with out.Final.Index; rep, write, err := out.Final.Report(...)
//		write rep; store reconcile.MarkWritten(plan, rep.ID, now)'s status
//	}
//
// A second call with Carried set never asks for more writes: a repair is
// followed by a re-check of what the writes returned, and the next pass
// sees the rest.
//
// # The API server's warnings
//
// The API server may answer a write with warnings (Kyverno 1.19 answers
// every write of a kyverno.io/v1 Policy with its deprecation). The
// embedder collects those of a plan's writes into Carried.Warnings;
// Decide shows each once per plan, as an EventAPIWarning event, a line
// of Output.Warnings to log and of the plan's plan.ConditionAPIWarnings,
// which holds what was shown (so a warning every apply repeats is not
// shown again, across passes and restarts) and turns False after writes
// that drew none.
//
// Sweep decides, once per pass, what is left of plans that no longer
// exist: their policies and their reports directories. Admit and Edit are
// the create and edit pipelines of a server (derive the approval mode,
// default, authorize, validate against the cluster, run the lifecycle);
// Decide runs the same validation on a plan that reached the cluster
// without a server.
//
// Offline decides the same things for a tool without a cluster (a CI
// linter, the example protectctl): whether a server would create a plan
// file (Lint), the plan an operator would hold at an instant (Preview),
// and the report of its run from a ledger (Report), against what a
// snapshot of the cluster says.
//
// # Final reports, exactly once
//
// The lifecycle records a final report as due in the plan's status when a
// started run ends (plan.FinalReportStatus); its ID is derived from the
// run's end, so that every writer names it the same way. Decide returns
// Final while it is due; the embedder writes the report only after the
// status that holds it is stored, and then stores MarkWritten's status.
// A pass cut short anywhere in between is taken again by the next one
// (on whichever replica leads), which finds the report under the same ID
// and does not write it twice when it is whole.
//
// A final report lists every edge action and restore with its outcome, so
// it waits for them: Final.Waiting says why while the plan's edge journal
// has restores pending or failed (until they are done, resolved or
// abandoned) or cannot be read, and Final.Report refuses until then. The
// journal's Secret is deleted when its restores are done, which may be
// before the report is written, and a recurring plan's windows end long
// before its run; so the embedder keeps every finished journal of the run
// (EdgeHistory, on its own storage, written before the Secret is deleted)
// and passes them, with the Secret's, in FinalEdge.
//
// # Calendars
//
// A window's calendar exceptions (except: calendar) name ConfigMap keys;
// the embedder reads them (the example operator: in its release namespace)
// into Input.Calendars, and Decide expands each over the look-around of
// Now and passes the occurrences to plan.Tick. A calendar that is missing
// or cannot be read never lifts a freeze (ConditionCalendars says why and
// what it does instead); a Warning event marks the pass it became so.
//
// # Plans applied with kubectl
//
// A plan without a status has never been through a server. Decide derives
// its approval mode (approval.DeriveMode, as its creator: a Production
// plan applied with automatic becomes required), applies plan.Defaults
// and, when that changed the spec, asks for the spec to be stored first.
// It then validates the plan with plan.ValidateExisting against the
// cluster facts of the input: of R-P8's rules, everything about the plan
// applies (names, text, scope, namespaces that exist, the release and
// excluded namespaces, templates and parameters, the window, modes,
// categories), with these differences:
//
//   - a window that has already ended is not an error: the plan is created
//     terminated;
//   - a lookup that fails (the excluded list, the categories, the
//     applications) is not a verdict: the plan is left as it is and the
//     next pass tries again (Output.Retry);
//   - of two plans whose display names clash, the one created later (by
//     creation time, then ID) fails;
//   - an invalid plan is created and fails at once with reason
//     InvalidPlan and a message naming every field; it renders nothing,
//     and stays failed (a failed plan is otherwise retried into its
//     window) until its spec is fixed.
//
// The same holds for an edit made with kubectl: the plan's status records
// the spec generation last validated (Status.ValidatedGeneration; a
// server's Admit, Edit and the statuses it writes set it), and a plan
// whose generation is not validated is validated again before anything is
// rendered for it. An edit that makes it invalid fails it and puts nothing
// new in place (what is in place stays); a lookup that fails holds the
// plan for the next pass (a ValidationDeferred warning). A namespace or
// application that no longer exists is not a validation problem there:
// the pass fails the plan with NamespaceGone or ApplicationNotFound, and
// retries.
//
// The clock-keeper's liveness (issue 20): with Settings.ReconciledEvery a
// pass stamps status.lastReconciled when it writes the status anyway, and
// a steady pass only once the stamp is that old, so the steady state
// still writes nothing between stamps. OverdueAfter, PassOverdue,
// NextEdges and EdgeMissed are what an embedder exposes for the alerts on
// a pass overdue and an edge passed without the phase following.
package reconcile
