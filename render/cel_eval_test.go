package render

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/plan"
)

// The differential check of the CEL targets without a cluster: every case
// of the explain corpus is rendered for the target and evaluated with
// cel-go the way Kyverno's CEL engine and the API server evaluate it (match
// by resource rules, then the match conditions, then the validations in
// order, the first false one giving the message; variables evaluated when
// read), and the verdict must be Explain's for that target. Objects are
// what each engine passes: Kyverno an empty map for the missing object of
// a CREATE or DELETE, the API server null. The live tests (test/kyverno)
// check the same policies against the real engines.

// celVerdict is what a target's policies do with a request.
type celVerdict struct {
	blocked, audited bool
	// recorded: the record policy of exempt requesters failed.
	recorded bool
	messages []string
	// warnings are the messages of the warning policy (WarnTemplate),
	// which only ever warns.
	warnings []string
}

func evaluateCEL(t *testing.T, target Target, res Result, req Request) celVerdict {
	t.Helper()
	var v celVerdict
	for _, p := range res.Policies {
		if p.Namespace != req.Namespace {
			continue
		}
		obj, actions := p.Objects[0], p.Objects[0]
		if target == TargetVAP {
			actions = p.Objects[1] // the binding
		}
		if !celMatches(obj, req) {
			continue
		}
		msg, failed := runCELPolicy(t, target, obj, req)
		if !failed {
			continue
		}
		if p.Template == WarnTemplate {
			if m, _ := FailureAction(actions); m == plan.ModeEnforce {
				t.Errorf("the warning policy %s refuses", p.Name)
			}
			v.warnings = append(v.warnings, msg)
			continue
		}
		v.messages = append(v.messages, msg)
		if p.Template == ExemptTemplate {
			v.recorded = true
			continue
		}
		if m, _ := FailureAction(actions); m == plan.ModeEnforce {
			v.blocked = true
		} else {
			v.audited = true
		}
	}
	if v.blocked {
		v.audited = false
	}
	return v
}

// requestResource is the resource of a request: the parent's for a
// subresource.
func requestResource(req Request) metav1.GroupVersionResource {
	for _, k := range knownKinds {
		if k.matchesGVK(req.Kind) {
			return metav1.GroupVersionResource{Group: req.Kind.Group, Version: req.Kind.Version, Resource: k.Resource}
		}
	}
	return metav1.GroupVersionResource{Group: req.Kind.Group, Version: req.Kind.Version, Resource: strings.ToLower(req.Kind.Kind) + "s"}
}

// celMatches applies matchConstraints: a resource rule matches and no
// exclude rule does.
func celMatches(obj *unstructured.Unstructured, req Request) bool {
	rules, _, _ := unstructured.NestedSlice(obj.Object, "spec", "matchConstraints", "resourceRules")
	excludes, _, _ := unstructured.NestedSlice(obj.Object, "spec", "matchConstraints", "excludeResourceRules")
	any := func(list []any) bool {
		return slices.ContainsFunc(list, func(r any) bool { return ruleMatches(r.(map[string]any), req) })
	}
	return any(rules) && !any(excludes)
}

func ruleMatches(rule map[string]any, req Request) bool {
	gvr := requestResource(req)
	has := func(field string, values ...string) bool {
		list, _, _ := unstructured.NestedStringSlice(rule, field)
		return slices.ContainsFunc(values, func(v string) bool { return slices.Contains(list, v) })
	}
	res := []string{gvr.Resource, "*"}
	if req.Subresource != "" {
		res = []string{gvr.Resource + "/" + req.Subresource, gvr.Resource + "/*", "*/" + req.Subresource, "*/*"}
	}
	names, _, _ := unstructured.NestedStringSlice(rule, "resourceNames")
	return has("operations", string(req.Operation), "*") && has("apiGroups", gvr.Group, "*") &&
		has("apiVersions", gvr.Version, "*") && has("resources", res...) &&
		(len(names) == 0 || slices.Contains(names, req.Name))
}

