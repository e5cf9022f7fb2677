//go:build e2e

package matrix

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// Reading the admission chain's answers: refusals, warnings, the API
// server's ValidatingAdmissionPolicy counters, Kyverno's PolicyViolation
// events.

// refusingPolicies reads the policies out of Kyverno's refusal. For a
// kyverno.io/v1 Policy (every refusing policy, with its rules):
//
//	admission webhook "validate.kyverno.svc-fail" denied the request:
//
//	resource Deployment/ns/name was blocked due to the following policies
//
//	mx-ns-enforce-scaling:
//	  replicas: '...'
//
// For a NamespacedValidatingPolicy (every refusing policy, joined by "; "):
//
//	admission webhook "..." denied the request: Policy cel-mx-ns-enforce-scaling failed: <message>; Policy ... failed: ...
//
// A CEL policy that could not be evaluated reads "Policy <name> error:
// <message>": not a refusal by design, so it is reported as an error.
func refusingPolicies(text string) ([]string, bool) {
	if !strings.Contains(text, "denied the request") {
		return nil, false
	}
	var out []string
	if tgt.target == render.TargetKyvernoCEL {
		for _, m := range celRefusal.FindAllStringSubmatch(text, -1) {
			if m[2] != "failed" {
				return nil, false
			}
			out = append(out, m[1])
		}
		return out, len(out) > 0
	}
	for _, line := range strings.Split(text, "\n") {
		if m := policyLine.FindStringSubmatch(strings.TrimRight(line, " ")); m != nil {
			out = append(out, m[1])
		}
	}
	return out, len(out) > 0
}

var (
	policyLine = regexp.MustCompile(`^([a-z0-9][-a-z0-9.]*):$`)
	celRefusal = regexp.MustCompile(`Policy ([a-z0-9][-a-z0-9.]*) (failed|error): `)
	// vapRefusal is the API server's refusal: the first denying
	// ValidatingAdmissionPolicy only.
	vapRefusal = regexp.MustCompile(`ValidatingAdmissionPolicy '([^']+)' with binding '([^']+)' denied request: (.*)`)
	// vapWarning is the warning of an audited ValidatingAdmissionPolicy
	// ([Audit, Warn]), one per failing policy.
	vapWarning = regexp.MustCompile(`^Validation failed for ValidatingAdmissionPolicy '([^']+)' with binding '([^']+)': (.*)$`)
)

// templateOf names a policy of p in namespace ns by its template.
func templateOf(p *plan.ProtectionPlan, ns, policy string) string {
	if p != nil {
		for _, ref := range p.Spec.Templates {
			if tgt.policyName(p.Name, ref.Name, ns) == policy {
				return ref.Name
			}
		}
	}
	return "policy " + policy
}

// checkMessages checks that the live answer carries Explain's message of
// every template it names, in the target's words.
func checkMessages(t *testing.T, c *mcase) {
	t.Helper()
	for _, tmpl := range c.live.blocked {
		msg, ok := c.messages[tmpl]
		if !ok {
			continue // a disagreement, reported as such
		}
		if tgt.target == render.TargetKyverno && !strings.Contains(c.refusal, msg) {
			t.Errorf("%s %s: the refusal does not carry the plan's message %q:\n%s", c.sc.ns, c.door.id, msg, c.refusal)
		}
	}
	if tgt.target == render.TargetKyvernoCEL {
		for _, tmpl := range c.refusedBy {
			msg, ok := c.messages[tmpl]
			if want := "Policy " + tgt.policyName(c.sc.plan.Name, tmpl, c.sc.ns) + " failed: " + msg; ok && !strings.Contains(c.refusal, want) {
				t.Errorf("%s %s: the refusal does not read %q:\n%s", c.sc.ns, c.door.id, want, c.refusal)
			}
		}
	}
	if !tgt.vap() {
		return
	}
	if m := vapRefusal.FindStringSubmatch(c.refusal); m != nil {
		tmpl := templateOf(c.sc.plan, c.sc.ns, m[1])
		if want, ok := c.messages[tmpl]; ok && strings.TrimSpace(m[3]) != want {
			t.Errorf("%s %s: refused by %s with %q, Explain's message %q", c.sc.ns, c.door.id, m[1], m[3], want)
		}
	}
	// A policy whose validations fail more than once (all-writes' rule and
	// its scope guard, on a move out of an application) warns once per
	// failing validation, in order: the first is the one Explain names.
	seen := map[string]bool{}
	for _, w := range c.warnings {
		if m := vapWarning.FindStringSubmatch(w); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			tmpl := templateOf(c.sc.plan, c.sc.ns, m[1])
			if want, ok := c.messages[tmpl]; ok && m[3] != want {
				t.Errorf("%s %s: warning of %s reads %q, Explain's message %q", c.sc.ns, c.door.id, m[1], m[3], want)
			}
		}
	}
}

