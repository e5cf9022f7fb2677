// Package approval owns who may do what to protection plans, and the
// approval of plans whose approvalMode is required: the approval mode of a
// new plan, who may decide an open request, and the decisions themselves.
//
// # Permissions (R-A7)
//
// Every plan action is its own permission on the protection-plans scope
// (Actions): list, get, create, update, delete, cancel, reactivate,
// duplicate, approve (which covers reject), violations, reports, health,
// and the three category actions categories.create, categories.update and
// categories.delete. Permission strings are "protection-plans.<action>"
// (grant) and "protection-plans.<action>.deny" (withhold); a deny in any of
// the caller's roles wins over every grant, including Owner's.
//
//	role         actions
//	Viewer       list, get, violations, reports, health
//	Contributor  Viewer's, plus create, update, delete, cancel, reactivate, duplicate
//	Owner        every action
//
// Being an Owner (holding the built-in Owner role; a custom role never
// makes one) matters in three places: only Owners approve (R-A3), only an
// Owner's request for automatic approval counts (R-A1), and enforcing a
// namespace scope needs Owner (R-A7): creating, editing, duplicating or
// reactivating a plan that enforces a namespace scope. A Contributor may
// create audit plans on namespaces and enforce plans on applications.
// Check and Authorize answer one question: may this caller do this action
// to this plan?
//
// # Approval (R-A1 to R-A6)
//
// DeriveMode derives approvalMode when a plan is created or duplicated:
// Production is always required; a client may ask for required; automatic
// counts only from an Owner; otherwise Config.DefaultMode (automatic unless
// configured). The plan lifecycle (package plan) opens requests, records
// proposers and refuses material edits of an approved plan (R-A6); this
// package decides them. Deciders names who may decide an open request, for
// notifications: the Owners who do not withhold approve, minus everyone who
// put the current version up (creator, reactivators, material editors since
// the last decision). MayDecide says why a given caller may not. Decide
// (and Approve, Reject) answers the request: approval makes the plan
// scheduled, active or terminated, as its window says; rejection needs a
// comment and cancels it.
//
// Use:
//
//	md, err := approval.DeriveMode(requested, p.Spec.Environment, caller, cfg) // on create and duplicate
//	err = approval.Authorize(caller, approval.ActionCreate, p)                  // 403 with a reason
//	res, err := approval.Approve(p, requestID, approver, now)                   // 403, 409 when stale
//
// # Concurrency contract
//
// A decision is a compare-and-set on the approval request ID: Decide
// succeeds only when the ID it is given is the ID of the open request, and
// a successful decision clears the request. The library keeps no state and
// takes no locks; the embedder makes the compare-and-set atomic with its
// store's optimistic concurrency (Kubernetes resourceVersion, an etag, a
// row version):
//
//  1. read the plan and its resourceVersion;
//  2. call Decide (Approve, Reject) with the request ID the approver saw;
//  3. write the result with the resourceVersion read in step 1 (an update
//     of the status subresource carrying that resourceVersion, which covers
//     the whole object; never a blind patch or an apply that ignores it);
//  4. on a conflict from the store (Kubernetes 409 Conflict), go back to
//     step 1 with the same request ID. If another decision was stored in
//     the meantime, the request is gone and Decide now refuses with a
//     *StaleRequestError (409); if the conflict came from an unrelated
//     write (a status update by the operator), Decide succeeds again.
//
// Of two approvers deciding the same request at the same time, exactly
// one write succeeds and the other gets a 409 from step 3 or, after the
// retry, from Decide. A new request (after an edit or a reactivation) gets
// a new ID, so an approval given for an older version can never approve
// a newer one.
//
// Everything here is pure: no I/O, no clock (the time is an argument), no
// goroutines, no logging. Inputs are never modified; results are copies.
package approval
