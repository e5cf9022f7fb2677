package render

import (
	"bytes"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// Input is everything a render depends on. It is plain data: the caller
// gathers it (the plan, its resolved applications, the time) and Render
// computes.
type Input struct {
	// Plan is the plan to render. Its Status.Phase must already be
	// current: Render does not compute phases (tick the plan first).
	Plan *plan.ProtectionPlan
	// Applications are the plan's applications as resolved by the
	// embedder (applications scope only). Each application of the scope
	// must be present; others are ignored.
	Applications []plan.Application
	// ReleaseNamespace and ExcludedNamespaces are the namespaces no plan
	// may freeze (as plan.ClusterView knows them). A namespaceSelectors
	// scope leaves them out of every selector, with kube-system,
	// kube-public and kube-node-lease (plan.AlwaysLeftOut), and needs
	// ReleaseNamespace; other scopes do not read them (validation refuses
	// them by name).
	ReleaseNamespace   string
	ExcludedNamespaces []string
	// Kinds are the kinds the cluster serves (discovery facts, e.g. from
	// the CRDs): a kinds parameter or an excluded kind may name one as
	// <Kind>.<group>, and the scaling template covers those with a /scale
	// (custom_kinds.go). nil: the catalog's kinds only.
	Kinds plan.ServedKinds
	// Now is the instant rendered for: enforce messages say until when the
	// window interval containing Now lasts.
	Now time.Time
	// Target is the kind of policy to render; empty means TargetKyverno.
	Target Target
	// Compact asks for the compact layout: one policy per namespace
	// holding the rules of every template, in the plan's order, instead of
	// one policy per template and namespace. A write in scope then crosses
	// one policy (for kyverno-cel, one webhook) instead of one per
	// template; decisions and messages stay the same. See "Layouts" in the
	// package documentation.
	Compact bool
	// Clock asks, on a target with a clock (HasClock), for policies that
	// read the clock at admission: every rule refuses only from the
	// window's start instant to its end instant, and a scheduled plan
	// renders its policies up to Lead before its start (see clock.go).
	// Other targets ignore it.
	Clock bool
	// Lead is how long before the start a clocked render puts policies in
	// place, and warnings begin; zero means DefaultLead. A plan's
	// spec.warnings.lead overrides it (see Lead).
	Lead time.Duration
	// Warnings asks for the plans' advance warnings (warnings.go): a
	// warning policy per namespace in scope, warning writes within the
	// lead before the start, during the window and within the lead before
	// the end. A plan opts out with spec.warnings.disabled. Off, nothing
	// of it is rendered (the embedder's switch, as Clock is).
	Warnings bool
	// EdgeExecutor is the service account (namespace:name) the operator
	// impersonates to carry out the plan's edge actions; empty when it
	// carries out none. The plan's policies admit that account's writes
	// only for the plan's own actions (see EdgeExtraKey).
	EdgeExecutor string
	// Grants are the plan's break-glass grants (status.grants; errors name
	// them so): those in force at Now exempt their users as
	// spec.requesters.exclude.users does, and the others are ignored. On
	// a clocked render (Clock on a target with a clock) the policies test
	// each grant's instants themselves, so that the grant ends at its end
	// instant without a pass; elsewhere the exemption lasts until the
	// policies are rendered again after its end (see grants.go).
	Grants []plan.Grant
	// WindowOptions are passed to window.Parse wherever the render reads
	// the plan's window: the occurrences of the calendars its exceptions
	// name (window.WithCalendar), as the pass resolved them. Without them
	// a holiday is frozen like any other day: the enforce messages' "until"
	// and a clocked render's intervals would ignore it.
	WindowOptions []window.Option
}

// Result is a render: the policies that should exist in the cluster for the
// plan, sorted by namespace and name.
type Result struct {
	Policies []Policy
}

// Policy is one template rendered for one namespace, or in the compact
// layout every template of the plan.
type Policy struct {
	// Target is the target rendered to.
	Target Target
	// Template is the catalog name of the template; CompactTemplate in
	// the compact layout; ExemptTemplate for the record policy of exempt
	// requesters. It is the telark.io/template label.
	Template string
	// Templates are the catalog names of the templates whose rules the
	// policy holds, in the plan's order: Template, or in the compact
	// layout and the record policy every template of the plan.
	Templates []string
	// Parts are, for a policy of the compact layout (CompactTemplate),
	// its templates one by one, in the plan's order: what the standard
	// layout would render for each in the same namespace (its hash, also
	// on every object as AnnotationTemplateHashes) and which of the
	// policy's rules are its own. nil for every other policy. Health
	// reads them to name the templates of a drifted compact policy.
	Parts []TemplatePart
	// Namespace is the namespace the policy freezes (its objects live in
	// it for the Kyverno targets).
	Namespace string
	// Name is the name of the policy object (PolicyName).
	Name string
	// Hash is the render hash: the telark.io/render-hash annotation of the
	// object when there is one object; for several (a VAP and its binding)
	// the SHA-256 of their hashes joined by newlines.
	Hash string
	// Objects are the objects to apply: one kyverno.io/v1 Policy for the
	// kyverno target. Each carries the plan and template labels and its
	// own render-hash annotation. They are the caller's to change, with
	// one rule: the lists (JSON arrays) in a spec, and what they hold,
	// are shared with other policies of the render, so a list is replaced,
	// never changed in place. The unstructured helpers keep the rule
	// (SetNestedField, SetNestedSlice, RemoveNestedField and the rest
	// write only maps, which are each object's own; NestedSlice returns a
	// copy), and so does DeepCopy, which makes an object wholly its own.
	// Sharing keeps a large render's memory close to its output's size.
	Objects []*unstructured.Unstructured
}

// Render renders an active plan into its admission policies: one per
// template and namespace in scope (R-R2), or in the compact layout one
// per namespace; and, when the plan exempts requesters, one record policy
// per namespace (ExemptTemplate). A plan whose phase is not active
// renders to an empty Result and no error (R-R7): nothing stays in the
// cluster outside the window.
//
// Errors: an unknown or unimplemented target is an
// *UnsupportedTargetError; a plan that cannot be rendered (an invalid
// plan ID, exclusion, parameter or window, a missing application) is a
// *plan.ValidationError naming every field at fault. Both are 400. A
// template rule whose condition is outside Conditions (a fault of the
// catalog) is an *UnknownConditionError (500).
func Render(in Input) (Result, error) {
	if _, err := resolveTarget(in.Target); err != nil {
		return Result{}, err
	}
	if !Armed(in) {
		return Result{}, nil
	}
	c, err := compile(in)
	if err != nil {
		return Result{}, err
	}
	policies, err := translators[c.target].policies(c)
	if err != nil {
		return Result{}, err
	}
	sort.Slice(policies, func(i, j int) bool {
		if policies[i].Namespace != policies[j].Namespace {
			return policies[i].Namespace < policies[j].Namespace
		}
		return policies[i].Name < policies[j].Name
	})
	return Result{Policies: policies}, nil
}

// Objects returns every object of the result, in order.
func (r Result) Objects() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, p := range r.Policies {
		out = append(out, p.Objects...)
	}
	return out
}

// YAML writes the objects as a YAML stream that kubectl apply -f - accepts,
// each document introduced by "---".
func (r Result) YAML() ([]byte, error) {
	var b bytes.Buffer
	for _, o := range r.Objects() {
		doc, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(doc)
	}
	return b.Bytes(), nil
}
