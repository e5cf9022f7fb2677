//go:build e2e

package kyverno_test

import (
	"regexp"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"

	"github.com/telark/protectionplans/render"
)

const (
	// guardMessage is the scope guard's message for Deployment web leaving
	// checkout, in the enforce goldens of the applications scope.
	guardMessage = "moving Deployment web out of application checkout is frozen by protection plan Checkout freeze until 2026-07-24 06:00 CEST"
	anyPolicy    = "*"
)

// targetChecks runs the live checks of a CEL target (see
// live_targets_e2e_test.go).
func (l *live) targetChecks(t *testing.T, target render.Target) {
	p := map[render.Target]string{render.TargetKyvernoCEL: "cel-", render.TargetVAP: "vap-"}[target]
	// policy names a policy of the target rendering template in ns.
	policy := func(plan, template, ns string) string {
		if target == render.TargetVAP {
			return render.VAPName(plan, template, ns)
		}
		return render.PolicyName(plan, template)
	}
	golden := func(name, ns string) []*unstructured.Unstructured {
		objs := l.readGolden(target, name, ns)
		l.applyTarget(objs, false)
		return objs
	}
	t.Run("every template, read back equal to its render", func(t *testing.T) { l.everyTemplateReadsBack(target) })
	if target == render.TargetVAP {
		t.Run("no type-checking warning from the API server's type checker", func(t *testing.T) { l.typeCheckVAPs(t) })
	}
	l.setUpTargetNamespaces(p)
	shop := p + "shop"
	t.Run("refusals and admissions", func(t *testing.T) {
		l.ok("-n", shop, "run", "p1", "--image=nginx:1", "--restart=Never")
		byTemplate := map[string]*unstructured.Unstructured{}
		for _, tmpl := range render.Catalog() {
			if tmpl.Name() != "all-writes" {
				byTemplate[tmpl.Name()] = golden(tmpl.Name()+"_namespaces_enforce", shop)[0]
			}
		}
		refused := func(template, rule string, args ...string) {
			l.refusedWith(target, policy("summer-freeze", template, shop), messageOfRule(t, byTemplate[template], rule), append([]string{"-n", shop}, args...)...)
		}
		refused("scaling", "replicas", "scale", "deployment/web", "--replicas=3")
		refused("scaling", "replicas", "patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
		refused("image-change", "template-images", "set", "image", "deployment/web", "app=nginx:2")
		refused("image-change", "pod-images", "debug", "p1", "--image=busybox:1", "-c", "debugger")
		refused("rollout-restart", "restart", "rollout", "restart", "deployment/web")
		refused("configmap-edits", "configmap-data", "patch", "configmap", "cfg", "-p", `{"data":{"a":"2"}}`)
		refused("secret-edits", "secret-delete", "delete", "secret", "s")
		refused("create", "create", "create", "deployment", "new", "--image=nginx:1")
		refused("delete", "delete", "delete", "deployment", "web")
		l.ok("-n", shop, "label", "deployment", "web", "x=y")
		l.ok("-n", shop, "label", "configmap", "cfg", "x=y")
		l.ok("-n", shop, "patch", "deployment", "web", "--type=merge", "-p",
			`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1"},{"name":"app","image":"nginx:1"}]}}}}`)
		l.ok("-n", shop, "scale", "deployment/web", "--replicas=4",
			"--as=system:serviceaccount:kube-system:horizontal-pod-autoscaler", "--as-group=system:masters")
	})
	t.Run("all-writes", func(t *testing.T) {
		o := golden("all-writes_namespaces_enforce", p+"aw")[0]
		for _, args := range [][]string{{"label", "deployment", "web", "y=z"}, {"scale", "deployment/web", "--replicas=1"}} {
			l.refusedWith(target, policy("summer-freeze", "all-writes", p+"aw"), messageOfRule(t, o, "writes"), append([]string{"-n", p + "aw"}, args...)...)
		}
	})
	t.Run("audit records the exact message", func(t *testing.T) {
		o := golden("scaling_namespaces_audit", p+"audited")[0]
		want := messageOfRule(t, o, "replicas")
		_, stderr, err := l.env.Kubectl(l.ctx, "-n", p+"audited", "scale", "deployment/web", "--replicas=3")
		if err != nil {
			t.Fatalf("an audited scale was refused: %v\n%s", err, stderr)
		}
		if target == render.TargetVAP {
			warning := "Warning: Validation failed for ValidatingAdmissionPolicy '" + o.GetName() + "' with binding '" + o.GetName() + "': " + want
			if !strings.Contains(stderr, warning) {
				t.Errorf("no warning %q in\n%s", warning, stderr)
			}
			return
		}
		l.eventWithMessage(p+"audited", want)
	})
	t.Run("applications scope: /scale, and the scope guard", func(t *testing.T) {
		app := p + "appscope"
		scaling := golden("scaling_applications_enforce", app)[0]
		images := golden("image-change_applications_enforce", app)[0]
		replicas := messageOfRule(t, scaling, "replicas")
		l.refusedWith(target, policy("checkout-freeze", "scaling", app), replicas, "-n", app, "scale", "deployment/web", "--replicas=3")
		l.refusedWith(target, policy("checkout-freeze", "scaling", app), replicas, "-n", app, "patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
		l.ok("-n", app, "scale", "deployment/other", "--replicas=3")
		// The first step of the two-step escape is refused.
		l.refusedWith(target, anyPolicy, guardMessage, "-n", app, "label", "deployment", "web", "app-")
		l.refusedWith(target, anyPolicy, guardMessage, "-n", app, "label", "deployment", "web", "tier=batch", "--overwrite")
		l.ok("-n", app, "label", "deployment", "web", "owner=team-a")
		// Leaving and changing the image at once: the image-change policy
		// says so first (its rules come before its guard), the scaling
		// policy has only its guard to say.
		l.refusedWithOneOf(target, anyPolicy, []string{guardMessage, messageOfRule(t, images, "template-images")}, "-n", app, "patch", "deployment", "web", "--type=merge", "-p",
			`{"metadata":{"labels":{"app":null}},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:9"}]}}}}`)
		l.ok("-n", app, "set", "image", "deployment/other", "app=nginx:2")
		l.ok("-n", app, "label", "deployment", "other", "app-")
	})
	t.Run("named exclusions, with their /scale", func(t *testing.T) {
		excl := p + "excl"
		o := golden("exclusions_resources_applications", excl)[0]
		l.ok("-n", excl, "scale", "deployment/web", "--replicas=3")
		if target == render.TargetVAP {
			// front carries checkout's labels but is not among its resolved
			// members: vap cannot read a Scale's parent (the documented
			// limitation), while a spec.replicas patch is still refused.
			l.ok("-n", excl, "scale", "deployment/front", "--replicas=3")
			l.refusedWith(target, o.GetName(), messageOfRule(t, o, "replicas"), "-n", excl, "patch", "deployment", "front", "--type=merge", "-p", `{"spec":{"replicas":5}}`)
			return
		}
		l.refusedWith(target, o.GetName(), messageOfRule(t, o, "replicas"), "-n", excl, "scale", "deployment/front", "--replicas=4")
	})
	t.Run("hostile text comes out exactly", func(t *testing.T) {
		o := golden("hostile", p+"hostile")[0]
		l.refusedWith(target, o.GetName(), messageOfRule(t, o, "replicas"), "-n", p+"hostile", "scale", "deployment/web", "--replicas=3")
	})
	t.Run("every golden is accepted and reads back equal", func(t *testing.T) { l.everyGoldenReadsBack(target) })
}

// refusedBy matches the policy named in a refusal of either CEL target.
var refusedBy = regexp.MustCompile(`(Policy (\S+) failed: |ValidatingAdmissionPolicy '([^']+)' with binding '[^']+' denied request: )`)

// typeCheckVAPs runs the API server's type checker (what the controller
// manager's status controller writes into status.typeChecking) on every
// VAP golden, against the live server's OpenAPI schemas, and checks that
// it does see a mistake.
func (l *live) typeCheckVAPs(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(l.env.Config)
	if err != nil {
		t.Fatal(err)
	}
	checker := &validating.TypeChecker{
		SchemaResolver: &resolver.ClientDiscoveryResolver{Discovery: dc},
		RestMapper:     restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
	}
	check := func(o *unstructured.Unstructured) []admissionregistrationv1.ExpressionWarning {
		var vap admissionregistrationv1.ValidatingAdmissionPolicy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &vap); err != nil {
			t.Fatal(err)
		}
		return checker.Check(&vap)
	}
	n := 0
	for _, f := range goldenFiles(t, render.TargetVAP) {
		for _, o := range l.readGolden(render.TargetVAP, f, "") {
			if o.GetKind() != "ValidatingAdmissionPolicy" {
				continue
			}
			n++
			for _, w := range check(o) {
				t.Errorf("%s %s: %s: %s", f, o.GetName(), w.FieldRef, w.Warning)
			}
		}
	}
	t.Logf("%d ValidatingAdmissionPolicies type-checked", n)
	o := l.readGolden(render.TargetVAP, "scaling_namespaces_enforce", "")[0]
	validations, _, _ := unstructured.NestedSlice(o.Object, "spec", "validations")
	v := validations[0].(map[string]any)
	v["expression"] = strings.Replace(v["expression"].(string), "?replicas", "?replica", 1)
	_ = unstructured.SetNestedSlice(o.Object, validations, "spec", "validations")
	if w := check(o); len(w) == 0 {
		t.Error("the type checker let object.spec.replica through")
	} else {
		t.Logf("a typo is caught: %s", w[0].Warning)
	}
}

func goldenFiles(t *testing.T, target render.Target) []string {
	t.Helper()
	var out []string
	for _, tmpl := range render.Catalog() {
		for _, scope := range []string{"namespaces", "applications"} {
			for _, mode := range []string{"audit", "enforce"} {
				out = append(out, tmpl.Name()+"_"+scope+"_"+mode)
			}
		}
	}
	return append(out, "exclusions_kinds_namespaces", "exclusions_resources_applications", "multi_namespace",
		"multi_application", "parameters", "hostile", "applications_members_and_guards",
		// The compact layout reads objects through dyn(), so that the type
		// checker stays quiet although one policy matches every kind.
		"compact_every_template_namespaces_enforce", "compact_every_template_applications_audit")
}

// refusedExact runs kubectl and expects Kyverno (kyverno.io/v1) to refuse
// it with exactly want from rule of the applied policy "<ns>/<name>".
func (l *live) refusedExact(policy, rule, want string, args ...string) {
	l.t.Helper()
	_, stderr, err := l.env.Kubectl(l.ctx, args...)
	if err == nil {
		l.t.Errorf("kubectl %s was admitted, want refused by %s/%s", strings.Join(args, " "), policy, rule)
		return
	}
	name := policy[strings.Index(policy, "/")+1:]
	if got := blockedMessage(l.t, stderr, name, rule); got != want {
		l.t.Errorf("kubectl %s: %s/%s said %q, want %q\n%s", strings.Join(args, " "), policy, rule, got, want, stderr)
	}
}
