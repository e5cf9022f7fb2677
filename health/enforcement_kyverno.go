package health

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/telark/protectionplans/render"
)

// request is one kind of request a policy matches: what a webhook rule
// must cover for Kyverno to see it.
type request struct {
	group, kind, resource, subresource, operation string
}

func (r request) String() string {
	res := r.resource
	if r.subresource != "" {
		res += "/" + r.subresource
	}
	if r.group != "" {
		res = r.group + "/" + res
	}
	return r.operation + " " + res
}

// allOperations are what a rule that names none matches.
var allOperations = []string{"CREATE", "UPDATE", "DELETE", "CONNECT"}

// requestsOf reads the requests a rendered Kyverno policy matches, from
// the object itself (its rules are the truth, whatever template made them).
func requestsOf(o *unstructured.Unstructured) []request {
	var out []request
	addOnce := func(r request) {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	switch o.GetKind() {
	case "Policy", "ClusterPolicy":
		rules, _, _ := unstructured.NestedSlice(o.Object, "spec", "rules")
		for _, rule := range rules {
			rm, _ := rule.(map[string]any)
			for _, block := range []string{"any", "all"} {
				filters, _, _ := unstructured.NestedSlice(rm, "match", block)
				for _, f := range filters {
					fm, _ := f.(map[string]any)
					kinds, _, _ := unstructured.NestedStringSlice(fm, "resources", "kinds")
					ops, _, _ := unstructured.NestedStringSlice(fm, "resources", "operations")
					if len(ops) == 0 {
						ops = allOperations
					}
					for _, k := range kinds {
						g, kind, sub := parseKyvernoKind(k)
						if g == "*" { // Kyverno finds a bare kind's group by discovery
							g = groupOf(kind)
						}
						for _, op := range ops {
							addOnce(request{group: g, kind: kind, resource: resourceOf(g, kind), subresource: sub, operation: op})
						}
					}
				}
			}
		}
	default: // CEL policies and ValidatingAdmissionPolicies
		rules, _, _ := unstructured.NestedSlice(o.Object, "spec", "matchConstraints", "resourceRules")
		for _, rule := range rules {
			rm, _ := rule.(map[string]any)
			groups, _, _ := unstructured.NestedStringSlice(rm, "apiGroups")
			resources, _, _ := unstructured.NestedStringSlice(rm, "resources")
			ops, _, _ := unstructured.NestedStringSlice(rm, "operations")
			for _, g := range groups {
				for _, res := range resources {
					r, sub, _ := strings.Cut(res, "/")
					for _, op := range ops {
						addOnce(request{group: g, kind: r, resource: r, subresource: sub, operation: op})
					}
				}
			}
		}
	}
	return out
}

// parseKyvernoKind reads a kyverno.io/v1 kind selector: Kind, Kind/sub,
// version/Kind, group/version/Kind, group/version/Kind/sub ("*" for any
// group). It returns the group ("*" when the selector names none), the
// kind and the subresource.
func parseKyvernoKind(s string) (group, kind, sub string) {
	parts := strings.Split(s, "/")
	if n := len(parts); n > 1 && parts[n-1] != "" && strings.ToLower(parts[n-1]) == parts[n-1] && parts[n-1] != "*" {
		sub = parts[n-1]
		parts = parts[:n-1]
	}
	switch len(parts) {
	case 1:
		return "*", parts[0], sub
	case 2: // version/Kind
		return "*", parts[1], sub
	default:
		return parts[0], parts[len(parts)-1], sub
	}
}

// groupOf is the group of a kind render knows, "*" for another.
func groupOf(kind string) string {
	for _, k := range render.KnownKinds() {
		if k.Kind == kind {
			return k.Group
		}
	}
	return "*"
}

// resourceOf is the plural resource of a kind, from render's known kinds;
// an unknown kind gets its lower-case name plus "s", as most do.
func resourceOf(group, kind string) string {
	for _, k := range render.KnownKinds() {
		if k.Kind == kind && (group == "*" || group == k.Group) {
			return k.Resource
		}
	}
	return strings.ToLower(kind) + "s"
}

// webhook is one webhook of a ValidatingWebhookConfiguration.
type webhook struct {
	config, name  string
	failurePolicy string
	rules         []webhookRule
	nsSelector    labels.Selector // nil: the selector cannot be read
	objSelector   bool            // a non-empty objectSelector
}

type webhookRule struct {
	groups, resources, operations []string
}

func webhooksOf(cfg *unstructured.Unstructured) []webhook {
	if cfg == nil {
		return nil
	}
	hooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
	var out []webhook
	for _, h := range hooks {
		hm, _ := h.(map[string]any)
		w := webhook{config: cfg.GetName()}
		w.name, _ = hm["name"].(string)
		w.failurePolicy, _ = hm["failurePolicy"].(string)
		if w.failurePolicy == "" {
			w.failurePolicy = "Fail" // the API server's default for v1
		}
		rules, _, _ := unstructured.NestedSlice(hm, "rules")
		for _, r := range rules {
			rm, _ := r.(map[string]any)
			var wr webhookRule
			wr.groups, _, _ = unstructured.NestedStringSlice(rm, "apiGroups")
			wr.resources, _, _ = unstructured.NestedStringSlice(rm, "resources")
			wr.operations, _, _ = unstructured.NestedStringSlice(rm, "operations")
			w.rules = append(w.rules, wr)
		}
		w.nsSelector = labels.Everything()
		if sel, ok := hm["namespaceSelector"].(map[string]any); ok && len(sel) > 0 {
			var ls metav1.LabelSelector
			if runtimeFromMap(sel, &ls) == nil {
				if s, err := metav1.LabelSelectorAsSelector(&ls); err == nil {
					w.nsSelector = s
				} else {
					w.nsSelector = nil
				}
			} else {
				w.nsSelector = nil
			}
		}
		if sel, ok := hm["objectSelector"].(map[string]any); ok && len(sel) > 0 {
			w.objSelector = true
		}
		out = append(out, w)
	}
	return out
}

// serves reports whether the webhook calls the engine of the policy's
// kind: Kyverno 1.19 registers kyverno.io policies under webhooks named
// validate.kyverno.svc-fail and -ignore, and NamespacedValidatingPolicies
// under nvpol.validate.kyverno.svc-fail and -ignore (recorded in
// testdata/kyverno-1.19.1/webhooks-*.json); a webhook of the other engine
// covering the same request does not call this policy.
func (w webhook) serves(policy *unstructured.Unstructured) bool {
	if policy.GetKind() == "NamespacedValidatingPolicy" {
		return strings.HasPrefix(w.name, "nvpol.validate.kyverno.svc")
	}
	return strings.HasPrefix(w.name, "validate.kyverno.svc")
}

// covers reports whether the webhook sends r in a namespace with labels
// nsLabels to its server.
func (w webhook) covers(r request, nsLabels labels.Set) bool {
	if w.nsSelector == nil || !w.nsSelector.Matches(nsLabels) {
		return false
	}
	for _, rule := range w.rules {
		if anyMatch(rule.groups, r.group) && anyMatch(rule.operations, r.operation) && resourceMatch(rule.resources, r.resource, r.subresource) {
			return true
		}
	}
	return false
}

// anyMatch: list holds v or "*"; a request of any group ("*", from a
// Kyverno kind without group) is covered only by "*".
func anyMatch(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// resourceMatch follows the API server's rules: "*" is every resource
// (not subresources), "*/*" everything, "res/*" every subresource of res,
// "*/sub" that subresource of every resource.
func resourceMatch(list []string, res, sub string) bool {
	full := res
	if sub != "" {
		full += "/" + sub
	}
	for _, p := range list {
		switch {
		case p == full, p == "*/*":
			return true
		case p == "*" && sub == "":
			return true
		case sub != "" && (p == res+"/*" || p == "*/"+sub):
			return true
		}
	}
	return false
}

// checkKyverno checks one policy of a Kyverno target.
func (e *enforcer) checkKyverno(p render.Policy) {
	if len(p.Objects) == 0 {
		return
	}
	want := p.Objects[0]
	ns := p.Namespace
	desc := describe(want)
	// The webhooks: skipped when Kyverno registered none (one finding for
	// all).
	if len(e.hooks) > 0 {
		nsLabels := labels.Set{"kubernetes.io/metadata.name": ns}
		if l, ok := e.in.NamespaceLabels[ns]; ok {
			nsLabels = labels.Set(l)
		}
		for _, r := range requestsOf(want) {
			var open []string
			closed := false
			for _, w := range e.hooks {
				if !w.serves(want) || !w.covers(r, nsLabels) {
					continue
				}
				if w.failurePolicy == "Fail" {
					closed = true
					break
				}
				open = append(open, w.config+" ("+w.name+")")
			}
			switch {
			case closed:
			case len(open) > 0:
				e.findings.add(ReasonWebhookFailsOpen, ns, "ValidatingWebhookConfiguration "+strings.Join(open, ", "),
					"Kyverno's webhook %s has failurePolicy Ignore: while Kyverno is down, changes in %s are admitted",
					strings.Join(open, ", "), ns)
			default:
				e.findings.add(ReasonWebhookNotCovering, ns, desc,
					"no Kyverno webhook sends %s requests in %s to Kyverno: %s refuses none of them (Kyverno has not registered the policy, or a webhook's rules or namespaceSelector leave it out)",
					r, ns, desc)
			}
		}
	}
	// Kyverno's own status of the policy.
	if live := e.live[keyOf(want)]; live != nil {
		if ok, why := kyvernoReady(live, e.in.Now); !ok {
			e.findings.add(ReasonPolicyNotReady, ns, desc, "Kyverno has not loaded %s (%s): it refuses nothing until it is ready", desc, why)
		}
	}
	// PolicyExceptions naming it.
	for _, x := range e.in.Exceptions {
		if exceptionNames(x, want) {
			xd := describe(x)
			e.findings.add(ReasonPolicyExcepted, ns, xd,
				"%s (%s) names %s: requests it matches in %s are admitted; delete it, or end the freeze",
				xd, x.GetAPIVersion(), desc, ns)
		}
	}
	// Kyverno's resource filters.
	for _, r := range requestsOf(want) {
		for _, f := range e.config.filters {
			if f.drops(r, ns) {
				e.findings.add(ReasonResourceFiltered, ns, "ConfigMap "+e.config.where,
					"Kyverno's resourceFilters entry %s (ConfigMap %s) drops %s requests in %s before any policy sees them: remove it while the freeze lasts",
					f.text, e.config.where, r.kindText(), ns)
			}
		}
	}
}

func (r request) kindText() string {
	if r.subresource != "" {
		return r.kind + "/" + r.subresource
	}
	return r.kind
}

// registerGrace is how long Kyverno may take to report on a new
// kyverno.io/v1 policy: it registers one in its webhook configuration and
// sets Ready within seconds (a few on the harness, under load).
const registerGrace = time.Minute

// kyvernoReady reads a Kyverno policy's status: status.conditions Ready
// for kyverno.io/v1, status.conditionStatus.ready for the CEL policies.
// A kyverno.io/v1 policy without a Ready condition registerGrace after it
// was created is one Kyverno could not register: Kyverno 1.19.1 sets Ready
// only after it wrote its webhook configuration (its webhook controller's
// updatePolicyStatuses), and leaves a policy without it out of its policy
// cache; the reason is in Kyverno's log, most often its update of
// kyverno-resource-validating-webhook-cfg refused (recorded in
// testdata/kyverno-1.19.1/policy-v1-unregistered.json).
func kyvernoReady(o *unstructured.Unstructured, now time.Time) (bool, string) {
	if strings.HasPrefix(o.GetAPIVersion(), "kyverno.io/") {
		conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		for _, c := range conds {
			cm, _ := c.(map[string]any)
			if cm["type"] == "Ready" {
				if cm["status"] == "True" {
					return true, ""
				}
				msg, _ := cm["message"].(string)
				reason, _ := cm["reason"].(string)
				return false, strings.TrimSpace("Ready is " + fmt.Sprint(cm["status"]) + ": " + reason + " " + msg)
			}
		}
		created := o.GetCreationTimestamp().Time
		if age := now.Sub(created); !created.IsZero() && age >= registerGrace {
			return false, fmt.Sprintf("its status has no Ready condition %s after it was created: Kyverno could not register it in its webhook configuration; "+
				"Kyverno's log says why, most often an update of its ValidatingWebhookConfiguration refused by an admission policy, a webhook or its role",
				age.Round(time.Second))
		}
		return false, "its status has no Ready condition yet"
	}
	ready, found, _ := unstructured.NestedBool(o.Object, "status", "conditionStatus", "ready")
	if !found {
		return false, "its status does not say it is ready yet"
	}
	if ready {
		return true, ""
	}
	var why []string
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditionStatus", "conditions")
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		if cm["status"] != "True" {
			msg, _ := cm["message"].(string)
			why = append(why, fmt.Sprintf("%v is %v: %s", cm["type"], cm["status"], msg))
		}
	}
	if len(why) == 0 {
		return false, "conditionStatus.ready is false"
	}
	return false, strings.Join(why, "; ")
}

// exceptionNames reports whether a PolicyException names the policy
// object: kyverno.io (spec.exceptions[].policyName, "namespace/name" for a
// namespaced Policy, wildcards allowed) or policies.kyverno.io
// (spec.policyRefs[] by kind and name).
func exceptionNames(x, policy *unstructured.Unstructured) bool {
	if x == nil || x.GetKind() != "PolicyException" {
		return false
	}
	switch {
	case strings.HasPrefix(x.GetAPIVersion(), "kyverno.io/"):
		name := policy.GetName()
		if ns := policy.GetNamespace(); ns != "" {
			name = ns + "/" + name
		}
		exs, _, _ := unstructured.NestedSlice(x.Object, "spec", "exceptions")
		for _, ex := range exs {
			em, _ := ex.(map[string]any)
			if pn, _ := em["policyName"].(string); pn != "" && glob(pn, name) {
				return true
			}
		}
	case strings.HasPrefix(x.GetAPIVersion(), "policies.kyverno.io/"):
		refs, _, _ := unstructured.NestedSlice(x.Object, "spec", "policyRefs")
		for _, ref := range refs {
			rm, _ := ref.(map[string]any)
			if rm["kind"] == policy.GetKind() && rm["name"] == policy.GetName() {
				return true
			}
		}
	}
	return false
}

// glob matches s against a Kyverno wildcard pattern: "*" any run, "?" one
// character, everything else itself. Iterative, with one backtrack point:
// linear in practice, never exponential on a hostile pattern.
func glob(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
