package render

import (
	"bytes"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// Fuzz target with oracles (issue 15); its seed corpus is in
// testdata/fuzz/FuzzRender, and hack/fuzz.sh runs it.

// fuzzParams are the templates whose parameter FuzzRender fills, and the
// parameter.
var fuzzParams = []struct{ template, param string }{
	{"create", paramKinds}, {"delete", paramKinds}, {"all-writes", paramKinds}, {"scaling", paramDirection},
}

// renderCase is one input of FuzzRender: user text for the plan's display
// name and description (and its application's name), a namespace, and a
// parameter value, rendered to a target in a layout and scope that shape
// chooses.
type renderCase struct {
	name, desc, ns, value string
	target                Target
	shape                 uint8
}

func (c renderCase) apps() bool    { return c.shape&1 != 0 }
func (c renderCase) compact() bool { return c.shape&2 != 0 }
func (c renderCase) enforce() bool { return c.shape&4 != 0 }
func (c renderCase) second() bool  { return c.shape&8 != 0 }
func (c renderCase) param() int    { return int(c.shape>>4) % len(fuzzParams) }
func (c renderCase) paramPath() string {
	p := fuzzParams[c.param()]
	return field.NewPath("spec", "templates").Index(0).Child("parameters").Key(p.param).String()
}

// nsPath is where Render reports the fuzzed namespace.
func (c renderCase) nsPath() string {
	if c.apps() {
		return field.NewPath("applications").Key(c.name).Child("namespaces").Index(1).String()
	}
	return field.NewPath("spec", "scope", "namespaces").Index(1).String()
}

// input is the case with text as display name, description and
// application name, and value as the parameter's value.
func (c renderCase) input(name, desc, value string) Input {
	mode := plan.ModeAudit
	if c.enforce() {
		mode = plan.ModeEnforce
	}
	p := fuzzParams[c.param()]
	templates := []plan.TemplateRef{tplWith(p.template, p.param, value)}
	if c.second() {
		templates = append(templates, tpl("image-change"))
	}
	in := Input{Now: now, Target: c.target, Compact: c.compact()}
	if c.apps() {
		in.Plan = appPlan(mode, templates...)
		in.Plan.Spec.Scope.Applications = []string{name}
		app := hostileApp(name)
		app.Namespaces = []string{"shop", c.ns}
		in.Applications = []plan.Application{app}
	} else {
		in.Plan = namespacePlan(mode, []string{"shop", c.ns}, templates...)
	}
	in.Plan.Spec.Name, in.Plan.Spec.Description = name, desc
	return in
}

// FuzzRender renders a valid plan with user text in its display name,
// description, application name, second namespace and a template
// parameter, to every target, in both layouts and both scope types.
// Oracles:
//
//   - Render never panics and does not change its input; it fails only
//     with a *plan.ValidationError (400) naming the namespace when that is
//     not a DNS label, or the parameter, and renders otherwise;
//   - it is deterministic: a second render has the same YAML bytes and
//     the same hashes, and every object's hash annotation is its HashOf;
//   - the parameter's text reaches the policies only through what it
//     means: the plan renders the same bytes with the value written in
//     canonical form (the kinds it lists in catalog order, the direction
//     trimmed);
//   - the display text reaches messages only, in inert form. For kyverno:
//     every {{ }} of the policies is one of the renderer's own, and with
//     messages and hashes set aside (neutralize) the policies are those of
//     a plan named "plain"; every message decodes to text that holds the
//     display name. For kyverno-cel and vap: every expression compiles and
//     type-checks (checkPolicyCEL); with messages set aside
//     (withoutMessages) the policies are those of the plain plan; every
//     expression, message expressions included, is the plain plan's once
//     string literals are blanked (so no user text is outside a literal);
//     every message holds the display name as the target writes text, and
//     every message expression evaluates to a text holding it.
func FuzzRender(f *testing.F) {
	for i, h := range hostileNames {
		f.Add(h, h, "payments", "Deployment, Secret,ConfigMap", uint8(i), uint8(i*37))
	}
	f.Add("Summer freeze", "", "shop", "down", uint8(0), uint8(0x3c))
	f.Add("Summer freeze", "desc", "Not_A_Label", "Deploymnet", uint8(1), uint8(0x11))
	f.Add("", " ", "a-b", "", uint8(2), uint8(0x0f))
	leave := update(gvkDeployment, deployment("web", checkoutLabels, 2, "a=x:1"), deployment("web", nil, 2, "a=x:1"))
	f.Fuzz(func(t *testing.T, name, desc, ns, value string, target, shape uint8) {
		c := renderCase{name: name, desc: desc, ns: ns, value: value, target: Targets()[int(target)%len(Targets())], shape: shape}
		in := c.input(name, desc, value)
		before := in.Plan.DeepCopy()
		res, err := Render(in)
		if !equalPlans(before, in.Plan) {
			t.Fatal("Render changed the plan")
		}
		if err != nil {
			checkRenderError(t, c, err)
			return
		}
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			t.Fatalf("namespace %q is not a DNS label, and rendered", ns)
		}
		y := mustYAML(t, res)
		checkRenderDeterministic(t, in, res, y)
		canonical := c.input(name, desc, canonicalValue(fuzzParams[c.param()].param, value))
		if got := mustYAML(t, mustRender(t, canonical)); !bytes.Equal(y, got) {
			t.Fatalf("parameter %q renders otherwise than its canonical form %q", value, canonical.Plan.Spec.Templates[0].Parameters)
		}
		plain := mustRender(t, c.input("plain", "plain", value))
		if c.target == TargetKyverno {
			checkKyvernoInert(t, c, res, plain, y)
		} else {
			checkCELInert(t, c, res, plain, leave)
		}
	})
}

