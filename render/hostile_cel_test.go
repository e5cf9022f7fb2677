package render

import (
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

// User text in the CEL targets: plan and application names reach messages
// only. A validation's message is literal for both Kyverno and the API
// server; a scope guard's messageExpression holds the text as CEL string
// literals around the request's kind and name. These tests hold both to
// reading back exactly (vap: with line breaks as spaces), and the rest of
// every policy to being the same as for a plain name.

// hostileApp is the checkout application with a hostile name.
func hostileApp(name string) plan.Application {
	app := checkoutApp()
	app.Name = name
	return app
}

func TestHostile_CELMessagesAreExactAndInert(t *testing.T) {
	leave := update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", nil, 2, "a=x:1"))
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		text := translators[target].traits().text
		for _, name := range hostileNames {
			for _, mode := range []plan.Mode{plan.ModeAudit, plan.ModeEnforce} {
				t.Run(string(target)+"/"+string(mode)+"/"+name, func(t *testing.T) {
					p := appPlan(mode, tpl("scaling"))
					p.Spec.Name, p.Spec.Description = name, name
					p.Spec.Scope.Applications = []string{name}
					in := Input{Plan: p, Applications: []plan.Application{hostileApp(name)}, Now: now, Target: target}
					obj := mustRender(t, in).Policies[0].Objects[0]
					for _, problem := range checkPolicyCEL(target, obj) {
						t.Error(problem)
					}
					validations, _, _ := unstructured.NestedSlice(obj.Object, "spec", "validations")
					want := "scaling is frozen by protection plan " + name + " until 2026-07-24 06:00 CEST"
					if mode == plan.ModeAudit {
						want = "would be blocked by protection plan " + name + ": scaling"
					}
					if got := validations[0].(map[string]any)["message"]; got != text(want) {
						t.Errorf("message = %q, want %q", got, text(want))
					}
					d, _ := Explain(in, leave)
					guard := validations[1].(map[string]any)
					got := evalMessage(t, target, guard["messageExpression"].(string), leave)
					if got != d.Message || !strings.Contains(d.Message, "Deployment web out of application") {
						t.Errorf("guard message = %q, Explain says %q", got, d.Message)
					}
					if strings.ContainsAny(got, "\r\n") && target == TargetVAP {
						t.Errorf("a vap message has a line break: %q", got)
					}
				})
			}
		}
	}
}

// evalMessage evaluates a messageExpression on a request.
func evalMessage(t *testing.T, target Target, expr string, req Request) string {
	t.Helper()
	env, err := celEnv(target, nil)
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(celActivation(t, target, req.normalized()))
	if err != nil {
		t.Fatal(err)
	}
	return string(out.(types.String))
}

// TestHostile_CELUserTextReachesOnlyMessages renders a plan and an
// application named with every hostile string at once and compares with
// plain names: only messages differ.
func TestHostile_CELUserTextReachesOnlyMessages(t *testing.T) {
	hostile := strings.Join(hostileNames, " | ")
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		render := func(name string) []*unstructured.Unstructured {
			p := appPlan(plan.ModeEnforce, tpl("scaling"), tpl("secret-edits"))
			p.Spec.Name, p.Spec.Description = name, name
			p.Spec.Scope.Applications = []string{name}
			return mustRender(t, Input{Plan: p, Applications: []plan.Application{hostileApp(name)}, Now: now, Target: target}).Objects()
		}
		got, want := render(hostile), render("plain")
		if len(got) != len(want) {
			t.Fatalf("%s: %d objects, %d for a plain name", target, len(got), len(want))
		}
		for i := range got {
			if diff := cmp.Diff(withoutMessages(want[i].Object), withoutMessages(got[i].Object)); diff != "" {
				t.Errorf("%s: user text changed more than messages (-plain +hostile):\n%s", target, diff)
			}
		}
	}
}

// withoutMessages drops messages, message expressions and hashes.
func withoutMessages(obj map[string]any) any {
	o := (&unstructured.Unstructured{Object: obj}).DeepCopy()
	unstructured.RemoveNestedField(o.Object, "metadata", "annotations", AnnotationRenderHash)
	// The templates' hashes (a compact policy) hash messages too.
	unstructured.RemoveNestedField(o.Object, "metadata", "annotations", AnnotationTemplateHashes)
	validations, _, _ := unstructured.NestedSlice(o.Object, "spec", "validations")
	for _, v := range validations {
		delete(v.(map[string]any), "message")
		delete(v.(map[string]any), "messageExpression")
	}
	_ = unstructured.SetNestedSlice(o.Object, validations, "spec", "validations")
	return o.Object
}
