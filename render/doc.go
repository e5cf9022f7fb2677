// Package render owns the fixed template catalog and turns an active
// protection plan into admission policies: one policy per template and
// namespace in scope, labelled with the plan and carrying a render hash.
//
//	res, err := render.Render(render.Input{Plan: p, Now: now})
//	// res.Policies[i].Objects are kyverno.io/v1 Policies to apply.
//	d, _ := render.Explain(render.Input{Plan: p, Now: now}, req) // d.Blocked
//
// # General approach
//
// The catalog is data. Each Template is a plan.TemplateInfo (what
// validation and a dashboard see: scopes, parameters) plus a list of
// RuleSpecs in a small closed vocabulary: kinds, the /scale subresource,
// operations, and a Condition (Always, ImagesChanged, ReplicasChanged,
// RestartedAtChanged, StorageRequestChanged, DataChanged). Nothing in the
// catalog is written for one kind of policy.
//
// A render goes through three steps:
//
//  1. compile checks the input and reduces it: the plan's parameters are
//     bound into its templates' rules (kinds lists, scaling direction), the
//     scope becomes a sorted list of namespaces, each with the selectors of
//     the applications living there and its named-resource exclusions, and
//     the messages are worked out (the end of the window interval containing
//     Now). Everything that will reach a policy is validated here, whatever
//     plan validation did before: user text never reaches a policy except
//     base64-encoded, and kinds, names and selector values reach it only
//     once checked to be identifiers, DNS names and label values.
//  2. a target translates the rule vocabulary into its kind of policy.
//     Targets implement a sealed interface (target.go); the kyverno target
//     (kyverno*.go) writes kyverno.io/v1 Policies through a small typed
//     mirror of Kyverno's types. The other targets of R-R5 (kyverno-cel,
//     vap) plug in as one file each.
//  3. each object gets its labels and its render hash (HashOf: the SHA-256
//     of a canonical JSON form), and the result is sorted.
//
// Explain is the reference semantics of the same rule specs, in Go: given a
// request, would the plan's policies refuse it, record it, or let it
// through, and why. The end-to-end tests hold real Kyverno to it.
//
// # What is never frozen
//
// Status subresources, events, leases and every kind outside the catalog's
// vocabulary; requests from Kubernetes' own control plane (Exemptions:
// kube-system service accounts, the controller manager, the scheduler,
// nodes), so that a freeze never stops the cluster from keeping running
// workloads alive. Pods are not in the default kinds of create, delete and
// all-writes (operators create and delete them to keep workloads running);
// a plan can list them.
//
// # Scope
//
// A namespaces scope freezes every object of the listed namespaces. An
// applications scope freezes, in each namespace of each application, the
// objects its label selector selects; an application without a selector
// freezes its namespaces whole. Selectors are evaluated in the rules'
// preconditions on the old and the new object (so that removing the
// application's label does not take an update out of the freeze), and on
// the parent of a /scale request, read with an API call (a Scale has no
// labels).
//
// # Canonical form and Kubernetes defaulting
//
// Health compares live policies with a fresh render. Render writes every
// field the Policy CRD defaults (admission, background, emitWarning,
// validationFailureAction, rules[].skipBackgroundRequests,
// validate.allowExistingViolations, apiCall.method), and Kyverno 1.19's
// policy mutation webhook changes nothing, so a live policy's spec reads
// back equal to its render, and HashOf(live) equals the render-hash
// annotation until someone edits the spec. The hash covers apiVersion,
// kind, name, namespace, the plan, template and managed-by labels, the
// annotation that switches Kyverno's pod-controller autogen off, and the
// spec; nothing the server sets. testdata/live holds policies read back
// from a real API server with Kyverno 1.19.1, one per template.
//
// # Determinism and cost
//
// The same input gives the same bytes: every list is sorted (namespaces,
// selectors, exclusions, kinds) and no map order leaks. A policy spec does
// not depend on its namespace unless the namespace has its own selectors
// or named exclusions, so Render builds each distinct spec once, hashes it
// once, and gives each namespace a copy.
package render
