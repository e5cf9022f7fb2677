package guard

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
)

func loadManifest(t *testing.T) ([]byte, *admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	data, err := os.ReadFile(ManifestPath())
	if err != nil {
		t.Fatal(err)
	}
	policy, binding, err := Decode(data)
	if err != nil {
		t.Fatalf("%s: %v", ManifestPath(), err)
	}
	return data, policy, binding
}

// TestManifest checks what the guard must be, beyond its CEL: a native
// policy that fails closed, bound in Deny mode, on CREATE and UPDATE of the
// main resource only (no status), with no parameters.
func TestManifest(t *testing.T) {
	_, p, b := loadManifest(t)
	s := p.Spec
	if s.FailurePolicy == nil || *s.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("failurePolicy = %v, want Fail", s.FailurePolicy)
	}
	if s.ParamKind != nil || b.Spec.ParamRef != nil {
		t.Errorf("the guard must not use parameters (paramKind %v, paramRef %v): the trusted writers are in a matchCondition", s.ParamKind, b.Spec.ParamRef)
	}
	if b.Spec.PolicyName != p.Name {
		t.Errorf("binding.spec.policyName = %q, want the policy's name %q", b.Spec.PolicyName, p.Name)
	}
	if !slices.Equal(b.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) {
		t.Errorf("validationActions = %v, want [Deny]", b.Spec.ValidationActions)
	}
	if b.Spec.MatchResources != nil {
		t.Errorf("the binding narrows the policy with matchResources %+v: it must apply to every plan", b.Spec.MatchResources)
	}
	mc := s.MatchConstraints
	if mc == nil || len(mc.ResourceRules) != 1 || len(mc.ExcludeResourceRules) != 0 {
		t.Fatalf("matchConstraints = %+v, want exactly one resource rule", mc)
	}
	r := mc.ResourceRules[0]
	if !slices.Equal(r.APIGroups, []string{"telark.io"}) || !slices.Equal(r.Resources, []string{"protectionplans"}) {
		t.Errorf("rule matches groups %v resources %v, want [telark.io] [protectionplans] (not protectionplans/status, nor a wildcard)", r.APIGroups, r.Resources)
	}
	ops := slices.Clone(r.Operations)
	slices.Sort(ops)
	if !slices.Equal(ops, []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}) {
		t.Errorf("operations = %v, want CREATE and UPDATE", r.Operations)
	}
	if r.Scope != nil && *r.Scope == admissionregistrationv1.NamespacedScope {
		t.Errorf("scope = Namespaced: plans are cluster-scoped")
	}
	if s.MatchConstraints.MatchPolicy == nil || *s.MatchConstraints.MatchPolicy != admissionregistrationv1.Equivalent {
		t.Errorf("matchPolicy = %v, want Equivalent (requests through any version are matched)", s.MatchConstraints.MatchPolicy)
	}
	// The versions are named (the API server type-checks a policy only for
	// the versions its rules name, never for "*") and must be served by
	// the CRD, or the guard matches nothing.
	crd := readCRD(t)
	if !slices.Equal(r.APIGroups, []string{crd.Spec.Group}) || !slices.Equal(r.Resources, []string{crd.Spec.Names.Plural}) {
		t.Errorf("rule matches %v/%v, the CRD is %s/%s", r.APIGroups, r.Resources, crd.Spec.Group, crd.Spec.Names.Plural)
	}
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	if len(r.APIVersions) == 0 || slices.ContainsFunc(r.APIVersions, func(v string) bool { return !slices.Contains(served, v) }) {
		t.Errorf("rule apiVersions = %v, want versions the CRD serves (%v), no wildcard", r.APIVersions, served)
	}
	if len(s.Validations) != 2 {
		t.Fatalf("%d validations, want 2 (create, update)", len(s.Validations))
	}
	for i, v := range s.Validations {
		if v.Message == "" || strings.ContainsAny(v.Message, "\r\n") || v.MessageExpression == "" {
			t.Errorf("validation %d: a one-line message and a messageExpression are required (message %q)", i, v.Message)
		}
		if v.Reason == nil || *v.Reason != metav1.StatusReasonForbidden {
			t.Errorf("validation %d: reason %v, want Forbidden", i, v.Reason)
		}
	}
}

type crdHead struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
		} `json:"versions"`
	} `json:"spec"`
}

func readCRD(t *testing.T) crdHead {
	t.Helper()
	data, err := os.ReadFile(CRDPath())
	if err != nil {
		t.Fatal(err)
	}
	var crd crdHead
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatalf("%s: %v", CRDPath(), err)
	}
	return crd
}