// checkRenderError holds that err names the fuzzed namespace when it is
// not a DNS label, and nothing but the namespace and the parameter.
func checkRenderError(t *testing.T, c renderCase, err error) {
	t.Helper()
	if len(validation.IsDNS1123Label(c.ns)) > 0 {
		assertFieldError(t, err, c.nsPath())
	}
	var verr *plan.ValidationError
	if !errors.As(err, &verr) || plan.CodeOf(err) != 400 {
		t.Fatalf("Render: %T %v, want a *plan.ValidationError (400)", err, err)
	}
	for _, fe := range verr.Errs {
		if fe.Field != c.nsPath() && fe.Field != c.paramPath() {
			t.Errorf("Render refused %s, which holds no fuzzed value: %v", fe.Field, fe)
		}
	}
}

// checkRenderDeterministic renders in again and compares.
func checkRenderDeterministic(t *testing.T, in Input, res Result, y []byte) {
	t.Helper()
	again := mustRender(t, in)
	if !bytes.Equal(y, mustYAML(t, again)) {
		t.Fatal("two renders of the same input differ")
	}
	for i, p := range res.Policies {
		if p.Hash == "" || p.Hash != again.Policies[i].Hash {
			t.Fatalf("policy %s: hashes %q and %q", p.Name, p.Hash, again.Policies[i].Hash)
		}
		for _, o := range p.Objects {
			h, err := HashOf(o)
			if err != nil || o.GetAnnotations()[AnnotationRenderHash] != h {
				t.Fatalf("%s %s: hash annotation %q, HashOf %q (%v)", o.GetKind(), o.GetName(),
					o.GetAnnotations()[AnnotationRenderHash], h, err)
			}
		}
	}
}

// canonicalValue writes a valid parameter value in canonical form.
func canonicalValue(param, value string) string {
	t, _ := Lookup(map[string]string{paramKinds: "create", paramDirection: "scaling"}[param])
	decl, _ := t.info.Parameter(param)
	items, _ := decl.Parse(value, field.NewPath(param))
	if param == paramDirection {
		return strings.Join(items, "")
	}
	kinds := kindsOf(items)
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Kind
	}
	return strings.Join(names, ",")
}

// displayName is the name messages carry: the display name, or the plan ID
// when it is blank.
func (c renderCase) displayName() string {
	if strings.TrimSpace(c.name) == "" {
		return c.input("", "", "").Plan.Name
	}
	return c.name
}

var base64Part = regexp.MustCompile(`base64_decode\('([A-Za-z0-9+/=]*)'\)`)

func checkKyvernoInert(t *testing.T, c renderCase, res, plain Result, y []byte) {
	t.Helper()
	checkOnlyOwnVariables(t, y)
	got, want := res.Objects(), plain.Objects()
	if len(got) != len(want) {
		t.Fatalf("%d objects, %d for a plain name", len(got), len(want))
	}
	for i := range got {
		if diff := cmp.Diff(neutralize(want[i].Object), neutralize(got[i].Object)); diff != "" {
			t.Fatalf("user text changed something else than the messages (-plain +fuzzed):\n%s", diff)
		}
		rules, _, _ := unstructured.NestedSlice(got[i].Object, "spec", "rules")
		for _, r := range rules {
			msg, _, _ := unstructured.NestedString(r.(map[string]any), "validate", "message")
			var text strings.Builder
			for _, m := range base64Part.FindAllStringSubmatch(msg, -1) {
				b, err := base64.StdEncoding.DecodeString(m[1])
				if err != nil {
					t.Fatal(err)
				}
				text.Write(b)
			}
			if name := c.displayName(); !strings.Contains(text.String(), name) {
				t.Fatalf("message %q decodes to %q, without the plan's name %q", msg, text.String(), name)
			}
		}
	}
}

// celLiteral is a double-quoted CEL string literal, as celString writes it.
var celLiteral = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

func checkCELInert(t *testing.T, c renderCase, res, plain Result, leave Request) {
	t.Helper()
	text := translators[c.target].traits().text
	got, want := res.Objects(), plain.Objects()
	if len(got) != len(want) {
		t.Fatalf("%d objects, %d for a plain name", len(got), len(want))
	}
	name := text(c.displayName())
	for i, obj := range got {
		if diff := cmp.Diff(withoutMessages(want[i].Object), withoutMessages(obj.Object)); diff != "" {
			t.Fatalf("user text changed more than messages (-plain +fuzzed):\n%s", diff)
		}
		if obj.GetKind() == bindingKind {
			continue
		}
		for _, p := range checkPolicyCEL(c.target, obj) {
			t.Error(p)
		}
		exprs, plainExprs := policyExpressions(obj), policyExpressions(want[i])
		if len(exprs) != len(plainExprs) {
			t.Fatalf("%d expressions, %d for a plain name", len(exprs), len(plainExprs))
		}
		for j, e := range exprs {
			if a, b := celLiteral.ReplaceAllString(plainExprs[j].expr, `""`), celLiteral.ReplaceAllString(e.expr, `""`); a != b {
				t.Fatalf("%s: user text is outside string literals:\n  plain:  %s\n  fuzzed: %s", e.field, plainExprs[j].expr, e.expr)
			}
			if strings.HasSuffix(e.field, ".messageExpression") {
				if msg := evalMessage(t, c.target, e.expr, leave); !strings.Contains(msg, name) {
					t.Fatalf("%s evaluates to %q, without the plan's name %q", e.field, msg, name)
				}
			}
		}
		validations, _, _ := unstructured.NestedSlice(obj.Object, "spec", "validations")
		for _, v := range validations {
			if msg, ok := v.(map[string]any)["message"].(string); ok && !strings.Contains(msg, name) {
				t.Fatalf("message %q does not hold the plan's name %q", msg, name)
			}
		}
	}
}