// vapCounts are the API server's apiserver_validating_admission_policy_check_total
// counters of a namespace's ValidatingAdmissionPolicies: by policy, then by
// enforcement action (deny, warn, audit, allow).
type vapCounts map[string]map[string]float64

var (
	metricsClientOnce sync.Once
	metricsClient     rest.Interface
	metricsClientErr  error
)

// vapChecks reads the counters of every ValidatingAdmissionPolicy from the
// API server's /metrics. The API server counts every denying policy of a
// request, while its refusal names the first only: the counters are how
// the matrix knows every template that refused.
func vapChecks(t *testing.T) vapCounts {
	t.Helper()
	metricsClientOnce.Do(func() {
		var cs *kubernetes.Clientset
		cs, metricsClientErr = kubernetes.NewForConfig(s.env.Config)
		if metricsClientErr == nil {
			metricsClient = cs.CoreV1().RESTClient()
		}
	})
	if metricsClientErr != nil {
		t.Fatal(metricsClientErr)
	}
	raw, err := metricsClient.Get().AbsPath("/metrics").DoRaw(t.Context())
	if err != nil {
		t.Fatalf("reading the API server's metrics: %v", err)
	}
	return parseVAPChecks(string(raw))
}

const vapCheckMetric = "apiserver_validating_admission_policy_check_total{"

func parseVAPChecks(text string) vapCounts {
	out := vapCounts{}
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, vapCheckMetric)
		if !ok {
			continue
		}
		end := strings.LastIndexByte(rest, '}')
		if end < 0 {
			continue
		}
		labels := map[string]string{}
		for _, kv := range strings.Split(rest[:end], ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = strings.Trim(v, `"`)
		}
		pol := labels["policy"]
		v, err := strconv.ParseFloat(strings.TrimSpace(rest[end+1:]), 64)
		if err != nil {
			continue
		}
		if out[pol] == nil {
			out[pol] = map[string]float64{}
		}
		out[pol][labels["enforcement_action"]] += v
	}
	return out
}

