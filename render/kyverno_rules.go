package render

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// JMESPath paths of the request in Kyverno's context.
const (
	newObject = "request.object"
	oldObject = "request.oldObject"
	// parentLabels is the context entry holding the labels of a /scale
	// request's parent.
	parentLabels = "parentLabels"
)

// kyvernoRules translates one bound rule for one namespace. A namespace
// wholly in scope gets one rule matching the kinds and their /scale. A
// namespace in scope through application selectors gets one rule for the
// kinds, whose preconditions test the selectors on the old and new
// objects' labels, and one rule per scalable kind for its /scale, which
// reads the parent's labels with an API call (a Scale has none).
func kyvernoRules(r RuleSpec, ns nsScope, message string, exclude *kyMatch) ([]kyRule, error) {
	cond, err := kyvernoCondition(r, ns)
	if err != nil {
		return nil, err
	}
	deny := kyDeny{Conditions: kyConditions{All: []kyCondition{cond}}}
	base := kyRule{
		Exclude:                exclude,
		SkipBackgroundRequests: true,
		Validate:               kyValidate{AllowExistingViolations: false, Message: message, Deny: deny},
	}
	scalable := r.scalableKinds()
	if !r.hasOp(OpUpdate) {
		scalable = nil // /scale is only ever written with UPDATE
	}
	main := base
	main.Name = r.Name
	main.Match = kyvernoMatch(r.Kinds, "", r.operationStrings())
	if ns.all {
		main.Match.Any[0].Resources.Kinds = append(main.Match.Any[0].Resources.Kinds, scaleSelectors(scalable)...)
		return []kyRule{main}, nil
	}
	main.Preconditions = &kyConditions{All: []kyCondition{isTrue(objectSelectorJMESPath(r, ns))}}
	rules := []kyRule{main}
	for _, k := range scalable {
		rules = append(rules, scaleRule(base, r, k, ns))
	}
	return rules, nil
}

// scaleRule matches the /scale of one kind and tests the application
// selectors on its parent, read with GET on the parent's URL.
func scaleRule(base kyRule, r RuleSpec, k Kind, ns nsScope) kyRule {
	rule := base
	rule.Name = scaleRuleName(r, k)
	rule.Match = kyvernoMatch([]Kind{k}, SubresourceScale, []string{string(OpUpdate)})
	rule.Context = []kyContextEntry{{
		Name: parentLabels,
		APICall: &kyAPICall{
			Method:   "GET",
			URLPath:  k.parentURL(),
			JMESPath: "metadata.labels || `{}`",
		},
	}}
	rule.Preconditions = &kyConditions{All: []kyCondition{
		{Key: "{{ request.subResource || '' }}", Operator: "Equals", Value: SubresourceScale},
		// Kyverno validates every {{ }} at apply time: it must start with a
		// known root (request, ...), a function call, or a context entry
		// name. A selector expression starts with "(", so it is wrapped in a
		// function that returns its argument.
		isTrue("not_null(" + selectorJMESPath(ns.selectors, parentLabels) + ")"),
	}}
	return rule
}

// parentURL is the API path of the object a /scale request is about, with
// Kyverno variables for the namespace and the name.
func (k Kind) parentURL() string {
	prefix := "/apis/" + k.Group + "/" + k.Version
	if k.Group == "" {
		prefix = "/api/" + k.Version
	}
	return prefix + "/namespaces/{{ request.namespace }}/" + k.Resource + "/{{ request.name }}"
}

// scaleRuleName names the /scale rule of a rule for a kind, e.g.
// "replicas-deployments-scale".
func scaleRuleName(r RuleSpec, k Kind) string {
	return r.Name + "-" + k.Resource + "-" + SubresourceScale
}

// selector is how a Kyverno rule names the kind: "Pod" for the core group
// (Kyverno cannot name the empty group, so any group matches), and
// "apps/*/Deployment" otherwise (every served version of the group), with
// "/scale" appended for the subresource.
func (k Kind) selector(subresource string) string {
	s := k.Kind
	if k.Group != "" {
		s = k.Group + "/*/" + k.Kind
	}
	if subresource != "" {
		s += "/" + subresource
	}
	return s
}

func kyvernoMatch(kinds []Kind, subresource string, ops []string) kyMatch {
	sels := make([]string, len(kinds))
	for i, k := range kinds {
		sels[i] = k.selector(subresource)
	}
	return kyMatch{Any: []kyFilter{{Resources: &kyResources{Kinds: sels, Operations: ops}}}}
}

func scaleSelectors(kinds []Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.selector(SubresourceScale)
	}
	return out
}

// objectSelectorJMESPath tests the application selectors on the labels of
// the objects a request involves: the new object (CREATE, UPDATE) and the
// old one (UPDATE, DELETE). Testing both on UPDATE means that removing an
// application's label does not take the same update out of the freeze. The
// operation guards keep a missing object (null labels) from satisfying a
// NotIn or DoesNotExist requirement.
func objectSelectorJMESPath(r RuleSpec, ns nsScope) string {
	var alts []string
	if r.hasOp(OpUpdate) || r.hasOp(OpDelete) {
		alts = append(alts, guarded(r.hasOp(OpCreate), "CREATE", selectorJMESPath(ns.selectors, oldObject+".metadata.labels")))
	}
	if r.hasOp(OpCreate) || r.hasOp(OpUpdate) {
		alts = append(alts, guarded(r.hasOp(OpDelete), "DELETE", selectorJMESPath(ns.selectors, newObject+".metadata.labels")))
	}
	return strings.Join(alts, " || ")
}