// TestTrustedWriterIsOneLine: the trusted service account is written once,
// on a line of its own, and the sed the manifest documents changes it.
func TestTrustedWriterIsOneLine(t *testing.T) {
	data, p, _ := loadManifest(t)
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, DefaultTrustedWriter) && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || strings.TrimSpace(lines[0]) != "'"+DefaultTrustedWriter+"'" {
		t.Fatalf("the trusted writer %q must be on exactly one line of its own, found %q", DefaultTrustedWriter, lines)
	}
	n := 0
	for _, c := range p.Spec.MatchConditions {
		n += strings.Count(c.Expression, DefaultTrustedWriter)
	}
	if n != 1 {
		t.Fatalf("the trusted writer appears %d times in the matchConditions, want 1", n)
	}

	// The documented edit: sed 's/telark-system:protectionplans-server/NAMESPACE:ACCOUNT/'.
	edited := strings.ReplaceAll(string(data), "telark-system:protectionplans-server", "platform:plans-api")
	ep, _, err := Decode([]byte(edited))
	if err != nil {
		t.Fatal(err)
	}
	g := compile(t, ep)
	if got := g.decide(t, create("system:serviceaccount:platform:plans-api", ann("carol"))); got != "" {
		t.Errorf("after the edit, the new trusted writer is refused: %s", got)
	}
	if got := g.decide(t, create(DefaultTrustedWriter, ann("carol"))); got == "" {
		t.Errorf("after the edit, the old trusted writer is still trusted")
	}
}

// The CEL environment of a ValidatingAdmissionPolicy, as far as this guard
// uses it: object and oldObject typed as the plan (the CRD is generated from
// package plan), request typed as admission/v1 AdmissionRequest (the fields
// Kubernetes declares have the same JSON names), optional types on, and
// each variable typed as its expression's result, under
// variables.<name>. A misspelt field, variable or function fails here.
var (
	planType    = cel.ObjectType("plan.ProtectionPlan")
	requestType = cel.ObjectType("v1.AdmissionRequest")
)

func baseEnv(t *testing.T) *cel.Env {
	t.Helper()
	env, err := cel.NewEnv(
		cel.OptionalTypes(),
		ext.NativeTypes(reflect.TypeFor[plan.ProtectionPlan](), reflect.TypeFor[admissionv1.AdmissionRequest](), ext.ParseStructTag("json")),
		cel.Variable("object", planType),
		cel.Variable("oldObject", planType),
		cel.Variable("request", requestType),
	)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

type guard struct {
	matchConditions []namedProgram
	variables       []namedProgram
	validations     []validation
}

type namedProgram struct {
	name string
	prg  cel.Program
}

type validation struct {
	expr, message cel.Program
	staticMessage string
}

// compile type-checks every expression of the policy (matchConditions,
// variables, validations and their messageExpressions) and checks its
// result type.
func compile(t *testing.T, p *admissionregistrationv1.ValidatingAdmissionPolicy) *guard {
	t.Helper()
	env := baseEnv(t)
	prog := func(env *cel.Env, what, expr string, want *cel.Type) (cel.Program, *cel.Type) {
		t.Helper()
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s does not compile:\n%s\n%v", what, expr, iss.Err())
		}
		if want != nil && !ast.OutputType().IsExactType(want) {
			t.Fatalf("%s has type %s, want %s:\n%s", what, ast.OutputType(), want, expr)
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return prg, ast.OutputType()
	}

	g := &guard{}
	for _, c := range p.Spec.MatchConditions {
		// matchConditions see neither variables nor params.
		prg, _ := prog(env, "matchCondition "+c.Name, c.Expression, cel.BoolType)
		g.matchConditions = append(g.matchConditions, namedProgram{c.Name, prg})
	}
	for _, v := range p.Spec.Variables {
		prg, typ := prog(env, "variable "+v.Name, v.Expression, nil)
		g.variables = append(g.variables, namedProgram{v.Name, prg})
		var err error
		if env, err = env.Extend(cel.Variable("variables."+v.Name, typ)); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range p.Spec.Validations {
		e, _ := prog(env, "validation "+strconv.Itoa(i), v.Expression, cel.BoolType)
		var m cel.Program
		if v.MessageExpression != "" {
			m, _ = prog(env, "messageExpression of validation "+strconv.Itoa(i), v.MessageExpression, cel.StringType)
		}
		g.validations = append(g.validations, validation{expr: e, message: m, staticMessage: v.Message})
	}
	for _, a := range p.Spec.AuditAnnotations {
		prog(env, "auditAnnotation "+a.Key, a.ValueExpression, cel.StringType)
	}
	return g
}

func TestCELCompiles(t *testing.T) {
	_, p, _ := loadManifest(t)
	g := compile(t, p)
	if len(g.matchConditions) == 0 || len(g.variables) == 0 || len(g.validations) == 0 {
		t.Fatalf("nothing compiled: %+v", g)
	}
	// The checker catches what a typo would do.
	env := baseEnv(t)
	for _, bad := range []string{
		"request.userinfo.username == ''",                             // field name
		"object.metadata.annotations['telark.io/created-by'] == 1",    // type
		"object.metadata.?annotations[?'telark.io/created-by'] == ''", // optional compared to string
		"variables.createdBy.hasValue()",                              // undeclared here
	} {
		if _, iss := env.Compile(bad); iss.Err() == nil {
			t.Errorf("the test environment accepts %q: it would not catch that typo", bad)
		}
	}
}

type request struct {
	op        admissionv1.Operation
	user      string
	old, next map[string]string // annotations; old is ignored on CREATE
	oldHasObj bool
}

func create(user string, annotations map[string]string) request {
	return request{op: admissionv1.Create, user: user, next: annotations}
}

func update(user string, old, next map[string]string) request {
	return request{op: admissionv1.Update, user: user, old: old, next: next, oldHasObj: true}
}

func ann(createdBy string) map[string]string {
	return map[string]string{Annotation: createdBy, "note": "x"}
}

// decide evaluates the policy like the API server does (matchConditions,
// then validations in order, variables evaluated lazily) and returns ""
// when the request is admitted, or the message of the first failed
// validation.
func (g *guard) decide(t *testing.T, r request) string {
	t.Helper()
	obj := plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: r.next}}
	vars := map[string]any{
		"object":  obj,
		"request": admissionv1.AdmissionRequest{Operation: r.op, UserInfo: authenticationv1.UserInfo{Username: r.user}},
	}
	if r.oldHasObj {
		vars["oldObject"] = plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "p", Annotations: r.old}}
	} else {
		vars["oldObject"] = types.NullValue
	}
	return g.eval(t, fmt.Sprintf("%+v", r), vars)
}

