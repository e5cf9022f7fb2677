// Package health compares a plan's live policies with a fresh render of the
// plan (R-H1), says how healthy they are in conditions a person can act on,
// and returns the repair actions that converge the cluster (R-H2), as data.
//
//	live := health.GroupByPlan(list)[p.Name] // one list, label health.ListSelector
//	res := health.Check(health.Input{Plan: p, Render: rendered, Live: live, Now: now, Repair: true})
//	for _, a := range res.Actions { /* Apply (SSA), PatchFailureAction (merge patch), Delete */ }
//
// Everything here is pure: the operator gathers the plan, its render and
// the live policies into an Input; Check decides; the operator carries out
// the actions. Nothing here reads the clock, lists, writes or logs.
//
// # What it owns
//
//   - Check: the state of every policy (ok, missing, outdated, action
//     changed, unexpected), the conditions Ready, Approved and
//     PoliciesHealthy, and, with Input.Repair, the actions. Without it
//     ("Refresh health", R-H3) the same states and conditions, no actions.
//   - Verified: what a check found ok, by uid and resourceVersion, so that
//     the next check compares only what was written since.
//   - Sweep: deletes for the managed policies of plans that are not active
//     or no longer exist, from the same single list.
//   - Record: stores a check on a copy of the plan (PoliciesHealthy,
//     Approved, Status.Policies capped at MaxRecordedPolicies, a
//     HealthChanged event when health turns).
//   - ListSelector and GroupByPlan for the operator: one list of every
//     plan's policies, split by plan. Apply actions are meant for
//     server-side apply under one field manager of the embedder's choosing
//     (always the same one: fields a manager applied before and leaves out
//     later are removed by the API server).
//
// # General approach
//
// The render is the desired state, keyed by group, kind, namespace and
// name. One pass indexes it, one pass over the live list matches each live
// policy of the plan with its rendered object or marks it unexpected, and
// the rendered objects left unmatched are missing: linear in the number of
// policies. A matched pair is classified in the cheapest order that stays
// exact (details on Check):
//
//  1. the live object holds the rendered one's fields, labels and
//     annotations unchanged: ok, without hashing (the steady state);
//  2. its render-hash annotation differs from the render's: outdated;
//  3. the annotation is intact and render.HashOf(live) equals it: ok
//     (only fields outside the canonical form changed, e.g. a label of
//     another controller);
//  4. otherwise its spec was changed by hand under the intact annotation:
//     action changed if writing the rendered failure action back into a
//     copy (render.SetFailureAction) gives back the annotated hash,
//     outdated if anything else changed too (applying the render fixes
//     both).
//
// Everything target-specific goes through render (TargetOf, HashOf,
// FailureAction, SetFailureAction, the objects of each render.Policy): a
// target whose policy is several objects (a ValidatingAdmissionPolicy and
// its binding) is checked object by object, and the policy takes its most
// severe object state.
//
// # States and repairs
//
//	state            found when                                 repair (Repair, plan active)
//	ok               live = render (canonical form)             none
//	missing          rendered, not live                         Apply the rendered object
//	outdated         annotation ≠ render's hash, or a hand      Apply the rendered object
//	                 edit beyond the failure action
//	action_changed   a hand edit of the failure action only     PatchFailureAction (merge patch)
//	unexpected       live with the plan's label, not rendered   Delete (uid, resourceVersion preconditions)
//
// A plan that is not active renders nothing (R-R7), so all its live
// policies are unexpected and deleted. Actions are sorted: applies, then
// patches, then deletes (protection is put in place before anything is
// removed), each by namespace, name and kind. In the steady state there is
// no action at all, so an operator that follows them writes nothing.
//
// # The compact layout
//
// A policy of the compact layout (render.CompactTemplate) holds every
// template of its plan in one namespace. It is compared, hashed and
// repaired as the one object it is: a repair applies the whole policy (or
// patches its failure action). What is wrong with it is still told per
// template (compact.go): PolicyHealth.Templates lists the templates at
// fault, the policy's detail (also its repair's reason) says what changed
// in each ("template scaling (scaling: rule replicas missing)"), and the
// PoliciesHealthy message names them after the namespaces ("1 of 2
// policies outdated in shop (template scaling): being re-applied"). A
// missing policy is every template's; a field outside the rule list (the
// failure action, the match, a VAP binding) is shared by every template;
// otherwise each rule that changed is its template's, by
// render.Policy.Parts, which say which rules of the list are whose.
// kyverno.io/v1 rules are matched by name, validations, which have none,
// along a longest common subsequence of equal ones. This runs only for
// compact policies that are not ok: the steady state costs nothing more.
// The templates' render hashes are on the objects
// (render.AnnotationTemplateHashes), outside the canonical form: a live
// policy rendered before the annotation existed is ok, and gets it with
// its next apply.
//
// # Conditions
//
// Ready belongs to the lifecycle (plan.Tick, plan.Fail, plan.Cancel): it
// says whether the plan is in the phase its window asks for (Active,
// Scheduled, PendingApproval, Canceled, a failure reason, ...). Tick sets
// it again on every tick, so health never changes it, lest the two flap;
// Check reports it as the plan holds it. Approved is plan.ApprovedCondition.
// PoliciesHealthy is health's: True when every rendered policy is ok and
// nothing is unexpected (InPlace for an active plan, NothingDeployed for
// any other phase: "nothing is deployed before the window starts"); False
// with the most severe drift as reason (PoliciesMissing, PoliciesOutdated,
// FailureActionChanged, UnexpectedPolicies) and every drift in the
// message: "2 of 18 policies missing in payments, shop: re-applied on the
// next tick"; Unknown (InconsistentInput, no actions) when the input
// cannot be judged, e.g. an active plan with an empty render.
//
// # Cost
//
// The steady state hashes nothing: the fast path is a walk of two JSON
// trees per policy, and with Input.Verified (the previous check's
// Result.Verified, kept in memory between ticks) not even that for the
// objects whose resourceVersion has not moved. The rendered side of the
// walk is cheap: a render shares its specs' lists among its namespaces,
// and a check prepares each shared list once (want.go) and compares every
// live object with it. The live side is not: a cold check (no Verified)
// must read every field of every live object, and those are scattered
// over the heap, so its cost is that of reading them from memory.
// BenchmarkCheck_2000Namespaces (18,000 policies) measures the check
// against render.Render of the same plan, against building the two maps
// alone and against a bare walk of what it reads in the live objects (the
// floor of any exact cold check); its ratios sub-benchmark times them in
// the same iterations. render.HashOf runs only for live objects whose
// annotation matches the render but whose fields differ, or whose labels
// or annotations differ in what HashOf covers: a label another controller
// puts on every policy costs no hashing (matchHashed).
//
// # Enforcement: does the freeze really refuse?
//
// A policy that exists and matches its hash can still refuse nothing.
// Enforcement (issue 21) reads what the operator gathers of the enforcer
// (EnforcementInput) and returns the EnforcementVerified condition and
// every Finding as data, with no action: the objects it reads are
// Kyverno's or the cluster's. Its checks, most severe first (the
// condition's reason is the most severe finding's):
//
//	PlanFailed             the plan failed: nothing else is judged
//	WebhookMissing         Kyverno registered no webhook at all
//	EnforcerNotAnswering   a probe got no answer (timeout, webhook error)
//	ProbeAdmitted          a dry-run the plan must refuse was admitted
//	WebhookFailsOpen       only failurePolicy Ignore webhooks cover a request
//	PolicyNotReady         Kyverno's status of the policy is not ready (a
//	                       kyverno.io/v1 one without Ready a minute on:
//	                       Kyverno could not register it)
//	WebhookNotCovering     no webhook's rules or namespaceSelector cover it
//	BindingNotEnforcing    vap: binding missing, elsewhere, or not Deny
//	PolicyExcepted         a PolicyException (either API) names the policy
//	ResourceFiltered       Kyverno's resourceFilters drop the kind there
//	RequestersExcluded     excludeGroups etc. beyond system:nodes
//	TypeCheckWarnings      vap: the API server's type-checking warnings
//	ProbeRefusedOtherwise  refused, but not naming the plan's policy
//	GuardMissing           config/admission/policies.yaml not installed
//
// Webhooks count for their engine only: Kyverno 1.19 sends kyverno.io
// policies through the webhooks named validate.kyverno.svc-fail/-ignore
// and NamespacedValidatingPolicies through nvpol.validate.kyverno.svc-*
// (recorded in testdata/kyverno-1.19.1).
//
// The active probe: Probes returns, per frozen namespace and template at
// most once, a server-side dry-run create of an object named ProbeName
// that the policy must refuse; JudgeProbe reads the answer. Only the
// create and all-writes templates under a namespaces scope can be probed
// with an object that does not exist; the others refuse changes of
// existing objects (a probe would need a live member), an applications
// scope needs the application's labels, and an audit plan admits by
// design: those are verified by the passive checks alone. Kyverno writes
// a PolicyViolation event for each refused dry-run: measured on the
// harness (examples/e2e/faults), one new event object per refused probe,
// not aggregated, expiring with the cluster's event TTL (one hour by
// default); every policy that refuses the probe writes its own, so plans
// that freeze creation in the same namespace each add one per probe
// (Kyverno 1.19.1: pkg/webhooks/utils/event.go GenerateEvents, one event
// per failed rule of each policy's response, the CEL engine's
// pkg/webhooks/resource/vpol/handler.go alike; pkg/event/controller.go
// creates each as a new Event). No property of a request suppresses them:
// --omitEvents drops every PolicyViolation event of the cluster, and
// resourceFilters exempt the probe from evaluation too. Bounding them
// below one per plan would take the render: a dry-run-only precondition
// by which each policy skips a probe addressed to another, so that a
// pass's shared probe is refused by one policy (TestProbeEvents in
// examples/e2e/faults measures 1, 2 and 4 plans on one namespace).
// These events are the steady state's only writes. Package violations
// leaves records of ProbeName out (violations.IsProbe).
// RecordEnforcement stores the condition and an EnforcementChanged
// timeline event when it changes.
package health
