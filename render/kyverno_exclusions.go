package render

// kyvernoExclude writes the exclude block every rule of a policy carries
// (R-R3), as filters of which any one excludes the request:
//
//  1. the exemptions (Kubernetes' own control plane), by subject, then
//     the plan's exempt requesters (spec.requesters.exclude), except in
//     the record policy, which matches only them;
//  2. the excluded kinds, each with its /scale when it has one: a rule
//     matching Deployment/scale is not excluded by "Deployment" alone (the
//     plain kind selector has no subresource), and a /scale the kind does
//     not have (DaemonSet/scale) makes Kyverno warn on every write of the
//     policy that it cannot resolve it. Kinds are named without group, so
//     "Deployment" excludes the kind in every group. Kyverno also lets
//     "Pod" exclude pods/ephemeralcontainers, as it lets it match them;
//  3. the named resources of this namespace, grouped by kind, each kind
//     with its /scale again when it has one. They name no namespace: a namespaced Policy
//     only sees its own namespace, and Kyverno refuses namespace filters
//     in one. Exclusions of other namespaces are left out.
func kyvernoExclude(kinds []string, ns nsScope, exempt requesterSet, hasScale func(string) bool) *kyMatch {
	m := &kyMatch{Any: []kyFilter{{Subjects: append(kyvernoSubjects(), exempt.kyvernoSubjects()...)}}}
	if len(kinds) > 0 {
		m.Any = append(m.Any, kyFilter{Resources: &kyResources{Kinds: withScale(kinds, hasScale)}})
	}
	for _, group := range groupByKind(ns.excluded) {
		names := make([]string, len(group))
		for i, r := range group {
			names[i] = r.Name
		}
		m.Any = append(m.Any, kyFilter{Resources: &kyResources{
			Kinds: withScale([]string{group[0].Kind}, hasScale),
			Names: names,
		}})
	}
	return m
}

func kyvernoSubjects() []kySubject {
	out := make([]kySubject, len(exemptions))
	for i, e := range exemptions {
		out[i] = kySubject{Kind: e.Kind, Name: e.Name}
	}
	return out
}

// withScale lists each kind followed by its /scale, when it has one.
func withScale(kinds []string, hasScale func(string) bool) []string {
	out := make([]string, 0, 2*len(kinds))
	for _, name := range kinds {
		k := kyvernoKindSelector(name)
		out = append(out, k)
		if hasScale(name) {
			out = append(out, k+"/"+SubresourceScale)
		}
	}
	return out
}
