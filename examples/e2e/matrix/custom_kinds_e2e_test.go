//go:build e2e

package matrix

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// scalableCRD is a small custom resource named kind (plural plural) with
// a /scale subresource whose replicas are spec.<replicas>.
func scalableCRD(kind, plural, replicas string) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[2]s.e2e.telark.io
spec:
  group: e2e.telark.io
  scope: Namespaced
  names: {plural: %[2]s, singular: %[3]s, kind: %[1]s, listKind: %[1]sList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.%[4]s, statusReplicasPath: .status.%[4]s}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              %[4]s: {type: integer}
              color: {type: string}
          status:
            type: object
            properties:
              %[4]s: {type: integer}
`, kind, plural, strings.ToLower(kind), replicas)
}

// widgetCRD has its replicas at .spec.replicas, as Argo Rollouts'
// Rollout has; gadgetCRD at .spec.instances, as CloudNativePG's Cluster.
var (
	widgetCRD = scalableCRD("Widget", "widgets", "replicas")
	gadgetCRD = scalableCRD("Gadget", "gadgets", "instances")
)

// widgetKind and gadgetKind are their discovery facts, as an embedder
// reads them.
var (
	widgetKind = plan.ServedKind{Group: "e2e.telark.io", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, ScaleReplicasPath: ".spec.replicas"}
	gadgetKind = plan.ServedKind{Group: "e2e.telark.io", Version: "v1", Kind: "Gadget", Resource: "gadgets",
		Namespaced: true, ScaleReplicasPath: ".spec.instances"}
)

// TestCustomKinds freezes a custom resource on the real admission chain
// of each target (issue 23): a plan on one namespace with delete (kinds
// Deployment and Widget.e2e.telark.io) and scaling refuses deleting a
// Widget and kubectl scale of it, and admits a spec change that is not
// its replicas; in a namespace out of scope both are admitted. A Gadget,
// whose CRD's /scale reads .spec.instances, is frozen for kubectl scale
// and for patches of spec.instances. No
// operator: the test renders (render.Input.Kinds, the CRD's discovery
// facts) and applies the policies itself.
func TestCustomKinds(t *testing.T) {
	if s.run != nil {
		t.Fatal("an operator is running")
	}
	ctx := t.Context()
	if left, err := anyManagedObject(ctx); err != nil || left != "" {
		t.Fatalf("managed policies left by an earlier test: %s %v", left, err)
	}
	if _, _, err := s.env.KubectlInput(ctx, widgetCRD+"---\n"+gadgetCRD, "apply", "-f", "-"); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "the Widget and Gadget CRDs served", func() (string, bool) {
		_, _, err := s.env.Kubectl(ctx, "get", "widgets,gadgets", "-A")
		return "", err == nil
	})
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) { customKindPhase(t, target) })
	}
}

func customKindPhase(t *testing.T, target render.Target) {
	ctx := t.Context()
	short := map[render.Target]string{render.TargetKyverno: "kyv", render.TargetKyvernoCEL: "cel", render.TargetVAP: "vap"}[target]
	in, out := "ck-"+short+"-in", "ck-"+short+"-out"
	kubectl := func(args ...string) error {
		_, _, err := s.env.Kubectl(ctx, args...)
		return err
	}
	for _, ns := range []string{in, out} {
		if err := createNamespace(ctx, s.c, ns); err != nil {
			t.Fatal(err)
		}
		w := "apiVersion: e2e.telark.io/v1\nkind: Widget\nmetadata: {name: w, namespace: " + ns + "}\nspec: {replicas: 1, color: blue}\n" +
			"---\napiVersion: e2e.telark.io/v1\nkind: Gadget\nmetadata: {name: g, namespace: " + ns + "}\nspec: {instances: 1, color: blue}\n"
		if _, _, err := s.env.KubectlInput(ctx, w, "apply", "-f", "-"); err != nil {
			t.Fatal(err)
		}
	}
	p := latencyPlan("ck-"+short, in, "scaling")
	p.Spec.Templates = append(p.Spec.Templates, plan.TemplateRef{Name: "delete", Parameters: map[string]string{"kinds": "Deployment,Widget.e2e.telark.io"}})
	res, err := render.Render(render.Input{Plan: p, Now: time.Now(), Target: target, Kinds: plan.ServedKinds{widgetKind, gadgetKind}})
	if err != nil {
		t.Fatal(err)
	}
	specOf(target).applyPolicies(t, res.Objects(), "e2e-custom-kinds")
	refusedDry := func(args ...string) (bool, string) {
		err := kubectl(append(args, "--dry-run=server")...)
		if err != nil && !refused(err.Error()) {
			t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
		}
		return err != nil, strings.TrimSpace(strings.ReplaceAll(errText(err), "\n", " "))
	}
	// Kyverno learns a new CRD's kinds through its discovery cache, and
	// updates its webhooks asynchronously: wait for the first refusal.
	began := time.Now()
	eventually(t, 2*time.Minute, "deleting the Widget in "+in+" refused", func() (string, bool) {
		ok, why := refusedDry("-n", in, "delete", "widget", "w")
		return why, ok
	})
	t.Logf("%s: deleting a Widget refused %s after the policies were applied", target, time.Since(began).Round(time.Millisecond))
	for _, c := range []struct {
		what string
		args []string
		want bool
	}{
		{"kubectl scale of the Widget in scope", []string{"-n", in, "scale", "widget", "w", "--replicas=3"}, true},
		{"a patch of the Widget's spec.replicas in scope", []string{"-n", in, "patch", "widget", "w", "--type=merge", "-p", `{"spec":{"replicas":4}}`}, true},
		{"a patch of the Widget's color in scope", []string{"-n", in, "patch", "widget", "w", "--type=merge", "-p", `{"spec":{"color":"red"}}`}, false},
		{"deleting the Widget out of scope", []string{"-n", out, "delete", "widget", "w"}, false},
		{"kubectl scale of the Widget out of scope", []string{"-n", out, "scale", "widget", "w", "--replicas=3"}, false},
		{"kubectl scale of the Gadget (replicas at .spec.instances) in scope", []string{"-n", in, "scale", "gadget", "g", "--replicas=3"}, true},
		{"a patch of the Gadget's spec.instances in scope", []string{"-n", in, "patch", "gadget", "g", "--type=merge", "-p", `{"spec":{"instances":4}}`}, true},
		{"a patch of the Gadget's color in scope", []string{"-n", in, "patch", "gadget", "g", "--type=merge", "-p", `{"spec":{"color":"red"}}`}, false},
		{"kubectl scale of the Gadget out of scope", []string{"-n", out, "scale", "gadget", "g", "--replicas=3"}, false},
	} {
		if got, why := refusedDry(c.args...); got != c.want {
			t.Errorf("%s: refused %v, want %v (%s)", c.what, got, c.want, why)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "admitted"
	}
	return err.Error()
}
