package kyverno_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	policiesv1 "github.com/kyverno/api/api/policies.kyverno.io/v1"
	policiesv1beta1 "github.com/kyverno/api/api/policies.kyverno.io/v1beta1"
	celengine "github.com/kyverno/kyverno/pkg/cel/engine"
	"github.com/kyverno/kyverno/pkg/cel/libs"
	"github.com/kyverno/kyverno/pkg/cel/matching"
	"github.com/kyverno/kyverno/pkg/cel/policies/vpol"
	vpolcompiler "github.com/kyverno/kyverno/pkg/cel/policies/vpol/compiler"
	vpolengine "github.com/kyverno/kyverno/pkg/cel/policies/vpol/engine"
	engineapi "github.com/kyverno/kyverno/pkg/engine/api"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/render"
)

// The CEL targets against Kyverno's and Kubernetes' own code, without a
// cluster:
//
//   - TestGoldenNamespacedValidatingPolicies decodes every kyverno-cel
//     golden strictly into github.com/kyverno/api's
//     NamespacedValidatingPolicy, checks that nothing is lost, and runs
//     Kyverno's admission-time validation of the policy (which compiles
//     every expression with Kyverno's CEL environment and libraries);
//   - TestCELEnginesAgreeWithExplain (vap_test.go) replays the explain
//     corpus through Kyverno's CEL engine (pkg/cel/policies/vpol/engine,
//     with Kyverno's matcher; resource.Get served by Kyverno's fake
//     context with the case's parent) and the API server's policy code;
//   - TestGoldenValidatingAdmissionPolicies decodes every vap golden
//     strictly into k8s.io/api's types and compiles every expression with
//     the API server's compiler for validating admission policies.

func TestGoldenNamespacedValidatingPolicies(t *testing.T) {
	for name, doc := range goldenDocuments(t, render.TargetKyvernoCEL) {
		t.Run(name, func(t *testing.T) {
			var pol policiesv1.NamespacedValidatingPolicy
			if err := yaml.UnmarshalStrict(doc, &pol); err != nil {
				t.Fatalf("strict decode into policies.kyverno.io/v1 NamespacedValidatingPolicy: %v", err)
			}
			checkSpecSurvives(t, doc, &pol)
			var beta policiesv1beta1.NamespacedValidatingPolicy
			if err := yaml.UnmarshalStrict(doc, &beta); err != nil {
				t.Fatal(err)
			}
			warnings, err := vpol.Validate(&beta)
			if err != nil {
				t.Fatalf("Kyverno's policy validation refuses it: %v", err)
			}
			for _, w := range warnings {
				t.Logf("warning: %s", w)
			}
		})
	}
}

func TestGoldenValidatingAdmissionPolicies(t *testing.T) {
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	opts := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	for name, doc := range goldenDocuments(t, render.TargetVAP) {
		t.Run(name, func(t *testing.T) {
			var meta metav1.TypeMeta
			_ = yaml.Unmarshal(doc, &meta)
			if meta.Kind == "ValidatingAdmissionPolicyBinding" {
				var b admissionregistrationv1.ValidatingAdmissionPolicyBinding
				if err := yaml.UnmarshalStrict(doc, &b); err != nil {
					t.Fatalf("strict decode: %v", err)
				}
				checkSpecSurvives(t, doc, &b)
				return
			}
			var vap admissionregistrationv1.ValidatingAdmissionPolicy
			if err := yaml.UnmarshalStrict(doc, &vap); err != nil {
				t.Fatalf("strict decode: %v", err)
			}
			checkSpecSurvives(t, doc, &vap)
			compiler.CompileAndStoreVariables(convertVariables(vap.Spec.Variables), opts, environment.NewExpressions)
			for i, v := range vap.Spec.Validations {
				exprs := []plugincel.ExpressionAccessor{&validating.ValidationCondition{Expression: v.Expression}}
				if v.MessageExpression != "" {
					exprs = append(exprs, &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression})
				}
				for _, e := range exprs {
					if res := compiler.CompileCELExpression(e, opts, environment.NewExpressions); res.Error != nil {
						t.Errorf("validations[%d]: %v", i, res.Error)
					}
				}
			}
			for i, c := range vap.Spec.MatchConditions {
				if res := compiler.CompileCELExpression(&validating.ValidationCondition{Expression: c.Expression}, opts, environment.NewExpressions); res.Error != nil {
					t.Errorf("matchConditions[%d]: %v", i, res.Error)
				}
			}
		})
	}
}

