package render

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The type check of the CEL targets' expressions, without a cluster.
//
// Every expression of a rendered NamespacedValidatingPolicy or
// ValidatingAdmissionPolicy is compiled with cel-go in an environment that
// declares what Kyverno and the API server declare (object, oldObject,
// request, namespaceObject, variables; for kyverno-cel, Kyverno's resource
// library with the overloads of a namespaced policy), with optional types.
// cel-go checks the syntax, the functions and their argument types, and the
// result type (bool for conditions and validations, string for messages).
// Then every field path the expression reads is checked against the Go
// types of what it reads, by their JSON names: request against
// k8s.io/api's admission/v1 AdmissionRequest, object and oldObject against
// every kind the policy matches (as the API server's type checker does; a
// path read through dyn(), the image lists, against the kinds whose pod
// spec lives there), and variables.<name> against the policy's variables
// (declared before the expressions that read them, and all used).

// celContextType is the type of Kyverno's "resource" variable.
var celContextType = cel.OpaqueType("kyverno.resource.Context")

// celEnv is the environment of a CEL target. get serves resource.Get for
// evaluation; nil for a compile-only environment.
func celEnv(target Target, get func(apiVersion, resource, name string) ref.Val) (*cel.Env, error) {
	opts := []cel.EnvOption{
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)), // both engines declare it
		cel.CrossTypeNumericComparisons(true),
		cel.Variable("object", cel.DynType),
		cel.Variable("oldObject", cel.DynType),
		cel.Variable("request", cel.DynType),
		cel.Variable("namespaceObject", cel.DynType),
		cel.Variable("variables", cel.MapType(cel.StringType, cel.DynType)),
	}
	if target == TargetKyvernoCEL {
		binding := func(args ...ref.Val) ref.Val {
			if get == nil {
				return types.NewErr("resource.Get is not served")
			}
			return get(string(args[1].(types.String)), string(args[2].(types.String)), string(args[3].(types.String)))
		}
		opts = append(opts,
			cel.Variable("resource", celContextType),
			cel.Function("Get", cel.MemberOverload("resource_get_string_string_string",
				[]*cel.Type{celContextType, cel.StringType, cel.StringType, cel.StringType},
				cel.MapType(cel.StringType, cel.DynType), cel.FunctionBinding(binding))),
			// Kyverno's kyverno.time library (github.com/kyverno/sdk
			// extensions/cel/libs/time), its clock fixed at celClockNow.
			cel.Function("time.now", cel.Overload("time_now", nil, cel.TimestampType,
				cel.FunctionBinding(func(...ref.Val) ref.Val { return types.Timestamp{Time: time.Unix(0, celClockNow.Load()).UTC()} }))))
	}
	return cel.NewEnv(opts...)
}

// celExpr is one expression of a policy, where it is and what it must
// evaluate to.
type celExpr struct {
	field string // e.g. spec.validations[1].expression
	expr  string
	want  *cel.Type
}

// policyExpressions lists every expression of a CEL policy object.
func policyExpressions(obj *unstructured.Unstructured) []celExpr {
	var out []celExpr
	list := func(path, key string, want *cel.Type) {
		items, _, _ := unstructured.NestedSlice(obj.Object, "spec", path)
		for i, it := range items {
			m := it.(map[string]any)
			if s, ok := m[key].(string); ok && s != "" {
				out = append(out, celExpr{fmt.Sprintf("spec.%s[%d].%s", path, i, key), s, want})
			}
		}
	}
	list("matchConditions", "expression", cel.BoolType)
	list("variables", "expression", cel.DynType)
	list("validations", "expression", cel.BoolType)
	list("validations", "messageExpression", cel.StringType)
	return out
}

// checkPolicyCEL type-checks every expression of a rendered CEL policy and
// returns every problem found.
func checkPolicyCEL(target Target, obj *unstructured.Unstructured) []string {
	env, err := celEnv(target, nil)
	if err != nil {
		return []string{err.Error()}
	}
	kinds := matchedTypes(obj, nil)
	declared := declaredVariables(obj)
	var problems []string
	used := map[string]bool{}
	for _, e := range policyExpressions(obj) {
		report := func(format string, args ...any) {
			problems = append(problems, e.field+": "+fmt.Sprintf(format, args...)+"\n  "+e.expr)
		}
		checked, iss := env.Compile(e.expr)
		if iss.Err() != nil {
			report("%v", iss.Err())
			continue
		}
		if out := checked.OutputType(); e.want != cel.DynType && !out.IsAssignableType(e.want) && out != cel.DynType {
			report("evaluates to %s, want %s", out, e.want)
		}
		var self int
		isVariable := false
		if _, err := fmt.Sscanf(e.field, "spec.variables[%d]", &self); err == nil {
			isVariable = true
		}
		for _, name := range referencedVariables(e.expr) {
			used[name] = true
			i := slices.Index(declared, name)
			switch {
			case i < 0:
				report("reads variables.%s, which is not declared", name)
			case isVariable && i >= self:
				report("reads variables.%s, which is not declared before it", name)
			}
		}
		on := kinds
		if name, ok := variableOf(obj, e.field); ok {
			on = imageKinds(name, kinds)
		}
		if strings.HasPrefix(e.field, "spec.validations[") && strings.HasSuffix(e.field, "].expression") {
			on = guardedTypes(e.expr, obj, kinds)
		}
		for _, p := range fieldPaths(checked.NativeRep()) {
			if msg := checkPath(p, on); msg != "" {
				report("%s", msg)
			}
		}
	}
	for _, name := range declared {
		if !used[name] {
			problems = append(problems, "spec.variables: "+name+" is declared but never read")
		}
	}
	return problems
}

