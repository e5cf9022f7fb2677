// Package policytest is declarative tests of protection plans: given
// plans, what is known of the cluster, and requests at given instants,
// each case says what the rendered policies must do (blocked by a
// template with a message, audited, exempt, admitted, and whether the
// requester reads a warning), for every render target. It is for
// platform teams' CI, as `kyverno test` is for Kyverno policies:
//
//   - in Go tests, with Suite and Case values (RunT, or Suite.Run to look
//     at the results);
//   - as files (Load, LoadDir): the format below, which the example CLI
//     runs with `protectctl test` and TestFiles runs in a `go test`.
//
// The answers are render.Explain's, the reference semantics of the
// rendered policies that the end-to-end tests hold the real Kyverno and
// API server to; a plan is taken as an operator would hold it at the
// case's instant (reconcile.Offline.Preview).
//
// # The file format
//
//	apiVersion: cli.telark.io/v1alpha1
//	kind: Test
//	name: business hours freeze of payments   # optional; the file name otherwise
//	plans:                                      # files of plans, relative to this file
//	- ../../plans/production-release.yaml
//	clusterFile: ../samples/cluster.yaml        # or cluster: {namespaces: [...], ...}
//	targets: [kyverno, kyverno-cel, vap]        # optional: every supported target
//	layouts: [per-template, compact]            # optional: per-template
//	pending: false                              # optional: plans that need approval wait for it
//	cases:
//	- name: kubectl scale in business hours is refused
//	  at: 2026-11-18T12:00:00+01:00             # RFC 3339, or a date (midnight UTC)
//	  request:                                  # a short request (render.SmallRequest)
//	    operation: UPDATE                       # or an AdmissionReview; or requestFile: path
//	    kind: Deployment
//	    subresource: scale
//	    ...
//	  expect:
//	    decision: blocked                       # blocked, audited, exempt or admitted
//	    plan: production-release                # optional: the plan that decides
//	    template: scaling                       # optional: the template whose rule applies
//	    message: "Business-hours freeze"        # optional: an RE2 regular expression
//	    warned: false                           # optional: the requester reads a warning
//
// A JSON Schema of the format is in schema/test.v1alpha1.schema.json.
// Fields are case-sensitive and unknown ones are refused, with their
// path; so are a case without a name, two cases of the same name, a
// decision that is not one of the four, a regular expression that does not
// compile, and an instant that is not one. Text from the file is only ever
// matched (regular expressions with Go's RE2, which runs in linear time)
// or compared; never evaluated.
//
// # What a case checks
//
// For each target (and layout) of the case, each plan is previewed at
// the instant and its decision explained. The request's decision is the
// strongest of the plans': blocked if any plan blocks it, else audited if
// any records it, else exempt if an exemption admitted what a plan would
// have refused or recorded, else admitted. A case passes when that
// decision is the one expected and, when the expectation names a plan, a
// template or a message, some plan decided so with them.
//
// Like the library's other packages, it does no I/O of its own: files
// are read through the fs.FS the caller gives (os.DirFS, fstest.MapFS,
// an embed.FS), and time is the case's instant.
package policytest