func convertVariables(vs []admissionregistrationv1.Variable) []plugincel.NamedExpressionAccessor {
	out := make([]plugincel.NamedExpressionAccessor, len(vs))
	for i, v := range vs {
		out[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	return out
}

// checkSpecSurvives encodes the typed object again and compares its spec
// with the document's.
func checkSpecSurvives(t *testing.T, doc []byte, typed any) {
	t.Helper()
	var want map[string]any
	if err := yaml.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(typed)
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	if !reflect.DeepEqual(prune(want["spec"]), prune(got["spec"])) {
		t.Errorf("the spec does not survive the types:\nrendered %v\ntyped    %v", want["spec"], got["spec"])
	}
}

// runKyvernoCEL evaluates the rendered policies of the request's namespace
// with Kyverno's CEL engine, as its webhook does.
func runKyvernoCEL(t *testing.T, res render.Result, req render.Request) verdict {
	t.Helper()
	fake := libs.NewFakeContextProvider()
	if req.Subresource == "scale" {
		parent := &unstructured.Unstructured{}
		parent.SetAPIVersion(req.Kind.GroupVersion().String())
		parent.SetKind(req.Kind.Kind)
		parent.SetNamespace(req.Namespace)
		parent.SetName(name(req))
		parent.SetLabels(req.Labels)
		gvr := schema.GroupVersionResource{Group: req.Kind.Group, Version: req.Kind.Version, Resource: plural(req.Kind.Kind)}
		if err := fake.AddResource(gvr, parent); err != nil {
			t.Fatal(err)
		}
	}
	libs.LibraryContext = fake // the resource library reads it when policies compile
	var policies []policiesv1beta1.ValidatingPolicyLike
	templates := map[string]string{}
	for _, p := range res.Policies {
		if p.Namespace != req.Namespace {
			continue
		}
		templates[p.Name] = p.Template
		var pol policiesv1beta1.NamespacedValidatingPolicy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(p.Objects[0].Object, &pol); err != nil {
			t.Fatal(err)
		}
		policies = append(policies, &pol)
	}
	provider, err := vpolengine.NewProvider(vpolcompiler.NewCompiler(), policies, nil)
	if err != nil {
		t.Fatal(err)
	}
	nsResolver := func(ns string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"kubernetes.io/metadata.name": ns}}}
	}
	eng := vpolengine.NewEngine(provider, nsResolver, matching.NewMatcher())
	resp, err := eng.Handle(context.Background(), celengine.RequestFromAdmission(fake, admissionRequest(t, req)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var v verdict
	for _, p := range resp.Policies {
		if templates[p.Policy.GetName()] == render.WarnTemplate {
			if p.Actions.Has(admissionregistrationv1.Deny) || p.Actions.Has(admissionregistrationv1.Audit) {
				t.Errorf("the warning policy %s refuses or records (%v)", p.Policy.GetName(), p.Actions)
			}
			for _, r := range p.Rules {
				switch r.Status() {
				case engineapi.RuleStatusFail:
					v.warnings = append(v.warnings, r.Message())
				case engineapi.RuleStatusError:
					t.Errorf("policy %s errors: %s", p.Policy.GetName(), r.Message())
				}
			}
			continue
		}
		failed := false
		for _, r := range p.Rules {
			switch r.Status() {
			case engineapi.RuleStatusFail:
				failed = true
				v.failed = append(v.failed, p.Policy.GetName())
				v.messages = append(v.messages, r.Message())
			case engineapi.RuleStatusError:
				t.Errorf("policy %s errors: %s", p.Policy.GetName(), r.Message())
			}
		}
		switch {
		case failed && templates[p.Policy.GetName()] == render.ExemptTemplate:
			if p.Actions.Has(admissionregistrationv1.Deny) {
				t.Errorf("the record policy %s refuses", p.Policy.GetName())
			}
			v.recorded = true
		case failed && p.Actions.Has(admissionregistrationv1.Deny):
			v.blocked = true
		case failed:
			v.audited = true
		}
	}
	if v.blocked {
		v.audited = false
	}
	return v
}
