package render

import (
	"encoding/json"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Matching of the CEL targets: resource rules, exclusions, exemptions, and
// the part of a validation that says which requests its rule matches.

// celEntries are the resource rules of one rule: per API group, its kinds
// with its operations; with UPDATE, /scale of the scalable kinds it
// freezes and pods/ephemeralcontainers (kubectl debug: Kyverno's kind Pod
// matches it, so the kyverno target freezes it too), in an UPDATE-only
// rule of their own. With scaleByMembers and application selectors, each
// kind's /scale is matched by its members' names, and not at all without
// members (an empty resourceNames would match every name).
func celEntries(r RuleSpec, ns nsScope, opt celOptions) []admissionregistrationv1.NamedRuleWithOperations {
	var out []admissionregistrationv1.NamedRuleWithOperations
	byMembers := opt.scaleByMembers && !ns.all
	for _, kinds := range byGroup(r.Kinds) {
		out = append(out, celRule(kinds, opt, r.operationStrings(), resources(kinds, ""), nil))
		if !r.hasOp(OpUpdate) || r.Condition == LeavesApplication {
			continue
		}
		var subs []string
		if slices.Contains(kinds, KindPod) {
			subs = append(subs, KindPod.Resource+"/ephemeralcontainers")
		}
		for _, k := range r.scalableKinds() {
			if slices.Contains(kinds, k) && !byMembers {
				subs = append(subs, k.Resource+"/"+SubresourceScale)
			}
		}
		if len(subs) > 0 {
			out = append(out, celRule(kinds, opt, []string{string(OpUpdate)}, subs, nil))
		}
	}
	if byMembers && r.hasOp(OpUpdate) {
		for _, k := range r.scalableKinds() {
			if names := ns.members[k.Kind]; len(names) > 0 {
				out = append(out, celRule([]Kind{k}, opt, []string{string(OpUpdate)}, resources([]Kind{k}, SubresourceScale), names))
			}
		}
	}
	return out
}

// byGroup splits kinds by API group, groups in order of first appearance.
func byGroup(kinds []Kind) [][]Kind {
	var out [][]Kind
	for _, k := range kinds {
		i := slices.IndexFunc(out, func(g []Kind) bool { return g[0].Group == k.Group })
		if i < 0 {
			out = append(out, []Kind{k})
			continue
		}
		out[i] = append(out[i], k)
	}
	return out
}

func resources(kinds []Kind, subresource string) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Resource
		if subresource != "" {
			out[i] += "/" + subresource
		}
	}
	return out
}

// celRule writes one resource rule for kinds of one group.
func celRule(kinds []Kind, opt celOptions, ops, res, names []string) admissionregistrationv1.NamedRuleWithOperations {
	versions := []string{"*"}
	if opt.exactVersions {
		versions = nil
		for _, k := range kinds {
			if !slices.Contains(versions, k.Version) {
				versions = append(versions, k.Version)
			}
		}
		slices.Sort(versions)
	}
	opTypes := make([]admissionregistrationv1.OperationType, len(ops))
	for i, op := range ops {
		opTypes[i] = admissionregistrationv1.OperationType(op)
	}
	scope := admissionregistrationv1.AllScopes
	return admissionregistrationv1.NamedRuleWithOperations{
		ResourceNames: names,
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: opTypes,
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{kinds[0].Group}, APIVersions: versions, Resources: res, Scope: &scope,
			},
		},
	}
}

// appendDistinct appends the rules not in list yet.
func appendDistinct(list []admissionregistrationv1.NamedRuleWithOperations, rules ...admissionregistrationv1.NamedRuleWithOperations) []admissionregistrationv1.NamedRuleWithOperations {
	for _, r := range rules {
		key, _ := json.Marshal(r)
		if !slices.ContainsFunc(list, func(x admissionregistrationv1.NamedRuleWithOperations) bool {
			k, _ := json.Marshal(x)
			return string(k) == string(key)
		}) {
			list = append(list, r)
		}
	}
	return list
}

// celMatchResources writes matchConstraints: the rules, the excluded
// kinds (each with every subresource, as Explain excludes a kind whatever
// the subresource; kinds no template knows exclude nothing and are left
// out), and the fields the API server would default.
func celMatchResources(rules []admissionregistrationv1.NamedRuleWithOperations, kinds []Kind, opt celOptions) admissionregistrationv1.MatchResources {
	var exclude []admissionregistrationv1.NamedRuleWithOperations
	for _, group := range byGroup(kinds) {
		res := append(resources(group, ""), resources(group, "*")...)
		slices.Sort(res)
		exclude = append(exclude, celRule(group, celOptions{}, []string{string(admissionregistrationv1.OperationAll)}, res, nil))
	}
	equivalent := admissionregistrationv1.Equivalent
	return admissionregistrationv1.MatchResources{
		NamespaceSelector:    &metav1.LabelSelector{},
		ObjectSelector:       &metav1.LabelSelector{},
		ResourceRules:        rules,
		ExcludeResourceRules: exclude,
		MatchPolicy:          &equivalent,
	}
}

