//go:build e2e

package kyverno_test

// The live checks of the kyverno-cel and vap targets, run by TestLive on
// its harness after the kyverno target's: every template applied and read
// back equal to its render (saved to render/testdata/live/<target>/ with
// PROTECTIONPLANS_UPDATE_LIVE=1 or =kyverno-cel,vap), NamespacedValidatingPolicies Ready, the
// ValidatingAdmissionPolicies type-checked by the API server's own type
// checker against the live schemas (the harness has no controller manager,
// whose status controller would write status.typeChecking), refusals with
// their exact messages, admissions, the applications scope (/scale, scope
// guards), named exclusions, audit, a hostile name, and every golden
// accepted.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
)

// resourceOf is the kubectl resource of a rendered kind.
var resourceOf = map[string]string{
	"Policy":                           "policies.kyverno.io",
	"NamespacedValidatingPolicy":       "namespacedvalidatingpolicies.policies.kyverno.io",
	"ValidatingAdmissionPolicy":        "validatingadmissionpolicies.admissionregistration.k8s.io",
	"ValidatingAdmissionPolicyBinding": "validatingadmissionpolicybindings.admissionregistration.k8s.io",
	// A namespaceSelectors scope's cluster-wide kinds.
	"ClusterPolicy":    "clusterpolicies.kyverno.io",
	"ValidatingPolicy": "validatingpolicies.policies.kyverno.io",
}

// moveTo moves a golden's object to namespace ns: a namespaced policy's
// namespace; a VAP's and binding's names, the binding's policy and its
// namespace selector.
func moveTo(o *unstructured.Unstructured, ns string) {
	if o.GetNamespace() != "" {
		o.SetNamespace(ns)
		return
	}
	base, _, _ := strings.Cut(o.GetName(), ".")
	o.SetName(base + "." + ns)
	if o.GetKind() == "ValidatingAdmissionPolicyBinding" {
		_ = unstructured.SetNestedField(o.Object, base+"."+ns, "spec", "policyName")
		_ = unstructured.SetNestedSlice(o.Object, []any{map[string]any{
			"key": "kubernetes.io/metadata.name", "operator": "In", "values": []any{ns},
		}}, "spec", "matchResources", "namespaceSelector", "matchExpressions")
	}
}

// applyTarget applies objects (server-side, as the operator does), waits
// until each is ready (a NamespacedValidatingPolicy's
// status.conditionStatus.ready; a VAP has no status: a settle delay while
// the API server loads it), reads each back and compares it with its
// render. save keeps the read-back objects of a template as
// render/testdata/live/<target>/<template>.json (a v1 List).
func (l *live) applyTarget(objs []*unstructured.Unstructured, save bool) {
	l.t.Helper()
	l.apply(objs)
	vap := false
	for _, o := range objs {
		switch o.GetKind() {
		case "NamespacedValidatingPolicy":
			if err := l.env.WaitPolicyReady(l.ctx, o.GetNamespace(), o.GetName()); err != nil {
				l.t.Fatalf("%s/%s never became ready: %v", o.GetNamespace(), o.GetName(), err)
			}
		default:
			vap = true
		}
	}
	if vap {
		time.Sleep(3 * time.Second)
	}
	var back []any
	for _, o := range objs {
		back = append(back, l.compareObject(o).Object)
	}
	target, _ := render.TargetOf(objs[0])
	if save && updateLive(target) {
		tmpl := objs[0].GetLabels()[render.LabelTemplate]
		out, _ := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": back}, "", "  ")
		dir := filepath.Join(goldenDir, "live", string(target))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			l.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tmpl+".json"), append(out, '\n'), 0o644); err != nil {
			l.t.Fatal(err)
		}
	}
}

// compareObject reads an object back and compares its spec and hash with
// the render.
func (l *live) compareObject(o *unstructured.Unstructured) *unstructured.Unstructured {
	l.t.Helper()
	args := []string{"get", resourceOf[o.GetKind()], o.GetName(), "-o", "json"}
	if ns := o.GetNamespace(); ns != "" {
		args = append([]string{"-n", ns}, args...)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(l.ok(args...)), &m); err != nil {
		l.t.Fatal(err)
	}
	back := &unstructured.Unstructured{Object: m}
	if diff := cmp.Diff(o.Object["spec"], back.Object["spec"]); diff != "" {
		l.t.Errorf("%s %s: live spec differs from the render (-render +live):\n%s", o.GetKind(), o.GetName(), diff)
	}
	want, _ := render.HashOf(o)
	if got, err := render.HashOf(back); err != nil || got != want {
		l.t.Errorf("%s %s: HashOf(live) = %s, want %s (%v)", o.GetKind(), o.GetName(), got, want, err)
	}
	return back
}

func (l *live) deleteObjects(objs []*unstructured.Unstructured) {
	l.t.Helper()
	for _, o := range objs {
		args := []string{"delete", resourceOf[o.GetKind()], o.GetName(), "--wait=false"}
		if ns := o.GetNamespace(); ns != "" {
			args = append([]string{"-n", ns}, args...)
		}
		l.ok(args...)
	}
}

// messageOfRule is the static message of a rule of a CEL policy: its
// validation's, validations being in the order of the template's rules.
func messageOfRule(t *testing.T, o *unstructured.Unstructured, rule string) string {
	t.Helper()
	tmpl, ok := render.Lookup(o.GetLabels()[render.LabelTemplate])
	if !ok {
		t.Fatalf("%s: no template", o.GetName())
	}
	i := slices.IndexFunc(tmpl.Rules(), func(r render.RuleSpec) bool { return r.Name == rule })
	validations, _, _ := unstructured.NestedSlice(o.Object, "spec", "validations")
	if i < 0 || i >= len(validations) {
		t.Fatalf("%s: no rule %s", o.GetName(), rule)
	}
	return validations[i].(map[string]any)["message"].(string)
}

