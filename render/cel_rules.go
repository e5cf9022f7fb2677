package render

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The CEL translation of the rule vocabulary, shared by the kyverno-cel
// and vap targets (cel_kyverno.go, vap.go wrap it in their objects).
//
// A policy is one template in one namespace, as for the kyverno target, or
// in the compact layout every template in one namespace (policyUnit):
//
//   - matchConstraints.resourceRules are the union of its rules' kinds,
//     operations and subresources (/scale, and pods/ephemeralcontainers
//     which Kyverno's kind Pod also matches); excludeResourceRules are the
//     plan's excluded kinds, each with all its subresources;
//   - matchConditions leave out Kubernetes' own control plane (exemptions)
//     and the named resources excluded in the namespace, by name (which is
//     the parent's name for a subresource);
//   - validations are one per rule, in rule order, each the negation of
//     "this rule applies": its operations, resources and subresource when
//     the policy matches more than the rule, the application selectors, and
//     the condition. Both Kyverno and the API server report the first
//     validation that fails, which is the rule Explain names.
//
// Objects are read with optional selection (x.?f.orValue(default)) so that
// a missing field never errors: with failurePolicy Fail, an evaluation
// error refuses the request. A missing object is never read: Kyverno
// passes an empty map for object on DELETE and oldObject on CREATE, the
// API server null; expressions that read them are guarded by the
// operation, as the kyverno target's preconditions are.

// celOptions is how the two CEL targets differ.
type celOptions struct {
	// exactVersions writes each kind's served version in resource rules
	// (vap: the API server then type-checks the expressions against the
	// kinds' schemas, and matchPolicy Equivalent still converts requests
	// of other versions); otherwise "*", every version (kyverno-cel, as
	// the kyverno target's "apps/*/Deployment").
	exactVersions bool
	// scaleByMembers matches the /scale of an applications scope by the
	// members' names (vap: the API server cannot read a Scale's parent);
	// otherwise the parent's labels are read with resource.Get.
	scaleByMembers bool
	// reason, when set, is every validation's reason.
	reason *metav1.StatusReason
	// text is a message as the target writes it.
	text func(string) string
	// dynObjects reads the objects' fields through dyn(): in the compact
	// layout a policy matches every kind of every template, and the API
	// server type-checks each validation against each of them (a
	// ConfigMap has no spec.replicas), although each validation's guard
	// lets only its own rule's kinds reach the read.
	dynObjects bool
}

// celSpec is the CEL translation of one policy for one namespace.
type celSpec struct {
	match       admissionregistrationv1.MatchResources
	conditions  []admissionregistrationv1.MatchCondition
	variables   []admissionregistrationv1.Variable
	validations []admissionregistrationv1.Validation
}

// celTranslate translates the rules of one policy (a policyUnit) for a
// namespace. A rule with an unknown condition is an
// *UnknownConditionError.
func celTranslate(c *compiled, u policyUnit, ns nsScope, opt celOptions) (celSpec, error) {
	rules := u.rules
	if slices.ContainsFunc(rules, hasReplicasPath) {
		// The API server type-checks every validation against every kind
		// the policy matches: spec.instances is undefined on a
		// Deployment, spec.replicas on a kind that names its replicas
		// otherwise.
		opt.dynObjects = true
	}
	perRule := make([][]admissionregistrationv1.NamedRuleWithOperations, len(rules))
	var union []admissionregistrationv1.NamedRuleWithOperations
	for i, r := range rules {
		perRule[i] = celEntries(r, ns, opt)
		union = appendDistinct(union, perRule[i]...)
	}
	vars := &celVars{}
	spec := celSpec{
		match:      celMatchResources(union, c.excludedKindList(), opt),
		conditions: celConditions(c, ns, u.record),
	}
	all := triplesOf(union)
	for i, r := range rules {
		v, err := celValidation(c, r, ns, opt, vars, matchGuard(triplesOf(perRule[i]), all, vars))
		if err != nil {
			return celSpec{}, err
		}
		if u.record {
			v.Message = opt.text(strings.TrimSuffix(recordPrefix, " ") + c.recordSuffix(r.What))
			v.MessageExpression = celString(opt.text(recordPrefix)) + " + " + celRecordRequester + " + " +
				celString(opt.text(c.recordSuffix(r.What)))
		}
		spec.validations = append(spec.validations, v)
	}
	if u.warn {
		spec.validations = c.celWarnValidations(spec.validations[0], opt)
	}
	spec.variables = vars.declarations()
	return spec, nil
}

