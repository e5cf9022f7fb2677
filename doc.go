// Package protectionplans is the root of a Go library for Kubernetes change
// freezes. A protection plan locks chosen kinds of change (creation,
// deletion, image changes, scaling, ConfigMap and Secret edits, storage, ...)
// for chosen applications or namespaces during a time window, in audit or
// enforce mode, optionally behind an approval. This package holds no code;
// it documents the architecture.
//
// # Packages
//
// Imports flow one way, down this list; nothing imports an example.
//
//   - window: time windows (permanent, time range, recurring cron in an IANA
//     zone), compiled once and queried at any instant: Active, NextEdge,
//     Occurrences.
//   - plan: the ProtectionPlan API type (telark.io/v1alpha1), its validation
//     with field paths and HTTP-like codes, categories, the strict request
//     decoder, and the lifecycle as pure functions of the plan and the time.
//   - approval: who may decide a plan, decisions that cannot be gamed, and
//     one permission per action.
//   - render: the fixed template catalog, its reference semantics, and
//     rendering an active plan into admission policies for a target
//     (Kyverno kyverno.io/v1 Policy by default).
//   - health: live policies against a fresh render; conditions and repair
//     actions as data.
//   - violations: Kyverno events and policy reports into violation records,
//     the feed, and the per-plan ledger that outlives events.
//   - report: the record of a plan's run in HTML, Markdown, JSON and CSV.
//   - reconcile: every decision of a controller's pass over a plan, and a
//     server's create and edit pipelines, over the packages above.
//   - overview: what a portal shows about a plan (its row, labels, the
//     actions offered to a caller, its approval, a health refresh, a page
//     of its feed).
//   - problem: what an API answers for an error, decided by its type.
//   - calendar: a plan's window intervals as an RFC 5545 iCalendar, and
//     the occurrences of an iCalendar's events in a range (Import: holidays
//     and release calendars for exceptions).
//   - lint: the mistakes in plans' schedules, as findings with a severity,
//     a stable code, the fields and the instants (protectctl lint).
//   - plan/plantest: a serializable cluster for tests (and protectctl's
//     --cluster file) that fills a plan.ValidationEnv.
//   - policytest: declarative tests of plans: requests at instants and
//     the decision expected on every target, as files or Go values.
//
// # Purity
//
// The library packages do no I/O, read no clock and start no goroutines.
// They take values (a plan, an instant, a snapshot of the cluster, the
// caller's identity) and return values (phases, policies, repair actions,
// typed errors, report bytes). The programs under examples/ (an operator, a
// CLI and an HTTP server, in their own module) do the I/O.
package protectionplans