// guarded prefixes expr with "request.operation != '<op>' &&" when needed.
func guarded(need bool, op, expr string) string {
	if !need {
		return "(" + expr + ")"
	}
	return "(request.operation != '" + op + "' && (" + expr + "))"
}

// isTrue is the condition "the JMESPath expression is true".
func isTrue(expr string) kyCondition {
	return kyCondition{Key: "{{ " + expr + " }}", Operator: "Equals", Value: true}
}

// kyvernoCondition translates a rule's condition into the deny condition
// of its rule, with a case for every condition type; an unknown one is an
// *UnknownConditionError. Expressions default missing values (|| ...) so
// that they never fail on a missing field: an evaluation error would
// refuse the request in enforce mode.
func kyvernoCondition(r RuleSpec, ns nsScope) (kyCondition, error) {
	switch r.Condition {
	case Always:
		// Holds for every request the rule matches: its operations.
		return kyCondition{Key: "{{ request.operation }}", Operator: "AnyIn", Value: r.operationStrings()}, nil
	case ImagesChanged:
		spec := r.Kinds[0].PodSpec
		return isTrue(images(newObject+"."+spec) + " != " + images(oldObject+"."+spec)), nil
	case ReplicasChanged:
		f := r.replicasFields()
		return isTrue(replicas(newObject, f) + " " + replicasOperator(r.Direction) + " " + replicas(oldObject, f)), nil
	case RestartedAtChanged:
		return isTrue(changed(".spec.template.metadata.annotations.\"kubectl.kubernetes.io/restartedAt\"", "''")), nil
	case StorageRequestChanged:
		return isTrue(changed(".spec.resources.requests.storage", "''")), nil
	case DataChanged:
		return isTrue(strings.Join([]string{
			changed(".data", "''"), changed(".binaryData", "''"),
			changed(".stringData", "''"), changed(".immutable", "`false`"),
		}, " || ")), nil
	case LeavesApplication:
		// A scope guard (kyvernoGuard), whose precondition is that the
		// application's selector selects the old object.
		sel := []*metav1.LabelSelector{ns.appSelector(r.Application)}
		return isTrue("!(" + selectorJMESPath(sel, newObject+".metadata.labels") + ")"), nil
	}
	return kyCondition{}, unknownCondition(r)
}

// images lists the sorted "name=image" pairs of every container of the pod
// spec at path.
func images(path string) string {
	lists := []string{"containers", "initContainers", "ephemeralContainers"}
	parts := make([]string, len(lists))
	for i, l := range lists {
		parts[i] = path + "." + l + " || `[]`"
	}
	return "sort([" + strings.Join(parts, ", ") + "][].join('=', [name || '', image || '']))"
}

// replicas reads the replicas fields (spec.replicas) as a number that compares across
// representations. Kyverno 1.19.1 evaluates a request's rules with
// request.oldObject as the JSON decoder gives it (float64 numbers) but,
// after any rule of the same Policy that matched the request, puts back
// request.object as apimachinery decoded it (int64 numbers), and JMESPath
// equality tells 2 from 2.0: a later rule would see unchanged replicas as
// changed. Going through to_string and to_number makes both float64.
func replicas(obj string, fields []string) string {
	return "to_number(to_string(" + obj + "." + strings.Join(fields, ".") + " || `0`))"
}

func replicasOperator(d Direction) string {
	switch d {
	case DirectionUp:
		return ">"
	case DirectionDown:
		return "<"
	}
	return "!="
}

// changed compares a field of the new and old objects, a missing field
// reading as def.
func changed(field, def string) string {
	return "(" + newObject + field + " || " + def + ") != (" + oldObject + field + " || " + def + ")"
}

// kyvernoGuard translates a scope guard: an UPDATE of the template's kinds
// whose old object the application's selector selects (precondition) is
// denied when the new object is not selected (kyvernoCondition).
func kyvernoGuard(g RuleSpec, ns nsScope, message string, exclude *kyMatch) (kyRule, error) {
	cond, err := kyvernoCondition(g, ns)
	if err != nil {
		return kyRule{}, err
	}
	sel := []*metav1.LabelSelector{ns.appSelector(g.Application)}
	return kyRule{
		Name:                   g.Name,
		Match:                  kyvernoMatch(g.Kinds, "", g.operationStrings()),
		Exclude:                exclude,
		Preconditions:          &kyConditions{All: []kyCondition{isTrue(selectorJMESPath(sel, oldObject+".metadata.labels"))}},
		SkipBackgroundRequests: true,
		Validate: kyValidate{
			AllowExistingViolations: false,
			Message:                 message,
			Deny:                    kyDeny{Conditions: kyConditions{All: []kyCondition{cond}}},
		},
	}, nil
}
