package violations

// Checkpoint merges what one checkpoint read into a plan's ledger: the
// violations read from PolicyViolation events and from PolicyReports.
//
// Only decisions count: results fail, warn and error. PolicyReports hold a
// pass or skip result for every rule of every policy that saw a resource,
// and Kyverno's events of a policy with several rules can carry the rules
// that passed (a scope guard next to the rule that failed); neither is
// something a plan caught.
//
// Events are the record (each decision, refused or audited). A
// PolicyReport holds the latest result per resource and rule of admitted
// requests, which the events of the same decision already say; its
// results are merged only for a policy, rule and resource the ledger has
// no event-sourced violation for (reports outlive events by far), so that
// a decision is not counted twice, once per source.
func Checkpoint(l Ledger, fromEvents, fromReports []Violation) Ledger {
	l = l.Merge(decisions(fromEvents))
	return l.Merge(reportGaps(l, decisions(fromReports)))
}

// decisions keeps the results fail, warn and error.
func decisions(vs []Violation) []Violation {
	out := make([]Violation, 0, len(vs))
	for _, v := range vs {
		switch v.Result {
		case ResultFail, ResultWarn, ResultError:
			out = append(out, v)
		}
	}
	return out
}

// reportGaps keeps the PolicyReport violations whose policy, rule and
// resource have no event-sourced violation in the ledger.
func reportGaps(l Ledger, fromReports []Violation) []Violation {
	type k struct{ policyNS, policy, rule, kind, ns, name string }
	key := func(v Violation) k {
		return k{v.PolicyNamespace, v.Policy, v.Rule, v.Resource.Kind, v.Resource.Namespace, v.Resource.Name}
	}
	seen := map[k]bool{}
	for _, v := range l.Violations {
		if v.Source == SourceEvent {
			seen[key(v)] = true
		}
	}
	var out []Violation
	for _, v := range fromReports {
		if !seen[key(v)] {
			out = append(out, v)
		}
	}
	return out
}
