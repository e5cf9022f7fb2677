package render

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// ConditionType is the closed vocabulary of "what changed" tests a rule can
// make (Conditions lists it). Each target translates every type
// (kyvernoCondition, celCondition) and Explain evaluates every type in Go
// (conditionHolds), each in one switch with a case per type; a type
// outside the set is an *UnknownConditionError, never "no condition". A
// new type needs a case in each switch:
// TestConditions_EveryConditionHasATranslationInEveryTarget fails until it
// has them.
type ConditionType string

const (
	// Always holds for every request the rule matches (by kind, operation
	// and scope).
	Always ConditionType = "Always"
	// ImagesChanged holds when the sorted name=image pairs of the pod
	// spec's containers, initContainers and ephemeralContainers differ
	// between the old and the new object. Reordering containers is not an
	// image change; adding, removing or renaming one is.
	ImagesChanged ConditionType = "ImagesChanged"
	// ReplicasChanged holds when spec.replicas differs (a missing value
	// counts as 0, as a Scale omits replicas: 0). Direction narrows it to
	// increases or decreases.
	ReplicasChanged ConditionType = "ReplicasChanged"
	// RestartedAtChanged holds when the pod template annotation
	// kubectl.kubernetes.io/restartedAt is added, changed or removed: each
	// of them starts a new rollout.
	RestartedAtChanged ConditionType = "RestartedAtChanged"
	// StorageRequestChanged holds when spec.resources.requests.storage
	// differs: a volume resize.
	StorageRequestChanged ConditionType = "StorageRequestChanged"
	// DataChanged holds when data, binaryData, stringData (empty and
	// missing are the same) or immutable (missing is false) differ: the
	// content of a ConfigMap or Secret, not its labels or annotations.
	DataChanged ConditionType = "DataChanged"
	// LeavesApplication holds on an UPDATE when the application's selector
	// (RuleSpec.Application) selects the old object and not the new one:
	// the update moves the object out of the application. No catalog
	// template uses it: Render adds a scope guard of this type to every
	// policy of a namespace in scope through application selectors (see
	// scopeGuards), so that an update that only removes an application's
	// label cannot take the object out of the freeze before the change the
	// freeze is about.
	//
	// Its test splits as a rule's does into scope and condition: the
	// request is in scope when the selector selects the old object
	// (kyvernoGuard's precondition, celScope, Explain's inScope), and the
	// condition holds when it does not select the new one
	// (kyvernoCondition, celCondition, conditionHolds).
	LeavesApplication ConditionType = "LeavesApplication"
)

// Direction narrows ReplicasChanged.
type Direction string

// Directions of a replica change.
const (
	DirectionAny  Direction = "any"
	DirectionUp   Direction = "up"
	DirectionDown Direction = "down"
)

// conditions is the closed set of condition types, in the order declared.
var conditions = []ConditionType{
	Always, ImagesChanged, ReplicasChanged, RestartedAtChanged, StorageRequestChanged, DataChanged, LeavesApplication,
}

// Conditions returns every condition type, in a stable order: the closed
// set that every target translates and Explain evaluates.
func Conditions() []ConditionType { return slices.Clone(conditions) }

// known reports whether c is in the closed set.
func (c ConditionType) known() bool { return slices.Contains(conditions, c) }

// UnknownConditionError is returned by Render and Explain for a rule whose
// condition is outside Conditions. Plans cannot name conditions: only the
// catalog can hold such a rule, so the library, not the caller, is at
// fault (500). Render and Explain check every rule of the plan's templates
// before anything is translated or evaluated (checkConditions), so Explain
// refuses whatever the request; each target's translation and Explain's
// evaluation refuse one too, instead of reading it as Always.
type UnknownConditionError struct {
	// Field is the plan's template entry whose rule it is, e.g.
	// spec.templates[0]; nil when a translation or an evaluation found it.
	Field *field.Path
	// Template is the rule's template, when known; Rule is the rule's
	// name.
	Template string
	Rule     string
	// Condition is the condition found.
	Condition ConditionType
}

func (e *UnknownConditionError) Error() string {
	var b strings.Builder
	b.WriteString("render: ")
	if e.Field != nil {
		b.WriteString(e.Field.String() + ": ")
	}
	rule := e.Rule
	if e.Template != "" {
		rule = e.Template + "/" + e.Rule
	}
	fmt.Fprintf(&b, "rule %q has unknown condition %q (known: %s)", rule, e.Condition, conditionNames())
	return b.String()
}

// HTTPCode is 500: the catalog is at fault, not the request.
func (e *UnknownConditionError) HTTPCode() int { return http.StatusInternalServerError }

var _ plan.Coder = (*UnknownConditionError)(nil)

// unknownCondition is the error of a translation or evaluation that met a
// rule whose condition is outside the closed set.
func unknownCondition(r RuleSpec) error {
	return &UnknownConditionError{Rule: r.Name, Condition: r.Condition}
}

// conditionNames lists the condition types, for error messages.
func conditionNames() string {
	names := make([]string, len(conditions))
	for i, c := range conditions {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// checkConditions refuses the first rule of a bound template whose
// condition is outside the closed set. refs are the plan's template
// entries, at fld.
func checkConditions(templates []boundTemplate, refs []plan.TemplateRef, fld *field.Path) error {
	for _, bt := range templates {
		for _, r := range bt.rules {
			if r.Condition.known() {
				continue
			}
			i := slices.IndexFunc(refs, func(ref plan.TemplateRef) bool { return ref.Name == bt.name })
			return &UnknownConditionError{Field: fld.Index(i), Template: bt.name, Rule: r.Name, Condition: r.Condition}
		}
	}
	return nil
}
