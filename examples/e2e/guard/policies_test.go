package guard

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/render"
)

// OperatorWriter is the operator's service account in its default
// namespace, the writer the policies guard trusts.
const OperatorWriter = "system:serviceaccount:telark-system:protectionplans-operator"

// PoliciesManifestPath is config/admission/policies.yaml, the guard of the
// plans' Kyverno policies.
func PoliciesManifestPath() string {
	return filepath.Join(filepath.Dir(ManifestPath()), "policies.yaml")
}

func loadPoliciesManifest(t *testing.T) (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	data, err := os.ReadFile(PoliciesManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	p, b, err := Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", PoliciesManifestPath(), err)
	}
	return p, b
}

// TestPoliciesManifest: a native policy named as health expects, failing
// closed, bound in Deny mode, on UPDATE and DELETE of the Kyverno targets'
// kinds (main resource only: Kyverno writes their status), with the
// operator's identity on one line.
func TestPoliciesManifest(t *testing.T) {
	p, b := loadPoliciesManifest(t)
	if p.Name != health.GuardPolicyName || b.Name != health.GuardPolicyName {
		t.Errorf("names %q/%q, want health.GuardPolicyName %q (health reports the guard missing by that name)", p.Name, b.Name, health.GuardPolicyName)
	}
	if p.Spec.FailurePolicy == nil || *p.Spec.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy = %v, want Fail", p.Spec.FailurePolicy)
	}
	if b.Spec.PolicyName != p.Name || !slices.Equal(b.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) || b.Spec.MatchResources != nil {
		t.Errorf("binding %+v", b.Spec)
	}
	var got []string
	for _, r := range p.Spec.MatchConstraints.ResourceRules {
		ops := slices.Clone(r.Operations)
		slices.Sort(ops)
		if !slices.Equal(ops, []admissionregistrationv1.OperationType{admissionregistrationv1.Delete, admissionregistrationv1.Update}) {
			t.Errorf("rule %v: operations %v, want DELETE and UPDATE", r.Resources, r.Operations)
		}
		for _, g := range r.APIGroups {
			for _, v := range r.APIVersions {
				for _, res := range r.Resources {
					got = append(got, g+"/"+v+"/"+res)
				}
			}
		}
	}
	// Every kind the Kyverno targets render, no more, no subresource.
	var want []string
	resources := map[string]string{"Policy": "policies", "NamespacedValidatingPolicy": "namespacedvalidatingpolicies",
		"ClusterPolicy": "clusterpolicies", "ValidatingPolicy": "validatingpolicies"}
	for _, tg := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL} {
		kinds, err := render.KindsOf(tg)
		if err != nil {
			t.Fatal(err)
		}
		for _, gvk := range kinds {
			res, ok := resources[gvk.Kind]
			if !ok {
				t.Fatalf("target %s renders %s, which this test does not know: guard it and add it here", tg, gvk)
			}
			want = append(want, gvk.Group+"/"+gvk.Version+"/"+res)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("guarded resources %v, want the Kyverno targets' kinds %v", got, want)
	}
	data, _ := os.ReadFile(PoliciesManifestPath())
	if n := strings.Count(string(stripComments(data)), "'"+OperatorWriter+"'"); n != 1 {
		t.Errorf("the operator's identity appears %d times outside comments, want once (one line to edit)", n)
	}
}

