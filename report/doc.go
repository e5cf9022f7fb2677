// Package report owns the report of a protection plan's run (R-T1..R-T5):
// what the plan was, what it covered, what happened to it, how healthy it
// was and what it caught, written as HTML, Markdown, JSON or CSV; and the
// rules around reports: which lifecycle step makes a final report, when an
// on-demand report is allowed, which stored reports retention deletes, how
// the Reports list filters, and a limiter for concurrent renders.
//
// Everything is pure except the Limiter's counter: Build and Write take
// values (the plan, the violations of its ledger, the health samples and
// policies the operator recorded, the time) and return values or typed
// errors whose HTTP-like code is a property of their type (plan.CodeOf):
// *InputError 400, *NotStartedError 409, *BusyError 429. Nothing here reads
// the clock, the disk or the network, or starts a goroutine.
//
// Report files include admission decisions (the violations): whoever may
// read a report sees them, whatever the violations permission says.
//
// # Use
//
//	r, err := report.Build(report.Input{Plan: p, Violations: ledger.Items, Trigger: report.TriggerEnd, Now: now})
//	release, err := limiter.Acquire() // 429 with Retry-After when two renders run
//	err = report.Write(w, r, report.HTML)
//
// # What it owns
//
//   - report.go: the model, Report, which is also the JSON schema.
//   - build.go, health.go: Build; the run's phases from the plan's
//     timeline; UnhealthyPeriods, the time the plan was active and not
//     healthy.
//   - trigger.go: FinalTrigger (end, cancel, or none for a plan that never
//     started) and CheckManual (on demand once the plan has started).
//   - retention.go: Prune (the newest KeepManual on-demand reports per plan
//     are kept, final reports never pruned, reports of a deleted plan all
//     deleted) and List with a Filter, newest first.
//   - limiter.go: Limiter, at most DefaultMaxRenders renders at a time.
//   - breakglass.go: the break-glass section; edge.go: the edge actions'
//     section, from the journals of package edge (Input.EdgeJournals).
//   - format.go, html.go with html.tmpl and svg.go, markdown.go, csv.go:
//     the formats.
//
// # Edge actions
//
// A plan with edge actions (package edge) has an "Edge actions" section
// in the HTML, Markdown and JSON formats: one table per window in which
// they started, one row per participant (the object with the UID it was
// captured with, the RFC 6901 pointer, the captured and the applied
// value), with the start's outcome (applied, skipped and why, not landed,
// pending) and the restore's (restored, nothing to restore, not restored
// because missing or replaced, kept because changed during the window,
// failed and why, abandoned and by whom, pending). It is read from the
// journals the embedder passes, never from the live objects, so that a
// final report made once every restore is done shows what was done. The
// CSV format stays one violation a row and has no edge rows.
//
// # Formats
//
// HTML is one self-contained page: inline CSS, an inline SVG picture of the
// run (phases as bands, the health row green where a health check stated
// the health and grey where none did, unhealthy periods shaded, blocked
// changes as filled squares and audited ones as hollow circles, so that
// they differ without colour), summary cards and tables; no script and no
// external asset. Below 720 px wide (a phone) a list of the same periods
// stands for the picture and wide tables scroll sideways inside the page.
// It prints on A4 with repeated table headers. It is written by html/template,
// so user text is only ever text: never markup, an attribute, CSS or a URL;
// bidirectional overrides are isolated in <bdi> or their table cell.
//
// Markdown renders on GitHub: user text is only written inline and
// backslash-escaped (\ ` * _ [ ] < > & | ~ ! #), its line breaks become
// <br>, and bidirectional controls are shown as ‹U+202E›, so tables keep
// their shape and no link, image or HTML comes from user text.
//
// CSV is RFC 4180 (CRLF, quoted where needed), one violation a row under a
// header: timestamp, first_seen, count, decision (blocked or audited),
// result, plan, template, policy_namespace, policy, rule, api_version,
// kind, namespace, name, subresource, message, source, key. It is safe to
// open in a spreadsheet: SpreadsheetSafe prefixes an apostrophe to any
// cell a spreadsheet could take for a formula (OWASP CSV injection).
//
// # JSON schema, version 1
//
// The JSON format is Report, indented, one violation a line, described by
// schema/report.v1.schema.json (a test validates the output against it).
// Every field is always present but the optional sections (breakGlass,
// edgeActions: absent when the run has none) and fields marked optional in
// the schema; lists are [] when empty; times are RFC 3339 in UTC;
// durations are whole seconds.
//
//	schemaVersion      1
//	id, trigger        "<plan>-<trigger>-<20060102T150405Z>"; manual | cancel | end
//	generatedAt        when the report was made
//	runStart, runEnd   the run: first active instant; end or cancel (or now)
//	plan               id, name, description, environment, tags, mode,
//	                   approvalMode, phase, window {description, spec}
//	scope              type, applications [{name, namespaces, resolved}], namespaces
//	exclusions         kinds, resources [{kind, namespace, name}]
//	templates          [{name, parameters [{name, value}]}]
//	policies           [{namespace, name, template, target}]
//	timeline           events [{time, type, actor, phase, message}], dropped,
//	                   phases [{phase, start, end}]
//	health             samples [{at, healthy, reason, message, missing,
//	                   outdated, actionChanged, unexpected}],
//	                   unhealthy [{start, end, seconds, reason, message}],
//	                   unhealthySeconds
//	violations         items [violations.Violation], truncated, dropped
//	breakGlass         optional: grants [grant, state, writes], note
//	edgeActions        optional: windows [{start, capturedAt,
//	                   restoringSince, phase, abandonedBy, actions [{name,
//	                   title, parameters, participants [{target {apiVersion,
//	                   kind, namespace, name, uid}, subresource, pointer,
//	                   captured, applied, start {outcome, reason},
//	                   restore {outcome, reason}, attempts, lastError}]}]}],
//	                   dropped
//	summary            activeSeconds, activePeriods, unhealthySeconds,
//	                   unhealthyPeriods, violations, blocked, audited,
//	                   decisions, resources
//
// A field may be added within version 1; removing or changing one makes
// version 2.
package report
