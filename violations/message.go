package violations

import "strings"

// Kyverno 1.19 writes two shapes of PolicyViolation message (its
// pkg/event/events.go):
//
//	on the policy:   "<Kind> <ns>/<name>: [<rule>] <status>[ (blocked)][; <message>]"
//	                 ("<Kind> <name>: ..." for a cluster-scoped resource; no
//	                 "[<rule>] " when the rule has no name, as in CEL policies)
//	on the resource: "policy <policy>/<rule> <status>: <message>"
//
// Kyverno cuts every message at 1,024 bytes (1,021 and "..."), so the
// policy's message may be shorter on one event than on the other.

// blockedSuffix follows the status of a refused request on the policy.
const blockedSuffix = " (blocked)"

// resourcePrefix starts the message on the resource.
const resourcePrefix = "policy "

// statuses are the rule statuses Kyverno writes, in the order tried.
var statuses = []Result{ResultFail, ResultError, ResultWarn, ResultPass, ResultSkip}

// policyNote is a parsed message of an event on a policy.
type policyNote struct {
	// Kind, Namespace and Name name the resource the request was for.
	Kind, Namespace, Name string
	Rule                  string
	Result                Result
	Blocked               bool
	Message               string
}

// resourceNote is a parsed message of an event on a resource.
type resourceNote struct {
	Policy  string
	Rule    string
	Result  Result
	Message string
}

// parsePolicyNote reads the message of an event on a policy. When the
// resource is known (the event's related object), its "<Kind> <ns>/<name>: "
// prefix is matched exactly, so that names holding ": " parse; otherwise,
// or when it does not match, the resource ends at the first ": " that is
// followed by a valid verdict.
func parsePolicyNote(note string, kind, namespace, name string) (policyNote, bool) {
	if kind != "" && name != "" {
		prefix := kind + " " + name + ": "
		if namespace != "" {
			prefix = kind + " " + namespace + "/" + name + ": "
		}
		if rest, ok := strings.CutPrefix(note, prefix); ok {
			if n, ok := parseVerdict(rest); ok {
				n.Kind, n.Namespace, n.Name = kind, namespace, name
				return n, true
			}
		}
	}
	kind, rest, ok := strings.Cut(note, " ")
	if !ok || kind == "" {
		return policyNote{}, false
	}
	for i := 0; i < len(rest); {
		j := strings.Index(rest[i:], ": ")
		if j < 0 {
			break
		}
		at := i + j
		if n, ok := parseVerdict(rest[at+2:]); ok {
			res := rest[:at]
			ns, nm, found := strings.Cut(res, "/")
			if !found {
				ns, nm = "", res
			}
			if nm == "" {
				return policyNote{}, false
			}
			n.Kind, n.Namespace, n.Name = kind, ns, nm
			return n, true
		}
		i = at + 1
	}
	return policyNote{}, false
}

// parseVerdict reads "[<rule>] <status>[ (blocked)][; <message>]".
func parseVerdict(s string) (policyNote, bool) {
	var n policyNote
	if rest, ok := strings.CutPrefix(s, "["); ok {
		rule, after, found := strings.Cut(rest, "] ")
		if !found {
			return policyNote{}, false
		}
		n.Rule, s = rule, after
	}
	r, rest, ok := cutStatus(s)
	if !ok {
		return policyNote{}, false
	}
	n.Result = r
	if after, ok := strings.CutPrefix(rest, blockedSuffix); ok {
		n.Blocked, rest = true, after
	}
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "; "):
		n.Message = rest[2:]
	default:
		return policyNote{}, false
	}
	return n, true
}

// cutStatus cuts a rule status off the front of s.
func cutStatus(s string) (Result, string, bool) {
	for _, r := range statuses {
		if rest, ok := strings.CutPrefix(s, string(r)); ok {
			return r, rest, true
		}
	}
	return "", "", false
}

// parseResourceNote reads "policy <policy>/<rule> <status>: <message>". The
// policy name has no slash (it is a DNS name); the rule ends at the first
// " <status>:" after it, which may be at once (a rule without a name).
func parseResourceNote(note string) (resourceNote, bool) {
	rest, ok := strings.CutPrefix(note, resourcePrefix)
	if !ok {
		return resourceNote{}, false
	}
	policy, after, ok := strings.Cut(rest, "/")
	if !ok || policy == "" || strings.ContainsAny(policy, " \t\n") {
		return resourceNote{}, false
	}
	best, bestAt := Result(""), -1
	for _, r := range statuses {
		at := strings.Index(after, " "+string(r)+":")
		if at >= 0 && (bestAt < 0 || at < bestAt) {
			best, bestAt = r, at
		}
	}
	if bestAt < 0 {
		return resourceNote{}, false
	}
	msg := after[bestAt+len(best)+2:]
	msg = strings.TrimPrefix(msg, " ")
	return resourceNote{Policy: policy, Rule: after[:bestAt], Result: best, Message: msg}, true
}