// compileDyn compiles the policies guard with object and oldObject as
// dynamic maps (a Kyverno policy as the API server decodes a custom
// resource).
func compileDyn(t *testing.T, p *admissionregistrationv1.ValidatingAdmissionPolicy) *guard {
	t.Helper()
	env, err := cel.NewEnv(cel.OptionalTypes(),
		ext.NativeTypes(reflect.TypeFor[admissionv1.AdmissionRequest](), ext.ParseStructTag("json")),
		cel.Variable("object", cel.DynType), cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", requestType))
	if err != nil {
		t.Fatal(err)
	}
	prog := func(env *cel.Env, what, expr string) cel.Program {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s does not compile:\n%s\n%v", what, expr, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		return prg
	}
	g := &guard{}
	for _, c := range p.Spec.MatchConditions {
		g.matchConditions = append(g.matchConditions, namedProgram{c.Name, prog(env, "matchCondition "+c.Name, c.Expression)})
	}
	for _, v := range p.Spec.Variables {
		g.variables = append(g.variables, namedProgram{v.Name, prog(env, "variable "+v.Name, v.Expression)})
		if env, err = env.Extend(cel.Variable("variables."+v.Name, cel.DynType)); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range p.Spec.Validations {
		g.validations = append(g.validations, validation{
			expr: prog(env, "validation "+strconv.Itoa(i), v.Expression), staticMessage: v.Message,
			message: prog(env, "messageExpression "+strconv.Itoa(i), v.MessageExpression),
		})
	}
	return g
}

// kyvernoPolicy is a plan's Policy as the operator applies it.
func kyvernoPolicy(plan string, replicas bool) map[string]any {
	labels := map[string]any{render.LabelManagedBy: render.ManagedBy, render.LabelTemplate: "scaling"}
	if plan != "" {
		labels[render.LabelPlan] = plan
	}
	rules := []any{map[string]any{"name": "replicas"}}
	if !replicas {
		rules = []any{}
	}
	return map[string]any{
		"apiVersion": "kyverno.io/v1", "kind": "Policy",
		"metadata": map[string]any{"name": "summer-freeze-scaling", "namespace": "shop", "labels": labels,
			"annotations": map[string]any{render.AnnotationRenderHash: "sha256:1"}},
		"spec": map[string]any{"rules": rules},
	}
}

func TestPoliciesDecisions(t *testing.T) {
	p, _ := loadPoliciesManifest(t)
	g := compileDyn(t, p)
	unlabel := func() map[string]any {
		o := kyvernoPolicy("summer-freeze", true)
		u := unstructured.Unstructured{Object: o}
		u.SetLabels(map[string]string{render.LabelManagedBy: render.ManagedBy})
		return u.Object
	}
	withStatusAndFinalizer := func() map[string]any {
		o := kyvernoPolicy("summer-freeze", true)
		u := unstructured.Unstructured{Object: o}
		u.SetFinalizers([]string{"example.com/x"})
		u.SetResourceVersion("7")
		return u.Object
	}
	for _, tc := range []struct {
		name      string
		op        admissionv1.Operation
		user      string
		old, next map[string]any
		want      string // "" admitted, else a substring of the refusal
	}{
		{"a namespace admin cannot delete the freeze's policy, and is told which plan it enforces", admissionv1.Delete, "alice",
			kyvernoPolicy("summer-freeze", true), nil, "this policy enforces protection plan summer-freeze: only the operator removes it"},
		{"a namespace admin cannot edit its rules", admissionv1.Update, "alice",
			kyvernoPolicy("summer-freeze", true), kyvernoPolicy("summer-freeze", false), "protection plan summer-freeze: its rules, labels and annotations are the operator's"},
		{"a namespace admin cannot remove its labels", admissionv1.Update, "alice",
			kyvernoPolicy("summer-freeze", true), unlabel(), "protection plan summer-freeze"},
		{"an update that leaves spec, labels and annotations alone is admitted (finalizers, resourceVersion)", admissionv1.Update, "alice",
			kyvernoPolicy("summer-freeze", true), withStatusAndFinalizer(), ""},
		{"the operator repairs the policy", admissionv1.Update, OperatorWriter,
			kyvernoPolicy("summer-freeze", false), kyvernoPolicy("summer-freeze", true), ""},
		{"the operator withdraws the policy", admissionv1.Delete, OperatorWriter, kyvernoPolicy("summer-freeze", true), nil, ""},
		{"the namespace controller deletes a deleted namespace's policies", admissionv1.Delete,
			"system:serviceaccount:kube-system:namespace-controller", kyvernoPolicy("summer-freeze", true), nil, ""},
		{"the garbage collector deletes them too", admissionv1.Delete,
			"system:serviceaccount:kube-system:generic-garbage-collector", kyvernoPolicy("summer-freeze", true), nil, ""},
		{"a policy that is no plan's is not guarded", admissionv1.Delete, "alice", kyvernoPolicy("", true), nil, ""},
		{"another service account of the operator's namespace is not trusted", admissionv1.Delete,
			"system:serviceaccount:telark-system:someone-else", kyvernoPolicy("summer-freeze", true), nil, "protection plan summer-freeze"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]any{
				"request":   admissionv1.AdmissionRequest{Operation: tc.op, UserInfo: authenticationv1.UserInfo{Username: tc.user}},
				"oldObject": tc.old,
				"object":    any(types.NullValue),
			}
			if tc.next != nil {
				vars["object"] = tc.next
			}
			got := g.eval(t, tc.name, vars)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("refused: %s", got)
			case tc.want != "" && got == "":
				t.Errorf("admitted, want refused with %q", tc.want)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("refused with\n  %s\nwant it to contain\n  %s", got, tc.want)
			}
		})
	}
}
