package render

import "slices"

// Operation is an admission operation a rule matches.
type Operation string

// The admission operations rules match. CONNECT is never matched.
const (
	OpCreate Operation = "CREATE"
	OpUpdate Operation = "UPDATE"
	OpDelete Operation = "DELETE"
)

// SubresourceScale is the only subresource a rule may name: /scale, which
// kubectl scale and autoscalers write. Status subresources are never
// matched: they are written by controllers and kubelets, and a freeze must
// not stop them from reporting.
const SubresourceScale = "scale"

// RuleSpec is one rule of a template, in the vocabulary every target
// translates. A template's rule specs may refer to its parameters (the kinds
// list, the scaling direction); Render binds them to a plan's values first.
type RuleSpec struct {
	// Name is the rule's name in every rendered policy: a DNS label,
	// unique within its template.
	Name string
	// What names the change for people, as a noun phrase that reads after
	// "would be blocked by protection plan X:" and before "is frozen by
	// protection plan X until ...", e.g. "changing container images".
	What string
	// Kinds are the kinds matched. Empty when KindsParam is set.
	Kinds []Kind
	// KindsParam names a stringList parameter of the template whose value
	// (or default) lists the kinds, by name, from KnownKinds.
	KindsParam string
	// Subresources are matched in addition to the kinds themselves; only
	// SubresourceScale, and only for kinds that have one.
	Subresources []string
	// Operations are the admission operations matched.
	Operations []Operation
	// Condition is the test on the request.
	Condition ConditionType
	// Direction narrows ReplicasChanged; DirectionParam, when set, names
	// the string parameter it is read from.
	Direction      Direction
	DirectionParam string
	// Application names the application whose selector a LeavesApplication
	// rule tests (user text: it only ever reaches messages).
	Application string
	// ReplicasPath are the fields ReplicasChanged compares; nil is
	// spec.replicas. Set on the rules of kinds whose CRD declares another
	// replicas path (replicasPathRules).
	ReplicasPath []string
}

// clone returns a deep copy, so that callers never alias the catalog.
func (r RuleSpec) clone() RuleSpec {
	r.Kinds = slices.Clone(r.Kinds)
	r.Subresources = slices.Clone(r.Subresources)
	r.Operations = slices.Clone(r.Operations)
	r.ReplicasPath = slices.Clone(r.ReplicasPath)
	return r
}

// replicasFields are the fields ReplicasChanged compares.
func (r RuleSpec) replicasFields() []string {
	if r.ReplicasPath == nil {
		return []string{"spec", "replicas"}
	}
	return r.ReplicasPath
}

// matchesScale reports whether the rule matches the /scale subresource of
// its scalable kinds.
func (r RuleSpec) matchesScale() bool {
	return slices.Contains(r.Subresources, SubresourceScale)
}

// scalableKinds are the rule's kinds whose /scale it matches.
func (r RuleSpec) scalableKinds() []Kind {
	if !r.matchesScale() {
		return nil
	}
	var out []Kind
	for _, k := range r.Kinds {
		if k.Scalable {
			out = append(out, k)
		}
	}
	return out
}

// hasOp reports whether the rule matches op.
func (r RuleSpec) hasOp(op Operation) bool { return slices.Contains(r.Operations, op) }

// operationStrings returns the operations as strings, in their declared
// order.
func (r RuleSpec) operationStrings() []string {
	out := make([]string, len(r.Operations))
	for i, op := range r.Operations {
		out[i] = string(op)
	}
	return out
}
