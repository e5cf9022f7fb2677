// Package plan owns the ProtectionPlan API type (group telark.io, version
// v1alpha1, cluster-scoped), its validation, its lifecycle and the
// categories (environments and tags) plans carry.
//
// Everything here is pure: functions take the plan, the time and a view of
// the world as values, and return new values or typed errors whose
// HTTP-like code (CodeOf) is a property of their type. Nothing reads the
// clock, the network or the disk, and nothing changes its input.
//
// # What it owns
//
//   - types.go: ProtectionPlan, its Spec and Status, phases, conditions,
//     timeline events; the CRD in config/crd is generated from it.
//   - Validate, ValidateUpdate (R-P8) against a ValidationEnv: the catalog
//     (render implements Catalog), the categories, a ClusterView, an
//     ApplicationResolver and the names of other plans (package plantest
//     has a serializable implementation of the last three, for tests).
//   - spec.scope: applications, namespaces, or namespaceSelectors (label
//     selectors, ORed; {} alone is the whole cluster), never two, the type
//     fixed once created. AlwaysLeftOut, SelectsNamespace,
//     CoveredNamespaces and UpdateCoverage say which namespaces a scope
//     covers now and since when (Status.Coverage).
//   - custom kinds (ServedKinds, the embedder's discovery facts in
//     ValidationEnv.Kinds): a kinds parameter and the excluded kinds may
//     name <Kind>.<group>; not served or cluster-scoped is refused.
//   - spec.requesters (Requesters, after seed 004's audiences): users,
//     groups and service accounts (written namespace:name) the plan never
//     freezes (exclude), and, when include names anyone, the only
//     requesters it freezes; exclusions win. Names are exact, checked
//     like display text, without Kyverno's wildcards * and ?
//     (ValidateRequesters). A change of them is material (IsMaterialEdit,
//     R-A6): refused once approved, a new request while pending.
//   - Defaults, which is separate from validation.
//   - Decode: strict JSON and YAML bodies (413 over 1 MiB, 400 for unknown
//     fields, duplicate keys, several documents).
//   - The lifecycle (R-P6, R-P7): Create, Tick, Cancel, Reactivate, Edit,
//     Duplicate and Fail, each returning a Result (the new plan, the events
//     appended, the next window edge) or a *ActionError.
//   - Categories (R-P9).
//
// Approval decisions belong to package approval, rendering to package
// render; plan imports neither.
//
// # Lifecycle
//
//	                          ┌──────────── reject ─────────────┐
//	Create ─▶ pending_approval ─── approve ──┐                  ▼
//	   │      (approval required)            │              canceled
//	   │                                     ▼                  ▲
//	   └── automatic ───────────────▶ scheduled ⇄ active ───────┘ Cancel
//	                            window edges │     │
//	                           window ended  ▼     ▼ Fail
//	                                 terminated   failed ── next Tick ─▶ retried in
//	                                                                    the window's phase
//
//	Reactivate: terminated, canceled, failed ─▶ pending_approval (approval
//	            required) or the phase the window asks for.
//	Cancel:     pending_approval, scheduled, active, failed ─▶ canceled.
//	Edit:       any phase; a window change recomputes the phase.
//
// Tick is the pure transition function: the operator calls it on every
// tick and at Result.NextEdge. A recurring plan is active only inside its
// occurrences and scheduled between them. Policies are in place only while
// a plan is active.
//
// # Use
//
//	res, err := plan.Create(p, "alice", now) // after plan.Validate(p, env)
//	res = plan.Tick(res.Plan, later)         // on every tick and at res.NextEdge
//	fmt.Println(res.Plan.Status.Phase)       // scheduled, active, terminated, ...
package plan