var variableRef = regexp.MustCompile(`\bvariables\.([A-Za-z_][A-Za-z0-9_]*)`)

func referencedVariables(expr string) []string {
	var out []string
	for _, m := range variableRef.FindAllStringSubmatch(expr, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

func declaredVariables(obj *unstructured.Unstructured) []string {
	items, _, _ := unstructured.NestedSlice(obj.Object, "spec", "variables")
	var out []string
	for _, it := range items {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return out
}

// variableOf names the variable an expression field defines.
func variableOf(obj *unstructured.Unstructured, field string) (string, bool) {
	var i int
	if _, err := fmt.Sscanf(field, "spec.variables[%d].expression", &i); err != nil {
		return "", false
	}
	return declaredVariables(obj)[i], true
}

// imageKinds are the kinds an image-list variable reads (those whose pod
// spec lives where it reads); every kind for another variable.
func imageKinds(variable string, kinds map[string]reflect.Type) map[string]reflect.Type {
	for path, name := range podSpecNames {
		if variable == "new"+name+"Images" || variable == "old"+name+"Images" {
			out := map[string]reflect.Type{}
			for _, k := range knownKinds {
				if k.PodSpec == path {
					out[k.Kind] = kindTypes[k.Kind]
				}
			}
			return out
		}
	}
	return kinds
}

// kindTypes are the Go types of the known kinds, and of Scale.
var kindTypes = map[string]reflect.Type{
	"Deployment": reflect.TypeFor[appsv1.Deployment](), "StatefulSet": reflect.TypeFor[appsv1.StatefulSet](),
	"DaemonSet": reflect.TypeFor[appsv1.DaemonSet](), "Job": reflect.TypeFor[batchv1.Job](),
	"CronJob": reflect.TypeFor[batchv1.CronJob](), "Pod": reflect.TypeFor[corev1.Pod](),
	"Service": reflect.TypeFor[corev1.Service](), "ConfigMap": reflect.TypeFor[corev1.ConfigMap](),
	"Secret": reflect.TypeFor[corev1.Secret](), "PersistentVolumeClaim": reflect.TypeFor[corev1.PersistentVolumeClaim](),
	"ServiceAccount": reflect.TypeFor[corev1.ServiceAccount](), "Ingress": reflect.TypeFor[networkingv1.Ingress](),
	"NetworkPolicy": reflect.TypeFor[networkingv1.NetworkPolicy](), "HorizontalPodAutoscaler": reflect.TypeFor[autoscalingv2.HorizontalPodAutoscaler](),
	"PodDisruptionBudget": reflect.TypeFor[policyv1.PodDisruptionBudget](), "Role": reflect.TypeFor[rbacv1.Role](),
	"RoleBinding": reflect.TypeFor[rbacv1.RoleBinding](), "Scale": reflect.TypeFor[autoscalingv1.Scale](),
}

// matchedTypes are the types of the objects a policy matches: its
// resources' kinds, Scale for a /scale, Pod for pods/ephemeralcontainers;
// with keep, only the resources and subresources keep accepts.
func matchedTypes(obj *unstructured.Unstructured, keep func(plural, sub string) bool) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	rules, _, _ := unstructured.NestedSlice(obj.Object, "spec", "matchConstraints", "resourceRules")
	for _, r := range rules {
		res, _, _ := unstructured.NestedStringSlice(r.(map[string]any), "resources")
		for _, name := range res {
			plural, sub, _ := strings.Cut(name, "/")
			if keep != nil && !keep(plural, sub) {
				continue
			}
			if sub == SubresourceScale {
				out["Scale"] = kindTypes["Scale"]
				continue
			}
			for _, k := range knownKinds {
				if k.Resource == plural {
					out[k.Kind] = kindTypes[k.Kind]
				}
			}
		}
	}
	return out
}

// guardPattern reads the match guard a validation starts with (see
// matchGuard): an optional operation test, then the resources, then
// optionally the subresources.
var guardPattern = regexp.MustCompile(`^!\((?:request\.operation (?:== "[A-Z]+"|in \[[^\]]*\]) && )?` +
	`request\.resource\.resource (?:== "([a-z]+)"|in \[([^\]]*)\])` +
	`(?: && variables\.subresource (?:== "([a-z]*)"|in \[([^\]]*)\]))?`)

// guardedTypes are the types of the objects a validation can read: those
// its match guard lets through (a policy of the compact layout matches
// every template's kinds, each validation only its rule's), or every kind
// the policy matches when the validation has no resource guard.
func guardedTypes(expr string, obj *unstructured.Unstructured, kinds map[string]reflect.Type) map[string]reflect.Type {
	m := guardPattern.FindStringSubmatch(expr)
	if m == nil {
		return kinds
	}
	list := func(one, many string) []string {
		if one != "" || !strings.HasPrefix(many, `"`) {
			return []string{one}
		}
		var out []string
		for _, q := range strings.Split(many, ", ") {
			out = append(out, strings.Trim(q, `"`))
		}
		return out
	}
	resources, subs := list(m[1], m[2]), list(m[3], m[4])
	subGuarded := strings.Contains(m[0], "variables.subresource")
	return matchedTypes(obj, func(plural, sub string) bool {
		return slices.Contains(resources, plural) && (!subGuarded || slices.Contains(subs, sub))
	})
}

// fieldPath is a chain of field selections from a variable: its root and
// fields, "[]" standing for an index into a map or list.
type fieldPath struct {
	root   string
	fields []string
}

// fieldPaths lists the field paths an expression reads.
func fieldPaths(a *ast.AST) []fieldPath {
	var out []fieldPath
	for _, e := range ast.MatchDescendants(ast.NavigateAST(a), func(ast.NavigableExpr) bool { return true }) {
		if p, ok := pathOf(e); ok && len(p.fields) > 0 {
			out = append(out, p)
		}
	}
	return out
}

func pathOf(e ast.Expr) (fieldPath, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		return fieldPath{root: e.AsIdent()}, true
	case ast.SelectKind:
		p, ok := pathOf(e.AsSelect().Operand())
		p.fields = append(slices.Clone(p.fields), e.AsSelect().FieldName())
		return p, ok
	case ast.CallKind:
		call := e.AsCall()
		args := call.Args()
		switch call.FunctionName() {
		case "_?._":
			p, ok := pathOf(args[0])
			p.fields = append(slices.Clone(p.fields), string(args[1].AsLiteral().(types.String)))
			return p, ok
		case "_[_]", "_[?_]":
			p, ok := pathOf(args[0])
			p.fields = append(slices.Clone(p.fields), "[]")
			return p, ok
		case "dyn":
			if len(args) == 1 && !call.IsMemberFunction() {
				return pathOf(args[0])
			}
		}
	}
	return fieldPath{}, false
}

// checkPath checks a path of request, object or oldObject; other roots
// (variables, comprehension variables, resource) are checked elsewhere or
// not at all.
func checkPath(p fieldPath, kinds map[string]reflect.Type) string {
	switch p.root {
	case "request":
		return walkType(reflect.TypeFor[admissionv1.AdmissionRequest](), p.fields, "request")
	case "object", "oldObject":
		for _, name := range sortedKeys(kinds) {
			if msg := walkType(kinds[name], p.fields, p.root); msg != "" {
				return name + ": " + msg
			}
		}
	}
	return ""
}

func sortedKeys(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// walkType follows fields through a Go API type by JSON name; maps and
// lists end the walk (their keys and items are data).
func walkType(t reflect.Type, fields []string, at string) string {
	for _, f := range fields {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map, reflect.Slice:
			return ""
		case reflect.Struct:
			next, ok := jsonField(t, f)
			if !ok {
				return fmt.Sprintf("%s has no field %q (%s)", at, f, t)
			}
			t, at = next, at+"."+f
		default:
			return fmt.Sprintf("%s is a %s: it has no field %q", at, t, f)
		}
	}
	return ""
}

// jsonField finds a struct field by its JSON name, looking into inlined
// embedded structs.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if tag == "" && sf.Anonymous {
			if ft, ok := jsonField(sf.Type, name); ok {
				return ft, true
			}
			continue
		}
		if tag == name {
			return sf.Type, true
		}
	}
	return nil, false
}

// celClockNow is the instant Kyverno's time.now() returns in celEnv, in
// Unix nanoseconds (atomic: tests run in parallel; only clocked renders,
// made by clock_test.go, read it).
var celClockNow atomic.Int64