// vapAnswer reads the API server's answer to a case under vap: the
// templates whose policies denied it (the counters' deny deltas; the
// refusal must name one of them, with its message), and those that
// audited it (its warnings, which the counters' warn and audit deltas
// must match).
func vapAnswer(t *testing.T, c *mcase, before, after vapCounts) {
	t.Helper()
	delta := func(pol, action string) float64 { return after[pol][action] - before[pol][action] }
	var denied, warned, auditCounted []string
	for pol := range after {
		if c.sc.plan == nil || !strings.HasSuffix(pol, "."+c.sc.ns) {
			continue // another namespace's
		}
		tmpl := templateOf(c.sc.plan, c.sc.ns, pol)
		if delta(pol, "deny") > 0 {
			denied = append(denied, tmpl)
		}
		if delta(pol, "warn") > 0 {
			warned = append(warned, tmpl)
		}
		if delta(pol, "audit") > 0 {
			auditCounted = append(auditCounted, tmpl)
		}
	}
	var warnedText []string
	for _, w := range c.warnings {
		if m := vapWarning.FindStringSubmatch(w); m != nil {
			warnedText = append(warnedText, templateOf(c.sc.plan, c.sc.ns, m[1]))
		}
	}
	for _, l := range [][]string{denied, warned, auditCounted} {
		sortByCatalog(l)
	}
	sortByCatalog(warnedText)
	warnedText = slices.Compact(warnedText) // one warning per failing validation
	c.live.blocked, c.live.audited = denied, warnedText
	var problems []string
	if !slices.Equal(warned, warnedText) || !slices.Equal(auditCounted, warnedText) {
		problems = append(problems, fmt.Sprintf("warnings from %v, counted warn %v, audit %v", warnedText, warned, auditCounted))
	}
	m := vapRefusal.FindStringSubmatch(c.refusal)
	switch {
	case c.refusal != "" && m == nil:
		problems = append(problems, "refused, but not by a ValidatingAdmissionPolicy")
	case m != nil && len(denied) == 0:
		problems = append(problems, "refused by "+m[1]+", which the API server did not count as denying")
	case m != nil && !slices.Contains(denied, templateOf(c.sc.plan, c.sc.ns, m[1])):
		problems = append(problems, "refused by "+m[1]+", not among the policies counted as denying "+fmt.Sprint(denied))
	case c.refusal == "" && len(denied) > 0:
		problems = append(problems, fmt.Sprintf("admitted, but counted as denied by %v", denied))
	}
	if len(problems) > 0 {
		c.live.err = strings.Join(problems, "; ")
	}
}

func sortByCatalog(names []string) {
	order := catalogNames()
	slices.SortFunc(names, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func findCondition(p *plan.ProtectionPlan, typ string) *metav1.Condition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// policyIndex indexes every live managed policy of the target, as the
// operator does.
func policyIndex(t *testing.T) violations.PolicyIndex {
	t.Helper()
	items, err := tgt.objects(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for i := range items {
		objs = append(objs, &items[i])
	}
	return violations.IndexPolicies(objs)
}

// decisionsByEvents waits until the PolicyViolation events of namespaces
// stop changing, reads them with package violations and returns the
// templates that audited and that blocked each resource, by
// "<namespace>/<name>".
func decisionsByEvents(t *testing.T, namespaces []string, idx violations.PolicyIndex) (audited, blocked map[string][]string) {
	t.Helper()
	vs := settledViolations(t, namespaces, idx)
	audited, blocked = map[string][]string{}, map[string][]string{}
	for _, v := range vs {
		if v.Result != violations.ResultFail {
			continue
		}
		m := audited
		if v.Blocked {
			m = blocked
		}
		k := v.Resource.Namespace + "/" + v.Resource.Name
		if !slices.Contains(m[k], v.Template) {
			m[k] = append(m[k], v.Template)
		}
	}
	for _, m := range []map[string][]string{audited, blocked} {
		for k := range m {
			sortByCatalog(m[k])
		}
	}
	return audited, blocked
}

// settledViolations reads the violations of the events of namespaces once
// the events stopped changing for 5 s (at most 60 s).
func settledViolations(t *testing.T, namespaces []string, idx violations.PolicyIndex) []violations.Violation {
	t.Helper()
	var last string
	stable := time.Now()
	deadline := time.Now().Add(60 * time.Second)
	var vs []violations.Violation
	for {
		evs := policyViolationEvents(t, namespaces)
		b, err := violations.FromEvents(idx, evs)
		if err != nil {
			t.Errorf("reading Kyverno's events: %v", err)
		}
		vs = b.Violations
		sig := fmt.Sprint(len(evs), len(vs))
		if sig != last {
			last, stable = sig, time.Now()
		} else if time.Since(stable) >= 5*time.Second {
			return vs
		}
		if time.Now().After(deadline) {
			t.Logf("events still changing after 60 s")
			return vs
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// eventually polls f every 250 ms until it returns true; on timeout the
// test fails with f's last word.
func eventually(t *testing.T, timeout time.Duration, what string, f func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		why, ok := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %s", timeout, what, why)
		}
		select {
		case <-t.Context().Done():
			t.Fatalf("canceled while waiting for %s", what)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
