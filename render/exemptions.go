package render

import (
	"slices"
	"strings"

	"github.com/telark/protectionplans/plan"
)

// Exemption is a requester no plan freezes: Kubernetes' own control plane.
// Freezing it would take running workloads down (the ReplicaSet controller
// could not replace a crashed Pod, the garbage collector could not finish
// a deletion, nodes could not report, the HPA could not scale). Every rule
// of every target carries these exemptions, before the plan's exclusions.
//
// Anyone who can act as one of these identities (run a Pod in kube-system,
// impersonate system:nodes) can bypass a plan; such a person is a cluster
// administrator already.
type Exemption struct {
	// Kind is "User" (the request's username) or "Group" (one of its
	// groups).
	Kind string `json:"kind"`
	// Name is the name, or a pattern where "*" matches any characters.
	Name string `json:"name"`
	// Why says who this is.
	Why string `json:"why"`
}

var exemptions = []Exemption{
	{Kind: "Group", Name: "system:nodes", Why: "kubelets"},
	{Kind: "User", Name: "system:kube-controller-manager", Why: "the controller manager"},
	{Kind: "User", Name: "system:kube-scheduler", Why: "the scheduler"},
	{Kind: "User", Name: "system:node:*", Why: "kubelets"},
	{Kind: "User", Name: "system:serviceaccount:kube-system:*", Why: "controllers running in kube-system (ReplicaSet, Job, CronJob, garbage collector, HPA, namespace, node lifecycle, ...)"},
}

// Exemptions returns the requesters no plan freezes.
func Exemptions() []Exemption { return slices.Clone(exemptions) }

// exemptionFor returns the exemption that covers a requester, if any.
func exemptionFor(u UserInfo) (Exemption, bool) {
	for _, e := range exemptions {
		switch e.Kind {
		case "User":
			if wildcardMatch(e.Name, u.Username) {
				return e, true
			}
		case "Group":
			if slices.ContainsFunc(u.Groups, func(g string) bool { return wildcardMatch(e.Name, g) }) {
				return e, true
			}
		}
	}
	return Exemption{}, false
}

// wildcardMatch matches s against a pattern where "*" stands for any run of
// characters, as Kyverno's wildcard matching does for the patterns used
// here.
func wildcardMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// ExemptTemplate is the template label (and Policy.Template) of the
// policy that records the writes a plan's exempt requesters make
// (spec.requesters.exclude): one per namespace, holding every template's
// rules as the compact layout does, matching only exempt requesters, in
// audit mode whatever the plan's mode. No catalog template has this name.
const ExemptTemplate = "exempt"

// requesterSet is a plan's include or exclude list as rendered: each list
// sorted and without repeats.
type requesterSet plan.RequesterSet

func newRequesterSet(s plan.RequesterSet) requesterSet {
	clean := func(l []string) []string { return slices.Compact(slices.Sorted(slices.Values(l))) }
	return requesterSet{Users: clean(s.Users), Groups: clean(s.Groups), ServiceAccounts: clean(s.ServiceAccounts)}
}

func (s requesterSet) empty() bool { return plan.RequesterSet(s).IsEmpty() }

// matches reports whether the set names the requester (exactly).
func (s requesterSet) matches(u UserInfo) bool {
	return plan.RequesterSet(s).Matches(u.Username, u.Groups)
}

// which says which entry of the set names the requester, for Explain's
// reasons: "user alice", "group oncall", "service account ci:release".
func (s requesterSet) which(u UserInfo) string {
	if slices.Contains(s.Users, u.Username) {
		return "user " + u.Username
	}
	if sa, ok := strings.CutPrefix(u.Username, plan.ServiceAccountPrefix); ok && slices.Contains(s.ServiceAccounts, sa) {
		return "service account " + sa
	}
	for _, g := range u.Groups {
		if slices.Contains(s.Groups, g) {
			return "group " + g
		}
	}
	return ""
}

// usernames are the users and the service accounts' user names, sorted.
func (s requesterSet) usernames() []string {
	out := slices.Clone(s.Users)
	for _, sa := range s.ServiceAccounts {
		out = append(out, plan.ServiceAccountUser(sa))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// kyvernoSubjects are the set as Kyverno subjects: users, groups, then
// service accounts (Kyverno matches system:serviceaccount:<ns>:<name>).
// Kyverno matches subject names as wildcard patterns ("*", "?"), which
// plan validation and compile refuse in names, so each matches itself
// only.
func (s requesterSet) kyvernoSubjects() []kySubject {
	var out []kySubject
	for _, u := range s.Users {
		out = append(out, kySubject{Kind: "User", Name: u})
	}
	for _, g := range s.Groups {
		out = append(out, kySubject{Kind: "Group", Name: g})
	}
	for _, sa := range s.ServiceAccounts {
		ns, name, _ := strings.Cut(sa, ":")
		out = append(out, kySubject{Kind: "ServiceAccount", Namespace: ns, Name: name})
	}
	return out
}

// celTest is a CEL expression true when the set names the requester:
// names reach it only as string literals (celString).
func (s requesterSet) celTest() string {
	var terms []string
	if users := s.usernames(); len(users) > 0 {
		terms = append(terms, celIn(celUsername, users))
	}
	for _, g := range s.Groups {
		terms = append(terms, celString(g)+" in "+celGroups)
	}
	return "(" + strings.Join(terms, " || ") + ")"
}