// celRecordRequester is the requester's user name in a record's message
// expression: a line break reads as a space (the API server would drop a
// message holding one for the static message, which names nobody).
// Neither engine evaluates a message expression's result.
const celRecordRequester = celUsername + `.replace("\r", " ").replace("\n", " ")`

// celRecordText is what celRecordRequester makes of a user name.
func celRecordText(u string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(u)
}

// celValidation translates one rule: the negation of its match guard, its
// scope and its condition.
func celValidation(c *compiled, r RuleSpec, ns nsScope, opt celOptions, vars *celVars, guard []string) (admissionregistrationv1.Validation, error) {
	parts := guard
	if s := celScope(r, ns, opt, vars); s != "" {
		parts = append(parts, s)
	}
	cond, err := celCondition(r, ns, vars, opt)
	if err != nil {
		return admissionregistrationv1.Validation{}, err
	}
	if cond != "" {
		parts = append(parts, cond)
	}
	v := admissionregistrationv1.Validation{Expression: "false", Message: opt.text(c.message(r.What)), Reason: opt.reason}
	if len(parts) > 0 {
		v.Expression = "!(" + strings.Join(parts, " && ") + ")"
	}
	if r.Condition == LeavesApplication {
		prefix, suffix := c.guardMessageParts(r.Application)
		v.MessageExpression = celString(opt.text(prefix)) + " + request.kind.kind + \" \" + request.?name.orValue(\"\") + " +
			celString(opt.text(suffix))
	}
	return v, nil
}

// celScope tests the application selectors: on the old and new objects'
// labels (guarded by the operation, as objectSelectorJMESPath), and for
// /scale on the parent's labels or the members' names. A scope guard tests
// its application's selector on the old object's labels (and celCondition
// on the new one's). Empty when the whole namespace is in scope.
func celScope(r RuleSpec, ns nsScope, opt celOptions, vars *celVars) string {
	if ns.all {
		return ""
	}
	if r.Condition == LeavesApplication {
		return celSelectors([]*metav1.LabelSelector{ns.appSelector(r.Application)}, vars.use(varOldLabels))
	}
	var alts []string
	if r.hasOp(OpUpdate) || r.hasOp(OpDelete) {
		alts = append(alts, celGuarded(r.hasOp(OpCreate), OpCreate, celSelectors(ns.selectors, vars.use(varOldLabels))))
	}
	if r.hasOp(OpCreate) || r.hasOp(OpUpdate) {
		alts = append(alts, celGuarded(r.hasOp(OpDelete), OpDelete, celSelectors(ns.selectors, vars.use(varNewLabels))))
	}
	main := "(" + strings.Join(alts, " || ") + ")"
	scalable := r.scalableKinds()
	if !r.hasOp(OpUpdate) || len(scalable) == 0 {
		return main
	}
	var scale string
	if opt.scaleByMembers {
		scale = celMembers(scalable, ns)
	} else {
		scale = celSelectors(ns.selectors, vars.use(varParentLabels))
	}
	return "(" + vars.use(varSubresource) + ` == "scale" ? ` + scale + " : " + main + ")"
}

// celGuarded prefixes expr with "request.operation != '<op>' &&" when the
// rule also matches op, whose request lacks the object expr reads.
func celGuarded(need bool, op Operation, expr string) string {
	if !need {
		return expr
	}
	return "(request.operation != " + celString(string(op)) + " && " + expr + ")"
}