// celConditions are the match conditions: the exemptions, the plan's
// requesters, and the named resources excluded in the namespace, by
// resource and name (the name of a subresource request is its parent's).
// Named kinds no template knows exclude nothing and are left out. The
// plan's requesters: exempt ones are left out (exempt-requesters) and,
// with include, only included ones are matched (included-requesters); the
// record policy matches only exempt requesters (record-exempt-requesters)
// instead of leaving them out.
func celConditions(c *compiled, ns nsScope, record bool) []admissionregistrationv1.MatchCondition {
	out := []admissionregistrationv1.MatchCondition{{Name: "exempt-control-plane", Expression: celExemptions()}}
	if !c.exempt.empty() && !record {
		out = append(out, admissionregistrationv1.MatchCondition{Name: "exempt-requesters", Expression: "!" + c.exempt.celTest()})
	}
	if len(c.grants) > 0 && !record {
		out = append(out, admissionregistrationv1.MatchCondition{Name: "exempt-granted-requesters", Expression: "!" + c.grants.celTest()})
	}
	if c.edge.on() {
		out = append(out, admissionregistrationv1.MatchCondition{Name: "exempt-edge-executor", Expression: "!" + c.edge.celTest()})
	}
	if !c.include.empty() {
		out = append(out, admissionregistrationv1.MatchCondition{Name: "included-requesters", Expression: c.include.celTest()})
	}
	if record {
		var alts []string
		if !c.exempt.empty() {
			alts = append(alts, c.exempt.celTest())
		}
		if len(c.grants) > 0 { // within their grant only
			alts = append(alts, c.grants.celTest())
		}
		out = append(out, admissionregistrationv1.MatchCondition{Name: "record-exempt-requesters", Expression: strings.Join(alts, " || ")})
	}
	var alts []string
	for _, group := range groupByKind(ns.excluded) {
		k, ok := kindByName(group[0].Kind)
		if !ok {
			continue
		}
		names := make([]string, len(group))
		for i, r := range group {
			names[i] = r.Name
		}
		alts = append(alts, "(request.resource.resource == "+celString(k.Resource)+" && "+celIn(`request.?name.orValue("")`, names)+")")
	}
	if len(alts) > 0 {
		out = append(out, admissionregistrationv1.MatchCondition{
			Name: "excluded-resources", Expression: "!(" + strings.Join(alts, " || ") + ")",
		})
	}
	return out
}

// triple is a kind of request a policy can match: an operation, a
// resource and a subresource ("" for the resource itself).
type triple struct{ op, resource, sub string }

func triplesOf(rules []admissionregistrationv1.NamedRuleWithOperations) map[triple]bool {
	out := map[triple]bool{}
	for _, r := range rules {
		for _, op := range r.Operations {
			for _, res := range r.Resources {
				name, sub, _ := strings.Cut(res, "/")
				out[triple{string(op), name, sub}] = true
			}
		}
	}
	return out
}

// matchGuard returns the tests a validation needs so that its rule only
// judges the requests it matches, when its policy matches more (another
// rule's kinds, operations or subresources). It starts from the three
// tests (operation, resource, subresource, each on the values the rule
// matches) and drops every test without which no request of the policy
// outside the rule would pass.
func matchGuard(rule, policy map[triple]bool, vars *celVars) []string {
	values := func(f func(triple) string) []string {
		var out []string
		for t := range rule {
			if v := f(t); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		expr string
		get  func(triple) string
		keep []string
		on   bool
	}{
		{"request.operation", func(t triple) string { return t.op }, values(func(t triple) string { return t.op }), true},
		{"request.resource.resource", func(t triple) string { return t.resource }, values(func(t triple) string { return t.resource }), true},
		{"variables." + varSubresource, func(t triple) string { return t.sub }, values(func(t triple) string { return t.sub }), true},
	}
	leaks := func() bool {
		for t := range policy {
			if rule[t] {
				continue
			}
			passes := true
			for _, x := range tests {
				if x.on && !slices.Contains(x.keep, x.get(t)) {
					passes = false
				}
			}
			if passes {
				return true
			}
		}
		return false
	}
	for i := len(tests) - 1; i >= 0; i-- {
		tests[i].on = false
		if leaks() {
			tests[i].on = true
		}
	}
	var out []string
	for i, x := range tests {
		if x.on {
			if i == 2 {
				vars.use(varSubresource)
			}
			out = append(out, celIn(x.expr, x.keep))
		}
	}
	return out
}
