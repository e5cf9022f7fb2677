//go:build e2e

package kyverno_test

// TestLive applies the golden policies to a real kube-apiserver with a real
// Kyverno (examples/e2e/harness) and checks what health relies on and a few
// refusals, for the kyverno target here and for kyverno-cel and vap in
// live_targets_e2e_test.go and live_checks_e2e_test.go. Run it with the binaries hack/e2e/build.sh builds:
//
//	cd test/kyverno && PROTECTIONPLANS_E2E_ASSETS=$(../../hack/e2e/build.sh | tail -1)/bin \
//	    go test -tags e2e -run TestLive -v .
//
// With PROTECTIONPLANS_UPDATE_LIVE=1 it rewrites render/testdata/live/
// <template>.json with the policies it read back, and
// render/testdata/live/<target>/<template>.json for the other targets;
// PROTECTIONPLANS_UPDATE_LIVE=kyverno-cel,vap rewrites those targets' only
// (other packages' tests read the uids of the kyverno samples).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/render"
)

type live struct {
	t   *testing.T
	env *harness.Env
	ctx context.Context
	// applied are the policies applied, by "<namespace>/<name>".
	applied map[string]*unstructured.Unstructured
}

func TestLive(t *testing.T) {
	env := harness.MustStart(t, harness.WithoutReportsController())
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	l := &live{t: t, env: env, ctx: ctx, applied: map[string]*unstructured.Unstructured{}}

	for _, ns := range []string{"shop", "audited", "appscope", "excl", "hostile"} {
		l.ok("create", "namespace", ns)
	}
	checkout := map[string]string{"app": "checkout", "tier": "web"}
	for _, ns := range []string{"shop", "audited", "appscope", "excl", "hostile"} {
		l.deployment(ns, "web", checkout)
	}
	l.deployment("appscope", "other", map[string]string{"app": "search", "tier": "web"})
	l.deployment("excl", "front", checkout)
	l.ok("-n", "shop", "create", "configmap", "cfg", "--from-literal=a=1")
	l.ok("-n", "shop", "create", "secret", "generic", "s", "--from-literal=k=v")

	t.Run("every template, read back equal to its render", func(t *testing.T) {
		for _, tmpl := range render.Catalog() {
			if tmpl.Name() == "all-writes" {
				continue // applied last: it refuses everything
			}
			l.applyGolden(tmpl.Name()+"_namespaces_enforce", "", true)
		}
	})
	t.Run("refusals and admissions in shop", func(t *testing.T) {
		l.refused("shop/summer-freeze-scaling", "replicas", "-n", "shop", "scale", "deployment/web", "--replicas=3")
		l.refused("shop/summer-freeze-scaling", "replicas", "-n", "shop", "patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
		l.refused("shop/summer-freeze-image-change", "template-images", "-n", "shop", "set", "image", "deployment/web", "app=nginx:2")
		l.refused("shop/summer-freeze-rollout-restart", "restart", "-n", "shop", "rollout", "restart", "deployment/web")
		l.refused("shop/summer-freeze-configmap-edits", "configmap-data", "-n", "shop", "patch", "configmap", "cfg", "-p", `{"data":{"a":"2"}}`)
		l.refused("shop/summer-freeze-secret-edits", "secret-delete", "-n", "shop", "delete", "secret", "s")
		l.refused("shop/summer-freeze-create", "create", "-n", "shop", "create", "deployment", "new", "--image=nginx:1")
		l.refused("shop/summer-freeze-delete", "delete", "-n", "shop", "delete", "deployment", "web")
		l.ok("-n", "shop", "label", "deployment", "web", "x=y")
		l.ok("-n", "shop", "label", "configmap", "cfg", "x=y")
		// Reordering containers is not an image change.
		l.ok("-n", "shop", "patch", "deployment", "web", "--type=merge", "-p",
			`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1"},{"name":"app","image":"nginx:1"}]}}}}`)
		// Kube-system controllers (the HPA) are exempt; system:masters only
		// gives the impersonated account the RBAC to patch.
		l.ok("-n", "shop", "scale", "deployment/web", "--replicas=4",
			"--as=system:serviceaccount:kube-system:horizontal-pod-autoscaler", "--as-group=system:masters")
	})
	t.Run("all-writes", func(t *testing.T) {
		l.applyGolden("all-writes_namespaces_enforce", "", true)
		l.refused("shop/summer-freeze-all-writes", "writes", "-n", "shop", "label", "deployment", "web", "y=z")
		l.refused("shop/summer-freeze-all-writes", "writes", "-n", "shop", "scale", "deployment/web", "--replicas=1")
	})
	t.Run("audit records the exact message", func(t *testing.T) {
		docs := l.applyGolden("scaling_namespaces_audit", "audited", false)
		l.ok("-n", "audited", "scale", "deployment/web", "--replicas=3")
		l.eventWithMessage("audited", messageOf(t, docs[0], "replicas"))
	})
	t.Run("applications scope reads /scale's parent labels", func(t *testing.T) {
		l.applyGolden("scaling_applications_enforce", "appscope", false)
		l.applyGolden("image-change_applications_enforce", "appscope", false)
		l.refused("appscope/checkout-freeze-scaling", "replicas-deployments-scale", "-n", "appscope", "scale", "deployment/web", "--replicas=3")
		l.refused("appscope/checkout-freeze-scaling", "replicas", "-n", "appscope", "patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
		l.ok("-n", "appscope", "scale", "deployment/other", "--replicas=3")
		l.refused("appscope/checkout-freeze-image-change", "template-images", "-n", "appscope", "patch", "deployment", "web", "--type=merge", "-p",
			`{"metadata":{"labels":{"app":null}},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:9"}]}}}}`)
		l.ok("-n", "appscope", "set", "image", "deployment/other", "app=nginx:2")
		// The scope guard: moving web out of checkout is the first step of
		// escaping the freeze, and is refused.
		l.refusedExact("appscope/checkout-freeze-scaling", "scope-guard", guardMessage, "-n", "appscope", "label", "deployment", "web", "app-")
		l.refusedExact("appscope/checkout-freeze-image-change", "scope-guard", guardMessage, "-n", "appscope", "label", "deployment", "web", "tier=batch", "--overwrite")
		l.ok("-n", "appscope", "label", "deployment", "web", "owner=team-a")
	})
	t.Run("named exclusions, with their /scale", func(t *testing.T) {
		l.applyGolden("exclusions_resources_applications", "excl", false)
		l.ok("-n", "excl", "scale", "deployment/web", "--replicas=3")
		l.refused("excl/checkout-freeze-scaling", "replicas-deployments-scale", "-n", "excl", "scale", "deployment/front", "--replicas=3")
	})
	t.Run("hostile text comes out exactly", func(t *testing.T) {
		docs := l.applyGolden("hostile", "hostile", false)
		_, stderr, err := env.Kubectl(ctx, "-n", "hostile", "scale", "deployment/web", "--replicas=3")
		if err == nil {
			t.Fatal("kubectl scale was admitted")
		}
		want := messageOf(t, docs[0], "replicas")
		if got := blockedMessage(t, stderr, docs[0].GetName(), "replicas"); got != want {
			t.Errorf("Kyverno's message:\n%q\nwant\n%q", got, want)
		}
	})
	for _, target := range []render.Target{render.TargetKyvernoCEL, render.TargetVAP} {
		t.Run(string(target), func(t *testing.T) { l.targetChecks(t, target) })
	}
	t.Run("every golden is accepted and reads back equal", func(t *testing.T) {
		// All at once, each policy in its own namespace, then checked one
		// by one (no admission check here, so no settle delay).
		files, _ := filepath.Glob(filepath.Join(goldenDir, "*.golden"))
		var all []*unstructured.Unstructured
		for i, f := range files {
			if strings.HasPrefix(filepath.Base(f), "custom_kinds") {
				// Custom kinds need their CRDs: examples/e2e/matrix's
				// TestCustomKinds installs one and applies such policies.
				continue
			}
			objs := l.readGolden(render.TargetKyverno, strings.TrimSuffix(filepath.Base(f), ".golden"), "")
			for j, o := range objs {
				if o.GetNamespace() == "" { // a ClusterPolicy: a name of its own
					o.SetName(fmt.Sprintf("%s-g-%d-%d", o.GetName(), i, j))
					continue
				}
				ns := fmt.Sprintf("g-%d-%d", i, j)
				l.ok("create", "namespace", ns)
				o.SetNamespace(ns)
			}
			l.apply(objs)
			all = append(all, objs...)
		}
		for _, o := range all {
			l.waitReady(o.GetNamespace(), o.GetName())
			l.compare(o, false)
		}
	})
}

// applyGolden applies a golden file's policies, in namespace ns when not
// empty (the specs do not depend on it; the expected hash is recomputed),
// waits until each is ready, reads it back and compares. save writes the
// read-back object to render/testdata/live/<template>.json when
// PROTECTIONPLANS_UPDATE_LIVE=1.
func (l *live) applyGolden(name, ns string, save bool) []*unstructured.Unstructured {
	l.t.Helper()
	objs := l.readGolden(render.TargetKyverno, name, ns)
	l.apply(objs)
	for _, o := range objs {
		if err := l.env.WaitPolicyReady(l.ctx, o.GetNamespace(), o.GetName()); err != nil {
			l.t.Fatalf("%s: %s/%s never became ready: %v", name, o.GetNamespace(), o.GetName(), err)
		}
		l.compare(o, save)
	}
	return objs
}

// readGolden reads a golden file of a target, its objects moved to
// namespace ns when not empty (moveTo; their specs do not otherwise
// depend on it).
func (l *live) readGolden(target render.Target, name, ns string) []*unstructured.Unstructured {
	l.t.Helper()
	b, err := os.ReadFile(filepath.Join(targetGoldenDir(target), name+".golden"))
	if err != nil {
		l.t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, doc := range bytes.Split(b, []byte("---\n"))[1:] {
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			l.t.Fatal(err)
		}
		o := &unstructured.Unstructured{Object: m}
		if ns != "" {
			moveTo(o, ns)
		}
		objs = append(objs, o)
	}
	return objs
}

// apply applies objects with server-side apply, as the operator does.
func (l *live) apply(objs []*unstructured.Unstructured) {
	l.t.Helper()
	for _, o := range objs {
		l.applied[o.GetNamespace()+"/"+o.GetName()] = o
		j, _ := json.Marshal(o.Object)
		l.okInput(string(j), "apply", "--server-side", "--field-manager=protectionplans", "-f", "-")
	}
}

// compare reads a policy back and compares its spec and hash with the
// render; with save and PROTECTIONPLANS_UPDATE_LIVE=1 it keeps the object.
func (l *live) compare(o *unstructured.Unstructured, save bool) {
	l.t.Helper()
	back := l.get(o.GetNamespace(), o.GetName())
	if diff := cmp.Diff(o.Object["spec"], back.Object["spec"]); diff != "" {
		l.t.Errorf("%s/%s: live spec differs from the render (-render +live):\n%s", o.GetNamespace(), o.GetName(), diff)
	}
	want, _ := render.HashOf(o)
	if got, err := render.HashOf(back); err != nil || got != want {
		l.t.Errorf("%s/%s: HashOf(live) = %s, want %s (%v)", o.GetNamespace(), o.GetName(), got, want, err)
	}
	if save && updateLive(render.TargetKyverno) {
		tmpl := o.GetLabels()[render.LabelTemplate]
		out, _ := json.MarshalIndent(back.Object, "", "  ")
		if err := os.WriteFile(filepath.Join(goldenDir, "live", tmpl+".json"), append(out, '\n'), 0o644); err != nil {
			l.t.Fatal(err)
		}
	}
}

// waitReady waits for the policy's Ready condition, without the harness's
// settle delay.
func (l *live) waitReady(ns, name string) {
	l.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		conds, _, _ := unstructured.NestedSlice(l.get(ns, name).Object, "status", "conditions")
		for _, c := range conds {
			if m, _ := c.(map[string]any); m["type"] == "Ready" && m["status"] == "True" {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	l.t.Fatalf("%s/%s never became ready", ns, name)
}

func (l *live) get(ns, name string) *unstructured.Unstructured {
	l.t.Helper()
	args := []string{"-n", ns, "get", "policies.kyverno.io", name, "-o", "json"}
	if ns == "" { // a ClusterPolicy (a namespaceSelectors scope)
		args = []string{"get", "clusterpolicies.kyverno.io", name, "-o", "json"}
	}
	out := l.ok(args...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		l.t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// deployment creates a Deployment with containers app (nginx:1) and
// sidecar (busybox:1).
func (l *live) deployment(ns, name string, labels map[string]string) {
	l.t.Helper()
	sel := map[string]any{"fixture": name}
	d := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
		"spec": map[string]any{
			"replicas": 2,
			"selector": map[string]any{"matchLabels": sel},
			"template": map[string]any{
				"metadata": map[string]any{"labels": sel},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "app", "image": "nginx:1"},
					map[string]any{"name": "sidecar", "image": "busybox:1"},
				}},
			},
		},
	}
	j, _ := json.Marshal(d)
	l.okInput(string(j), "apply", "-f", "-")
}

func (l *live) ok(args ...string) string {
	l.t.Helper()
	out, stderr, err := l.env.Kubectl(l.ctx, args...)
	if err != nil {
		l.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return out
}

func (l *live) okInput(stdin string, args ...string) {
	l.t.Helper()
	if _, stderr, err := l.env.KubectlInput(l.ctx, stdin, args...); err != nil {
		l.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
}

// refused runs kubectl and expects Kyverno to refuse it, with the exact
// (decoded) message of the rule of the applied policy "<namespace>/<name>".
func (l *live) refused(policy, rule string, args ...string) {
	l.t.Helper()
	_, stderr, err := l.env.Kubectl(l.ctx, args...)
	if err == nil {
		l.t.Errorf("kubectl %s was admitted, want refused by %s/%s", strings.Join(args, " "), policy, rule)
		return
	}
	o := l.applied[policy]
	if o == nil {
		l.t.Fatalf("%s was not applied", policy)
	}
	want := messageOf(l.t, o, rule)
	l.t.Logf("kubectl %s refused by %s/%s: %q", strings.Join(args, " "), policy, rule, want)
	if got := blockedMessage(l.t, stderr, o.GetName(), rule); got != want {
		l.t.Errorf("kubectl %s: refused with\n%s\nwant the message of %s/%s: %q", strings.Join(args, " "), stderr, policy, rule, want)
	}
}

// eventWithMessage waits for a PolicyViolation event carrying msg.
func (l *live) eventWithMessage(ns, msg string) {
	l.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out := l.ok("-n", ns, "get", "events", "--field-selector=reason=PolicyViolation", "-o", "json")
		var list struct {
			Items []struct{ Message string } `json:"items"`
		}
		_ = json.Unmarshal([]byte(out), &list)
		for _, e := range list.Items {
			if strings.Contains(e.Message, msg) {
				return
			}
		}
		time.Sleep(time.Second)
	}
	l.t.Errorf("no PolicyViolation event in %s carries %q", ns, msg)
}

// messageOf decodes the message of a rule of a rendered policy.
func messageOf(t *testing.T, o *unstructured.Unstructured, rule string) string {
	t.Helper()
	rules, _, _ := unstructured.NestedSlice(o.Object, "spec", "rules")
	for _, r := range rules {
		rm := r.(map[string]any)
		if rm["name"] != rule {
			continue
		}
		msg := rm["validate"].(map[string]any)["message"].(string)
		m := regexp.MustCompile(`base64_decode\('([^']*)'\)`).FindStringSubmatch(msg)
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Fatalf("no rule %s", rule)
	return ""
}

// blockedMessage reads the message of policy/rule from the YAML Kyverno
// appends to a refusal ("... blocked due to the following policies\n\n
// <policy>:\n  <rule>: <message>").
func blockedMessage(t *testing.T, stderr, policy, rule string) string {
	t.Helper()
	i := strings.Index(stderr, "following policies")
	if i < 0 {
		t.Fatalf("not a Kyverno refusal: %s", stderr)
	}
	var m map[string]map[string]string
	if err := yaml.Unmarshal([]byte(stderr[i+len("following policies"):]), &m); err != nil {
		t.Fatalf("%v in %s", err, stderr)
	}
	return m[policy][rule]
}

// updateLive reports whether PROTECTIONPLANS_UPDATE_LIVE asks to rewrite
// the live samples of a target: "1" for every target, or a comma-separated
// list of targets.
func updateLive(target render.Target) bool {
	v := os.Getenv("PROTECTIONPLANS_UPDATE_LIVE")
	return v == "1" || slices.Contains(strings.Split(v, ","), string(target))
}