// celMembers is true for a /scale of one of the applications' members.
func celMembers(kinds []Kind, ns nsScope) string {
	var alts []string
	for _, k := range kinds {
		if names := ns.members[k.Kind]; len(names) > 0 {
			alts = append(alts, "(request.resource.resource == "+celString(k.Resource)+" && "+
				celIn(`request.?name.orValue("")`, names)+")")
		}
	}
	switch len(alts) {
	case 0:
		return "false"
	case 1:
		return alts[0]
	}
	return "(" + strings.Join(alts, " || ") + ")"
}

// celCondition translates a rule's condition, with a case for every
// condition type; an unknown one is an *UnknownConditionError. Empty for
// Always: the match is the whole test.
func celCondition(r RuleSpec, ns nsScope, vars *celVars, opt celOptions) (string, error) {
	obj, old := "object", "oldObject"
	if opt.dynObjects {
		obj, old = "dyn(object)", "dyn(oldObject)"
	}
	changed := func(path, def string) string { return celField(obj, path, def) + " != " + celField(old, path, def) }
	switch r.Condition {
	case Always:
		return "", nil
	case ImagesChanged:
		n, o := vars.use(imagesVar("new", r.Kinds[0].PodSpec)), vars.use(imagesVar("old", r.Kinds[0].PodSpec))
		return "(size(" + n + ") != size(" + o + ") || !" + n + ".all(i, i in " + o + "))", nil
	case ReplicasChanged:
		path := ".?" + strings.Join(r.replicasFields(), ".?")
		return celField(obj, path, "0") + " " + replicasOperator(r.Direction) + " " + celField(old, path, "0"), nil
	case RestartedAtChanged:
		return changed(`.?spec.?template.?metadata.?annotations[?"kubectl.kubernetes.io/restartedAt"]`, `""`), nil
	case StorageRequestChanged:
		// Read as dyn: the API server's type checker drops maps of
		// quantities from the schema it builds (a quantity is "string or
		// number"), and would report spec.resources.requests as undefined.
		return celField("dyn(object)", `.?spec.?resources.?requests[?"storage"]`, `""`) + " != " +
			celField("dyn(oldObject)", `.?spec.?resources.?requests[?"storage"]`, `""`), nil
	case DataChanged:
		var alts []string
		for _, f := range dataFields(r.Kinds) {
			alts = append(alts, changed(".?"+f, "{}"))
		}
		alts = append(alts, changed(".?immutable", "false"))
		return "(" + strings.Join(alts, " || ") + ")", nil
	case LeavesApplication:
		// A scope guard, whose scope (celScope) is that the
		// application's selector selects the old object.
		return "!" + celSelectors([]*metav1.LabelSelector{ns.appSelector(r.Application)}, vars.use(varNewLabels)), nil
	}
	return "", unknownCondition(r)
}

// celField reads an optional path (".?spec.?replicas") of obj, a missing
// field reading as def.
func celField(obj, path, def string) string { return obj + path + ".orValue(" + def + ")" }

// dataFields are the content fields of ConfigMaps and Secrets that the
// kinds have (a field a kind lacks is missing on both sides, so leaving it
// out changes nothing, and keeps the API server's type check quiet).
func dataFields(kinds []Kind) []string {
	has := map[string]bool{}
	for _, k := range kinds {
		switch k.Kind {
		case KindConfigMap.Kind:
			has["data"], has["binaryData"] = true, true
		case KindSecret.Kind:
			has["data"], has["stringData"] = true, true
		default:
			has["data"], has["binaryData"], has["stringData"] = true, true, true
		}
	}
	var out []string
	for _, f := range []string{"data", "binaryData", "stringData"} {
		if has[f] {
			out = append(out, f)
		}
	}
	return out
}
