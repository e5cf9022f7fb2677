package render

import (
	"slices"
	"strings"
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
