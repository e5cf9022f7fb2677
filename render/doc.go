// Package render owns the fixed template catalog and turns an active
// protection plan into admission policies: one policy per template and
// namespace in scope (or, in the compact layout, per namespace), labelled
// with the plan and carrying a render hash, for one of three targets.
//
//	res, err := render.Render(render.Input{Plan: p, Now: now, Target: render.TargetVAP})
//	// res.Policies[i].Objects: a ValidatingAdmissionPolicy and its binding.
//	d, _ := render.Explain(render.Input{Plan: p, Now: now}, req) // d.Blocked
//
// # General approach
//
// The catalog is data. Each Template is a plan.TemplateInfo (what
// validation and a dashboard see: scopes, parameters) plus a list of
// RuleSpecs in a small closed vocabulary: kinds, the /scale subresource,
// operations, and a Condition (Always, ImagesChanged, ReplicasChanged,
// RestartedAtChanged, StorageRequestChanged, DataChanged; LeavesApplication
// for the scope guards), a closed set (Conditions) that every target and
// Explain handle case by case: a condition outside it is an
// *UnknownConditionError, never "always". Nothing in the catalog is
// written for one kind of policy.
//
// A render goes through three steps:
//
//  1. compile checks the input and reduces it: the plan's parameters are
//     bound into its templates' rules (kinds lists, scaling direction), the
//     scope becomes a sorted list of namespaces, each with the selectors of
//     the applications living there and its named-resource exclusions, and
//     the messages are worked out (the end of the window interval containing
//     Now). Everything that will reach a policy is validated here, whatever
//     plan validation did before: user text reaches a policy only in
//     messages (see Messages and user text), and kinds, names and selector
//     values reach it only once checked to be identifiers, DNS names and
//     label values.
//  2. a target translates the rule vocabulary into its kind of policy.
//     Targets implement a sealed interface (target.go): the policies, the
//     kinds of object, how the failure action is read and written, and
//     what Explain must know (names, and the one place where targets
//     decide differently). Nothing of the catalog is copied into a target.
//     The targets of R-R5 are kyverno (kyverno*.go: kyverno.io/v1
//     Policies, through a small typed mirror of Kyverno's types),
//     kyverno-cel (cel_kyverno.go: policies.kyverno.io/v1
//     NamespacedValidatingPolicies, typed with github.com/kyverno/api) and
//     vap (vap.go: admissionregistration.k8s.io/v1
//     ValidatingAdmissionPolicies with their bindings, typed with
//     k8s.io/api, enforced by the API server itself). The two CEL targets
//     share the CEL translation (cel_*.go): one validation per rule, the
//     negation of "this rule applies".
//  3. each object gets its labels and its render hash (HashOf: the SHA-256
//     of a canonical JSON form), and the result is sorted.
//
// Explain is the reference semantics of the same rule specs, in Go: given a
// request, would the plan's policies refuse it, record it, or let it
// through, and why, for the input's target. test/kyverno holds Kyverno's
// engines (kyverno.io/v1 and CEL) and the API server's
// ValidatingAdmissionPolicy code to it on every case of
// testdata/explain_corpus.json; the live tests hold the real admission
// chain to it.
//
// # What is never frozen
//
// Status subresources, events, leases and every kind outside the catalog's
// vocabulary; requests from Kubernetes' own control plane (Exemptions:
// kube-system service accounts, the controller manager, the scheduler,
// nodes), so that a freeze never stops the cluster from keeping running
// workloads alive; and the plan's own exempt requesters (see Requesters). Pods are not in the default kinds of create, delete and
// all-writes (operators create and delete them to keep workloads running);
// a plan can list them.
//
// # Scope
//
// A namespaces scope freezes every object of the listed namespaces. An
// applications scope freezes, in each namespace of each application, the
// objects its label selector selects; an application without a selector
// freezes its namespaces whole. Selectors are evaluated on the old and the
// new object (so that removing the application's label does not take an
// update out of the freeze), and for a /scale request on its parent (a
// Scale has no labels), read with an API call (kyverno) or resource.Get
// (kyverno-cel). A ValidatingAdmissionPolicy cannot read another object:
// the vap target matches the /scale of the applications' members by name
// (Application.Members as resolved when rendering; a member created later
// is covered from the next render, which the operator makes on every
// tick), and Explain decides the same way for it.
//
// Every policy of a namespace in scope through selectors also carries a
// scope guard per application (guard.go): an UPDATE after which the
// application's selector no longer selects an object it selected is
// refused ("moving Deployment web out of application checkout is frozen
// by protection plan ..."). Without it, a change in two steps escapes the
// freeze: first an update that only removes the label, then the frozen
// change on an object no longer in scope.
//
// # Requesters
//
// A plan's spec.requesters (after seed 004's audiences) names users,
// groups and service accounts (namespace:name, the user
// system:serviceaccount:<namespace>:<name>): exclude, requesters the plan
// never freezes, and include, when it names anyone, the only requesters it
// freezes. Exclusions win. Names are exact: compile refuses "*" and "?"
// (Kyverno matches subjects as wildcard patterns), "{{", "}}" and "$("
// (Kyverno reads variables and references even in a rule's subjects) and
// control characters, as plan validation does. Every rule of every policy
// carries them, next to the control plane's exemptions:
//
//   - kyverno: the exempt requesters are subjects of the exclude block's
//     first filter, after the control plane (User, Group, and
//     ServiceAccount with its namespace); include makes them the subjects
//     of the match filter;
//   - kyverno-cel and vap: match conditions, "exempt-requesters" (false
//     for an exempt requester) and "included-requesters", comparing
//     request.userInfo's username and groups with string literals
//     (celString), exactly as Explain compares them.
//
// A write an exemption admits is recorded. When a plan exempts anyone,
// each namespace gets one more policy, the record policy (ExemptTemplate,
// named "<plan>-exempt", for vap "<plan>-exempt.<namespace>"): every
// template's rules as in the compact layout, matching only exempt
// requesters (and, with include, only included ones: kyverno writes a
// match.all of the two subject filters), in audit mode whatever the
// plan's mode, so that it admits and records exactly the writes the
// plan's own policies would have refused or recorded. Its message names
// the requester, who is text like any other: "exempt requester <name>
// admitted by protection plan <plan>: <what>", where kyverno writes
// "base64:" and the name's base64 (Kyverno's base64_encode of
// request.userInfo.username inside a shallow substitution, so that Kyverno
// evaluates nothing of it), and both CEL targets a message expression
// (whose result neither engine evaluates; a line break in the name reads
// as a space, as the API server drops a message with one). kyverno and
// kyverno-cel record it as an audit violation (events, policy reports,
// hence the violations feed, with the template label "exempt"); vap's
// binding is [Audit, Warn]: a warning to the requester and the
// validation_failure annotation of the request's audit event, which reach
// no feed. Explain decides such a write Exempt, naming the record
// policy's rule and message.
//
// # Messages and user text
//
// User text (plan and application names) reaches messages only, never an
// expression (requester names reach policies as Kyverno subjects and CEL
// string literals, checked as Requesters says): kyverno writes it base64-encoded inside Kyverno's
// base64_decode (Kyverno evaluates messages as templates); the CEL targets
// write it as literal messages (neither Kyverno's CEL engine nor the API
// server evaluates a message) and, for the scope guard's
// messageExpression, as CEL string literals (celString) around the
// request's kind and name. The API server refuses a message with a line
// break, so vap writes line breaks as spaces; both CEL targets write the
// control characters YAML cannot hold as U+FFFD. Everything else that
// reaches an expression (kinds, names, label keys and values) is checked to
// be a Kubernetes identifier first, and quoted.
//
// # Modes, and where violations go
//
// Enforce refuses: kyverno's validationFailureAction Enforce, kyverno-cel's
// and vap's validationActions [Deny]. Audit admits and records: kyverno
// (Audit) and kyverno-cel ([Audit]) record PolicyViolation events and
// PolicyReport results, which the violations package reads; vap ([Audit,
// Warn]) records the decision in the API server's audit log (as the
// Kubernetes documentation describes it, the
// validation.policy.admission.k8s.io/validation_failure annotation of the
// request's audit event) and returns it to the client as a warning
// ("Validation failed for ValidatingAdmissionPolicy '<name>' with binding
// '<name>': <message>"). No event and no report: the violations feed sees
// nothing of a vap plan unless the embedder collects audit events.
//
// The API server evaluates a vap policy in-process (no webhook, nothing
// that can be down or slow); a NamespacedValidatingPolicy gets a webhook of
// its own in Kyverno's configuration, scoped to its namespace, with the
// exemptions as webhook match conditions (exempt requests never reach
// Kyverno).
//
// # Layouts
//
// By default a plan renders one policy per template and namespace: the
// unit health compares, hashes, labels with its template and repairs.
// Each policy costs a write in scope something of its own: a webhook call
// (kyverno-cel), a policy evaluation (vap), a policy pass with its context
// copies (kyverno). Input.Compact offers the compact layout: one policy
// per namespace, named for CompactTemplate ("<plan>-compact", for vap
// "<plan>-compact.<namespace>") and labelled telark.io/template=compact,
// holding every template's rules in the plan's order, each template's
// scope guards after its rules (named "<template>-scope-guard..."). This
// is what Explain walks. Kyverno's CEL engine and the API server refuse
// with the first failing validation, so the message is still the
// template's own and the one Explain names; in audit mode vap's warnings
// list every failing validation. In the CEL targets each validation keeps
// the match guard of its rule (matchGuard), and in this layout reads
// objects through dyn(), since the API server type-checks each expression
// against every kind the policy matches. Policy.Templates lists the templates a policy holds. The layout
// still reports per template: Policy.Parts and the AnnotationTemplateHashes
// annotation give each template's hash, that of the spec the standard
// layout renders for the template's own policy in the namespace (computed
// once per scope key: BenchmarkRender_CompactVsStandard measures the
// compact render of 2,000 namespaces at 0.17-0.19x the standard one,
// medians of five runs per target, as before the parts, 0.18-0.22x), and which
// entries of the rule list are its own; package health names the
// templates at fault from them. What the layout gives up: a repair
// applies the whole namespace's policy (a hand edit of one template's
// validation re-applies all of them).
//
// For the kyverno target, Kyverno evaluates every rule of a Policy and
// reports each one that fails, in rule order; Explain names the first.
// One Kyverno behaviour matters once rules of several templates share a
// Policy: after a rule that matched the request, Kyverno 1.19.1 puts
// request.object back into the rule context as apimachinery decoded it
// (int64 numbers), while request.oldObject keeps the JSON decoder's
// float64, and JMESPath equality tells 2 from 2.0. The replicas rule
// therefore compares to_number(to_string(...)) of both (kyverno_rules.go);
// without it, the compact layout refused a label change as scaling
// (test/kyverno caught it).
//
// # Namespaces by label and custom kinds
//
// A namespaceSelectors scope renders cluster-wide policies, one per
// template and selector (SelectorPolicyName), each carrying the selector,
// ANDed with the namespaces always left out (plan.AlwaysLeftOut, as
// "kubernetes.io/metadata.name notin (...)"), as the target's own
// namespaceSelector: a kyverno.io/v1 ClusterPolicy (every match filter's
// resources.namespaceSelector), a policies.kyverno.io/v1 ValidatingPolicy
// (matchConstraints.namespaceSelector) or a ValidatingAdmissionPolicy
// whose binding selects the namespaces. A per-namespace policy cannot
// serve it: a namespace labelled later would stay open until the next
// render. One more policy (NamespaceLabelsTemplate) refuses an UPDATE of a
// Namespace that some selector selected before and none after; the
// namespace selector cannot do that, since the API server matches a
// Namespace against its new labels. Input.ReleaseNamespace is required.
// Measured with TestSelectorLatency (200 requests per cell, in-run
// baseline), a selector plan costs what the same plan listing its
// namespace costs: overhead ratios 0.98 (kyverno), 0.89 (kyverno-cel) and
// 1.07 (vap) for an admitted patch, every difference within its 95%
// interval of zero.
//
// Custom kinds (custom_kinds.go) are served kinds named <Kind>.<group>,
// resolved through Input.Kinds (discovery facts): matched by group,
// served version and plural resource on every target.
//
// # Admission cost
//
// Measured on the end-to-end harness (TestAdmissionLatency: server dry-run
// PATCH of a Deployment, 1,200 requests per cell, interleaved; p50
// overhead over a namespace without plans, 2 shared cores). Out of scope:
// kyverno +1.72 ms (Kyverno registers one webhook for every kyverno.io/v1
// Policy, so every namespace pays), kyverno-cel -0.04 and vap +0.01 ms,
// within noise. In scope, a plan with all nine templates, against one
// hand-written policy doing the same checks (+3.06, +2.67 and +1.16 ms):
//
//	target       per template        compact layout
//	kyverno      +3.78 ms (1.24x)    +3.25 ms (1.06x)
//	kyverno-cel  +4.93 ms (1.85x)    +2.78 ms (1.04x)
//	vap          +2.78 ms (2.39x)    +1.35 ms (1.16x)
//
// Per template, a kyverno-cel request in scope crosses one webhook per
// template and a vap request one policy evaluation per template; compact,
// one. Folding the exemptions into the validations instead (match
// conditions gone, so Kyverno groups a namespace's policies into one
// webhook) measured +2.90 ms (1.09x) for kyverno-cel, but would send
// Kubernetes' own controllers to Kyverno: with failurePolicy Fail, a
// Kyverno outage would then block, say, the HPA scaling a frozen
// Deployment. Exempt requests never reaching an admission webhook is worth
// more, so the exemptions stay match conditions.
//
// # The clock at the enforcer
//
// With Input.Clock, on the targets whose engine reads the clock at
// admission (HasClock: kyverno, kyverno-cel), every rule carries the
// window's current and next occurrence as RFC 3339 UTC constants and
// refuses only from the start instant to the end instant, so a freeze
// starts and ends on time while no operator runs a pass; a scheduled plan
// renders up to Input.Lead (DefaultLead, 1h) before its start (Armed).
// Kyverno v1 tests !time_before(time_now_utc(), start) &&
// time_before(time_now_utc(), end) (time_between is exclusive at the
// start; time_now_utc has whole seconds); Kyverno 1.19.1's CEL policies
// have time.now() (the kyverno.time library of github.com/kyverno/sdk).
// The API server's CEL has no clock: vap keeps the operator's edges, late
// by at most one tick plus a leader change. See clock.go.
//
// Break-glass grants (Input.Grants, the plan's status.grants) exempt
// their users while in force. On a clocked render each grant is bounded
// by its own instants in the policies (kyverno: a precondition on the
// base64 of the user name and time_now_utc(); kyverno-cel: the match
// condition exempt-granted-requesters), so it ends at its end instant
// without a pass; elsewhere its users join the exempt requesters until a
// pass renders without them (plan.WithGrants does the same to a plan).
// Explain names the grant that exempts a requester. See grants.go.
//
// With Input.Warnings, each namespace in scope also gets a warning policy
// (WarnTemplate): one rule matching what the plan's templates match,
// whose only action is an admission warning, BeforeStart within the lead
// (Lead: the plan's spec.warnings.lead, Input.Lead, DefaultLead), Active,
// and BeforeEnd within the lead before the end. kyverno: Audit with
// emitWarning, rules named WarningRule(phase) (IsWarningRule, by which the
// violations package drops their records); kyverno-cel and vap:
// validationActions [Warn]. A clocked render times each rule (the current
// and next occurrence) and computes the time left in the policy
// (time_diff, timestamp arithmetic on time.now()); otherwise the policy
// carries the current phase's static text and NextWarningEdge says when a
// pass must render it again. WarningAt is the library's answer, which the
// engines' tests hold equal to theirs. A scheduled plan within the lead
// renders the warning policy alone on a target without a clock (Armed).
// See warnings.go.
//
// # Canonical form and Kubernetes defaulting
//
// Health compares live policies with a fresh render. Render writes every
// field the API server or the CRDs default (kyverno: admission,
// background, emitWarning, validationFailureAction,
// rules[].skipBackgroundRequests, validate.allowExistingViolations,
// apiCall.method; kyverno-cel and vap: failurePolicy, matchPolicy, empty
// namespace and object selectors, rule scopes, evaluation settings), and
// Kyverno 1.19's policy webhooks change nothing, so a live policy's spec
// reads back equal to its render, and HashOf(live) equals the render-hash
// annotation until someone edits the spec. The hash covers apiVersion,
// kind, name, namespace, the plan, template and managed-by labels, the
// annotation that switches Kyverno's pod-controller autogen off, and the
// spec; nothing the server sets. A vap policy is two objects, each with
// its hash; Policy.Hash covers both, and health checks and repairs each
// on its own (the binding carries the failure action; FailureAction of the
// ValidatingAdmissionPolicy itself is ErrNoFailureAction). testdata/live
// holds objects read back from a real API server with Kyverno 1.19.1, one
// per template and target.
//
// # Determinism and cost
//
// The same input gives the same bytes: every list is sorted (namespaces,
// selectors, exclusions, kinds) and no map order leaks. A policy spec does
// not depend on its namespace unless the namespace has its own selectors
// or named exclusions, so Render builds each distinct spec once, hashes it
// once, and gives each namespace its own maps over the spec's shared lists
// (Policy.Objects says what that asks of a caller changing an object).
package render