// refusedWith runs kubectl and expects a refusal by the target's policy
// called policy (anyPolicy: any), with exactly message.
func (l *live) refusedWith(target render.Target, policy, message string, args ...string) {
	l.t.Helper()
	l.refusedWithOneOf(target, policy, []string{message}, args...)
}

// refusedWithOneOf is refusedWith for a change that more than one policy
// refuses, each with its message: the API server stops at the first.
func (l *live) refusedWithOneOf(target render.Target, policy string, messages []string, args ...string) {
	l.t.Helper()
	var stderr string
	var err error
	for attempt := 0; attempt < 2; attempt++ { // a policy just applied may not be loaded yet
		if _, stderr, err = l.env.Kubectl(l.ctx, args...); err != nil {
			break
		}
		time.Sleep(3 * time.Second)
	}
	if err == nil {
		l.t.Errorf("kubectl %s was admitted, want refused by %s", strings.Join(args, " "), policy)
		return
	}
	marker := "Policy " + policy + " failed: "
	if target == render.TargetVAP {
		marker = "ValidatingAdmissionPolicy '" + policy + "' with binding '" + policy + "' denied request: "
	}
	if policy == anyPolicy {
		if m := refusedBy.FindString(stderr); m != "" {
			marker = m
		}
	}
	i := strings.Index(stderr, marker)
	if i < 0 {
		l.t.Errorf("kubectl %s: not refused by %s:\n%s", strings.Join(args, " "), policy, stderr)
		return
	}
	got := strings.TrimSuffix(stderr[i+len(marker):], "\n")
	if !slices.Contains(messages, got) {
		l.t.Errorf("kubectl %s: refused with\n%q\nwant one of\n%q", strings.Join(args, " "), got, messages)
		return
	}
	l.t.Logf("kubectl %s refused by %s: %q", strings.Join(args, " "), strings.TrimSpace(marker), got)
}

// setUpTargetNamespaces creates a target's namespaces and fixtures.
func (l *live) setUpTargetNamespaces(prefix string) {
	checkout := map[string]string{"app": "checkout", "tier": "web"}
	for _, ns := range []string{"shop", "audited", "appscope", "excl", "hostile", "aw"} {
		l.ok("create", "namespace", prefix+ns)
		l.deployment(prefix+ns, "web", checkout)
	}
	l.deployment(prefix+"appscope", "other", map[string]string{"app": "search", "tier": "web"})
	l.deployment(prefix+"excl", "front", checkout)
	l.ok("-n", prefix+"shop", "create", "configmap", "cfg", "--from-literal=a=1")
	l.ok("-n", prefix+"shop", "create", "secret", "generic", "s", "--from-literal=k=v")
}

// everyTemplateReadsBack applies every template's namespaces-enforce
// golden as rendered (namespace shop), compares, saves, and deletes it
// again: the kyverno target's policies are in shop.
func (l *live) everyTemplateReadsBack(target render.Target) {
	l.t.Helper()
	var all []*unstructured.Unstructured
	for _, tmpl := range render.Catalog() {
		objs := l.readGolden(target, tmpl.Name()+"_namespaces_enforce", "")
		l.applyTarget(objs, true)
		all = append(all, objs...)
	}
	l.deleteObjects(all)
}

// everyGoldenReadsBack applies every golden of a target, each in a
// namespace of its own, and compares them once all are in.
func (l *live) everyGoldenReadsBack(target render.Target) {
	l.t.Helper()
	files, _ := filepath.Glob(filepath.Join(goldenDir, string(target), "*.golden"))
	var all []*unstructured.Unstructured
	for i, f := range files {
		if strings.HasPrefix(filepath.Base(f), "custom_kinds") {
			// Custom kinds need their CRDs: examples/e2e/matrix's
			// TestCustomKinds installs one and applies such policies live.
			continue
		}
		objs := l.readGolden(target, strings.TrimSuffix(filepath.Base(f), ".golden"), "")
		for j, o := range objs {
			if o.GetNamespace() == "" { // a VAP and its binding: a name of their own
				moveTo(o, fmt.Sprintf("%s-g-%d-%d", target, i, j/2))
				continue
			}
			ns := fmt.Sprintf("%s-g-%d-%d", target, i, j)
			l.ok("create", "namespace", ns)
			moveTo(o, ns)
		}
		l.apply(objs)
		all = append(all, objs...)
	}
	for _, o := range all {
		if o.GetKind() == "NamespacedValidatingPolicy" || o.GetKind() == "ValidatingPolicy" {
			l.waitCELReady(o.GetNamespace(), o.GetName(), o.GetKind())
		}
		l.compareObject(o)
	}
	l.deleteObjects(all)
}

// waitCELReady waits for a NamespacedValidatingPolicy (or a cluster-wide
// ValidatingPolicy, ns "") to be ready, without
// the harness's settle delay.
func (l *live) waitCELReady(ns, name, kind string) {
	l.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		args := []string{"get", resourceOf[kind], name, "-o", "jsonpath={.status.conditionStatus.ready}"}
		if ns != "" {
			args = append([]string{"-n", ns}, args...)
		}
		out := l.ok(args...)
		if out == "true" {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	l.t.Fatalf("%s/%s never became ready", ns, name)
}
