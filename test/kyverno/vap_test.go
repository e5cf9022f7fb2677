package kyverno_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kyverno/kyverno/pkg/cel/matching"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/telark/protectionplans/render"
)

// TestCELEnginesAgreeWithExplain replays the explain corpus through the
// engines of the CEL targets: Kyverno's CEL engine for kyverno-cel
// (runKyvernoCEL), and for vap the API server's own
// ValidatingAdmissionPolicy code: each rendered policy of the request's
// namespace is matched by its resource rules (the API server's rule
// matcher, as Kyverno reuses it) and compiled and evaluated as
// k8s.io/apiserver's validating policy plugin does (match conditions,
// variables, validations, message expressions; object null on DELETE and
// oldObject null on CREATE). Explain, for each target, must agree.
func TestCELEnginesAgreeWithExplain(t *testing.T) {
	run := engines()
	for _, target := range []render.Target{render.TargetKyvernoCEL, render.TargetVAP} {
		for _, c := range loadCorpus(t) {
			t.Run(string(target)+"/"+c.Name, func(t *testing.T) {
				in := render.Input{Plan: c.Input.Plan, Applications: c.Input.Applications, Now: c.Input.Now, Target: target}
				want, err := render.Explain(in, c.Request)
				if err != nil {
					t.Fatal(err)
				}
				res, err := render.Render(in)
				if err != nil {
					t.Fatal(err)
				}
				got := run[target](t, res, c.Request)
				if got.blocked != want.Blocked || got.audited != want.Audited || got.recorded != want.Exempt {
					t.Fatalf("engine: blocked=%v audited=%v recorded=%v (%q); Explain: blocked=%v audited=%v exempt=%v (%s)",
						got.blocked, got.audited, got.recorded, got.messages, want.Blocked, want.Audited, want.Exempt, want.Reason)
				}
				if want.Message != "" && !slices.Contains(got.messages, want.Message) {
					t.Errorf("the engine's messages %q lack %q", got.messages, want.Message)
				}
				if want.Policy != "" && !slices.Contains(got.failed, want.Policy) {
					t.Errorf("the engine failed %v, Explain names %s", got.failed, want.Policy)
				}
			})
		}
	}
}

func runVAP(t *testing.T, res render.Result, req render.Request) verdict {
	t.Helper()
	attr := vapAttributes(t, req)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: req.Namespace, Labels: map[string]string{"kubernetes.io/metadata.name": req.Namespace}}}
	var v verdict
	for _, p := range res.Policies {
		if p.Namespace != req.Namespace { // the binding's namespace selector
			continue
		}
		var vap admissionregistrationv1.ValidatingAdmissionPolicy
		var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
		for i, into := range []any{&vap, &binding} {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(p.Objects[i].Object, into); err != nil {
				t.Fatal(err)
			}
		}
		matches, err := matching.NewMatcher().Match(&matching.MatchCriteria{Constraints: vap.Spec.MatchConstraints}, attr.Attributes, ns)
		if err != nil {
			t.Fatal(err)
		}
		if !matches {
			continue
		}
		result := compileVAP(t, &vap).Validate(context.Background(), attr.GetResource(), attr, nil, ns, celconfig.RuntimeCELCostBudget, nil)
		for _, d := range result.Decisions {
			if d.Evaluation == validating.EvalError {
				t.Errorf("%s errors: %s", vap.Name, d.Message)
			}
			if d.Action != validating.ActionDeny {
				continue
			}
			if p.Template == render.WarnTemplate {
				if !slices.Equal(binding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}) {
					t.Errorf("the warning policy %s acts %v, not only Warn", vap.Name, binding.Spec.ValidationActions)
				}
				v.warnings = append(v.warnings, d.Message)
				continue
			}
			v.failed = append(v.failed, vap.Name)
			v.messages = append(v.messages, d.Message)
			if p.Template == render.ExemptTemplate {
				if slices.Contains(binding.Spec.ValidationActions, admissionregistrationv1.Deny) {
					t.Errorf("the record policy %s refuses", vap.Name)
				}
				v.recorded = true
				continue
			}
			if slices.Contains(binding.Spec.ValidationActions, admissionregistrationv1.Deny) {
				v.blocked = true
			} else {
				v.audited = true
			}
		}
	}
	if v.blocked {
		v.audited = false
	}
	return v
}

// compileVAP compiles a policy as the API server's plugin does.
func compileVAP(t *testing.T, vap *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	t.Helper()
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		t.Fatal(err)
	}
	vars := plugincel.OptionalVariableDeclarations{HasAuthorizer: true}
	compiler.CompileAndStoreVariables(convertVariables(vap.Spec.Variables), vars, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if len(vap.Spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(vap.Spec.MatchConditions))
		for i := range vap.Spec.MatchConditions {
			conds[i] = (*matchconditions.MatchCondition)(&vap.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(compiler.CompileCondition(conds, vars, environment.StoredExpressions), vap.Spec.FailurePolicy, "policy", "validate", vap.Name)
	}
	validations := make([]plugincel.ExpressionAccessor, len(vap.Spec.Validations))
	messages := make([]plugincel.ExpressionAccessor, len(vap.Spec.Validations))
	for i, v := range vap.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	return validating.NewValidator(
		compiler.CompileCondition(validations, vars, environment.StoredExpressions),
		matcher,
		compiler.CompileCondition(nil, vars, environment.StoredExpressions),
		compiler.CompileCondition(messages, plugincel.OptionalVariableDeclarations{}, environment.StoredExpressions),
		vap.Spec.FailurePolicy, nil)
}

// vapAttributes are the admission attributes the API server builds for a
// request: a Scale for /scale, no object on DELETE, no old object on
// CREATE.
func vapAttributes(t *testing.T, req render.Request) *admission.VersionedAttributes {
	t.Helper()
	obj := func(m map[string]any) runtime.Object {
		if m == nil {
			return nil
		}
		return &unstructured.Unstructured{Object: runtime.DeepCopyJSON(m)}
	}
	kind := req.Kind
	if req.Subresource == "scale" {
		kind = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	}
	gvr := schema.GroupVersionResource{Group: req.Kind.Group, Version: req.Kind.Version, Resource: plural(req.Kind.Kind)}
	var options runtime.Object
	if req.FieldManager != "" { // an apply's options, as the API server passes them
		options = &metav1.PatchOptions{TypeMeta: metav1.TypeMeta{Kind: "PatchOptions", APIVersion: "meta.k8s.io/v1"}, FieldManager: req.FieldManager}
	}
	attr := admission.NewAttributesRecord(obj(req.Object), obj(req.OldObject), kind, req.Namespace, name(req), gvr,
		req.Subresource, admission.Operation(req.Operation), options, false,
		&user.DefaultInfo{Name: req.UserInfo.Username, Groups: req.UserInfo.Groups, Extra: req.UserInfo.Extra})
	return &admission.VersionedAttributes{
		Attributes: attr, VersionedKind: kind,
		VersionedObject: attr.GetObject(), VersionedOldObject: attr.GetOldObject(),
	}
}