// runCELPolicy evaluates a matched policy: false when a match condition
// leaves the request out or every validation holds; the message of the
// first validation that does not hold otherwise. Any evaluation error
// fails the test (it would refuse the request: failurePolicy Fail).
func runCELPolicy(t *testing.T, target Target, obj *unstructured.Unstructured, req Request) (string, bool) {
	t.Helper()
	parent := map[string]any{"metadata": map[string]any{"labels": toAny(req.Labels)}}
	env, err := celEnv(target, func(apiVersion, resource, name string) ref.Val {
		if name != req.Name || resource != requestResource(req).Resource {
			return types.NewErr("resource.Get(%s, %s, %s): not the parent", apiVersion, resource, name)
		}
		return types.DefaultTypeAdapter.NativeToValue(parent)
	})
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	items, _, _ := unstructured.NestedSlice(obj.Object, "spec", "variables")
	for _, it := range items {
		m := it.(map[string]any)
		vars[m["name"].(string)] = inlineVariables(m["expression"].(string), vars)
	}
	activation := celActivation(t, target, req)
	eval := func(expr string) ref.Val {
		ast, iss := env.Compile(inlineVariables(expr, vars))
		if iss.Err() != nil {
			t.Fatalf("%s: %v", obj.GetName(), iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(activation)
		if err != nil {
			t.Fatalf("%s: %q errors: %v", obj.GetName(), expr, err)
		}
		return out
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "spec", "matchConditions")
	for _, c := range conds {
		if eval(c.(map[string]any)["expression"].(string)) != types.True {
			return "", false
		}
	}
	validations, _, _ := unstructured.NestedSlice(obj.Object, "spec", "validations")
	for _, it := range validations {
		m := it.(map[string]any)
		if eval(m["expression"].(string)) == types.True {
			continue
		}
		if me, ok := m["messageExpression"].(string); ok {
			return string(eval(me).(types.String)), true
		}
		return m["message"].(string), true
	}
	return "", false
}

var variableUse = regexp.MustCompile(`\bvariables\.([A-Za-z_][A-Za-z0-9_]*)`)

// inlineVariables replaces each variables.<name> with its expression: a
// variable is then evaluated exactly where and when it is read.
func inlineVariables(expr string, vars map[string]string) string {
	return variableUse.ReplaceAllStringFunc(expr, func(m string) string {
		if e, ok := vars[m[len("variables."):]]; ok {
			return "(" + e + ")"
		}
		return m
	})
}

// celActivation is the data of a request: request as the AdmissionRequest's
// JSON (absent fields are absent), object and oldObject as each engine
// passes them.
func celActivation(t *testing.T, target Target, req Request) map[string]any {
	t.Helper()
	kind := metav1.GroupVersionKind(req.Kind)
	if req.Subresource == SubresourceScale {
		kind = metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	}
	ar := admissionv1.AdmissionRequest{
		Kind: kind, Resource: requestResource(req), SubResource: req.Subresource,
		Name: req.Name, Namespace: req.Namespace, Operation: admissionv1.Operation(req.Operation),
		UserInfo: authenticationv1.UserInfo{Username: req.UserInfo.Username, Groups: req.UserInfo.Groups},
	}
	for k, v := range req.UserInfo.Extra {
		if ar.UserInfo.Extra == nil {
			ar.UserInfo.Extra = map[string]authenticationv1.ExtraValue{}
		}
		ar.UserInfo.Extra[k] = v
	}
	if req.FieldManager != "" { // an apply's PatchOptions, as the API server passes them
		ar.Options.Raw = []byte(`{"kind":"PatchOptions","apiVersion":"meta.k8s.io/v1","fieldManager":` + strconv.Quote(req.FieldManager) + `}`)
	}
	b, err := json.Marshal(ar)
	if err != nil {
		t.Fatal(err)
	}
	var request map[string]any
	if err := json.Unmarshal(b, &request); err != nil {
		t.Fatal(err)
	}
	missing := any(map[string]any{})
	if target == TargetVAP {
		missing = nil
	}
	object, oldObject := missing, missing
	if req.Object != nil {
		object = req.Object
	}
	if req.OldObject != nil {
		oldObject = req.OldObject
	}
	// resource is an opaque context; the test serves resource.Get itself.
	return map[string]any{"request": request, "object": object, "oldObject": oldObject, "namespaceObject": nil, "resource": resourceContext{}}
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// TestCEL_EnginesAgreeWithExplain replays the explain corpus on both CEL
// targets.
func TestCEL_EnginesAgreeWithExplain(t *testing.T) {
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		for _, c := range explainCorpus(t) {
			t.Run(string(target)+"/"+c.Name, func(t *testing.T) {
				in := Input{Plan: c.Input.Plan, Applications: c.Input.Applications, Now: c.Input.Now, Target: target}
				want, err := Explain(in, c.Request)
				if err != nil {
					t.Fatal(err)
				}
				got := evaluateCEL(t, target, mustRender(t, in), c.Request.normalized())
				if got.blocked != want.Blocked || got.audited != want.Audited || got.recorded != want.Exempt {
					t.Fatalf("%s: blocked=%v audited=%v recorded=%v (%q); Explain: blocked=%v audited=%v exempt=%v (%s)",
						target, got.blocked, got.audited, got.recorded, got.messages, want.Blocked, want.Audited, want.Exempt, want.Reason)
				}
				if want.Message != "" && !slices.Contains(got.messages, want.Message) {
					t.Errorf("messages %q lack Explain's %q", got.messages, want.Message)
				}
			})
		}
	}
}

// resourceContext is a value of Kyverno's resource context type.
type resourceContext struct{}

func (resourceContext) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("resource context: no native form")
}
func (resourceContext) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("resource context: no conversion")
}
func (resourceContext) Equal(ref.Val) ref.Val { return types.False }
func (resourceContext) Type() ref.Type        { return celContextType }
func (resourceContext) Value() any            { return nil }