// eval runs the policy on vars (object, oldObject, request) like the API
// server does (matchConditions, then validations in order, variables
// evaluated lazily): "" when admitted, or the message of the first failed
// validation.
func (g *guard) eval(t *testing.T, what string, vars map[string]any) string {
	t.Helper()
	for _, v := range g.variables {
		v := v
		vars["variables."+v.name] = func() ref.Val {
			out, _, err := v.prg.Eval(vars)
			if err != nil {
				return types.WrapErr(err)
			}
			return out
		}
	}
	for _, c := range g.matchConditions {
		out, _, err := c.prg.Eval(vars)
		if err != nil {
			t.Fatalf("%s: matchCondition %s: %v", what, c.name, err)
		}
		if out != types.True {
			return "" // the policy does not apply
		}
	}
	for i, v := range g.validations {
		out, _, err := v.expr.Eval(vars)
		if err != nil {
			t.Fatalf("%s: validation %d: %v", what, i, err)
		}
		if out == types.True {
			continue
		}
		msg, _, err := v.message.Eval(vars)
		if err != nil {
			t.Fatalf("%s: messageExpression %d: %v (the API server would fall back to %q)", what, i, err, v.staticMessage)
		}
		s, _ := msg.Value().(string)
		if s == "" || strings.ContainsAny(s, "\r\n") {
			t.Fatalf("%s: messageExpression %d gave %q: the API server would fall back to the static message", what, i, s)
		}
		return s
	}
	return ""
}

func TestDecisions(t *testing.T) {
	_, p, _ := loadManifest(t)
	g := compile(t, p)
	const other = "system:serviceaccount:telark-system:someone-else"
	for _, tc := range []struct {
		name string
		req  request
		want string // "" admitted, else a substring of the refusal
	}{
		{"create naming someone else", create("alice", ann("bob")),
			`set the annotation telark.io/created-by: alice when you create a plan with kubectl (it says "bob")`},
		{"create without annotations", create("alice", nil),
			"set the annotation telark.io/created-by: alice when you create a plan with kubectl (it is missing)"},
		{"create without the annotation", create("alice", map[string]string{"note": "x"}), "(it is missing)"},
		{"create with an empty annotation", create("alice", ann("")), `(it says "")`},
		{"create with spaces around the name", create("alice", ann(" alice ")), `(it says " alice ")`},
		{"create naming oneself", create("alice", ann("alice")), ""},
		{"trusted writer creates for carol", create(DefaultTrustedWriter, ann("carol")), ""},
		{"another service account is not trusted", create(other, ann("carol")), "created-by: " + other + " when you create"},
		{"update changing the annotation", update("alice", ann("alice"), ann("bob")),
			"never changes: keep telark.io/created-by: alice when you update this plan"},
		{"update removing the annotation", update("alice", ann("alice"), map[string]string{"note": "x"}), "keep telark.io/created-by: alice"},
		{"update dropping all annotations", update("alice", ann("alice"), nil), "keep telark.io/created-by: alice"},
		{"update adding the annotation", update("alice", nil, ann("alice")), "this plan has none, so leave it unset"},
		{"trusted writer may not change it either", update(DefaultTrustedWriter, ann("carol"), ann("dave")), "keep telark.io/created-by: carol"},
		{"update keeping the annotation, by someone else", update("bob", ann("alice"), map[string]string{Annotation: "alice", "note": "changed"}), ""},
		{"update of a plan that never had it", update("bob", nil, map[string]string{"note": "y"}), ""},
		{"trusted writer updates keeping it", update(DefaultTrustedWriter, ann("carol"), ann("carol")), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := g.decide(t, tc.req)
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
