package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A compact policy reports its templates one by one (Policy.Parts,
// AnnotationTemplateHashes): each template's hash is that of the spec the
// standard layout renders for that template's own policy in the
// namespace, and the parts hold the compact policy's rule list in order.

// partsCase is an input of the compact cases (the explain corpus, and
// every template), each also with the clock and advance warnings, which
// add to every rule (kyverno) and a policy per namespace.
type partsCase struct {
	name string
	in   Input
}

func partsCases(t *testing.T) []partsCase {
	var out []partsCase
	for _, c := range compactCases(t) {
		in := Input{Plan: c.Input.Plan, Applications: c.Input.Applications, Now: c.Input.Now}
		out = append(out, partsCase{c.Name, in})
		in.Clock, in.Warnings = true, true
		out = append(out, partsCase{"clock and warnings: " + c.Name, in})
	}
	return out
}

func TestCompactParts(t *testing.T) {
	for _, target := range Targets() {
		for _, c := range partsCases(t) {
			t.Run(string(target)+"/"+c.name, func(t *testing.T) {
				in := c.in
				in.Target = target
				standard, err := Render(in)
				if err != nil {
					t.Skipf("the case does not render: %v", err) // the corpus holds refusals too
				}
				own := map[string]Policy{} // by namespace and template
				for _, p := range standard.Policies {
					own[p.Namespace+"/"+p.Template] = p
				}
				in.Compact = true
				compact := mustRender(t, in)
				n := 0
				for _, p := range compact.Policies {
					if p.Template != CompactTemplate {
						if p.Parts != nil {
							t.Errorf("policy %s (template %s) has parts %+v: only compact policies have", p.Name, p.Template, p.Parts)
						}
						continue
					}
					n++
					checkParts(t, p, own)
				}
				if n == 0 && len(compact.Policies) > 0 && !onlyExtras(compact) {
					t.Fatalf("the compact render holds no compact policy: %+v", compact.Policies)
				}
			})
		}
	}
}

// onlyExtras reports whether a render holds no policy of the plan's
// templates (only warning policies, before the start).
func onlyExtras(r Result) bool {
	for _, p := range r.Policies {
		if p.Template != WarnTemplate && p.Template != ExemptTemplate && p.Template != NamespaceLabelsTemplate {
			return false
		}
	}
	return true
}

// checkParts holds a compact policy's parts against the standard layout's
// policies of its namespace (own, by namespace/template).
func checkParts(t *testing.T, p Policy, own map[string]Policy) {
	t.Helper()
	if len(p.Parts) != len(p.Templates) {
		t.Fatalf("policy %s has %d parts for templates %v", p.Name, len(p.Parts), p.Templates)
	}
	rules, field, ok := RuleList(p.Objects[0])
	if !ok {
		t.Fatalf("policy %s has no rule list", p.Name)
	}
	at := 0
	for i, pt := range p.Parts {
		std, ok := own[p.Namespace+"/"+pt.Template]
		switch {
		case pt.Template != p.Templates[i]:
			t.Errorf("part %d is template %s, want %s (the plan's order)", i, pt.Template, p.Templates[i])
		case !ok:
			t.Errorf("part %s: the standard layout renders no policy of it in namespace %q", pt.Template, p.Namespace)
		case pt.Hash != specHash(t, std.Objects[0]):
			t.Errorf("part %s hashes %s, the spec of the standard layout's policy %s %s", pt.Template, pt.Hash, std.Name, specHash(t, std.Objects[0]))
		}
		if !ok {
			continue
		}
		stdRules, _, _ := RuleList(std.Objects[0])
		if pt.Rules != len(stdRules) || at+pt.Rules > len(rules) {
			t.Fatalf("part %s holds %d rules from %d of %d; its own policy has %d", pt.Template, pt.Rules, at, len(rules), len(stdRules))
		}
		for j := range pt.Rules {
			if got, want := ruleIdentity(rules[at+j]), ruleIdentity(stdRules[j]); got != compactRule(pt.Template, want) && got != want {
				t.Errorf("%s[%d] is %q, but the part of %s says it is its rule %q", field, at+j, got, pt.Template, want)
			}
		}
		at += pt.Rules
	}
	if at != len(rules) {
		t.Errorf("the parts hold %d of the %d entries of %s", at, len(rules), field)
	}
	want := TemplateHashes(p.Parts)
	for _, o := range p.Objects {
		if got := o.GetAnnotations()[AnnotationTemplateHashes]; got != want {
			t.Errorf("%s %s: annotation %s = %q, want %q", o.GetKind(), o.GetName(), AnnotationTemplateHashes, got, want)
		}
		if h, err := HashOf(o); err != nil || h != o.GetAnnotations()[AnnotationRenderHash] {
			t.Errorf("%s %s hashes to %s (%v), not its annotation: the template hashes must stay out of the canonical form", o.GetKind(), o.GetName(), h, err)
		}
	}
}

// specHash is the hash of an object's spec as json.Marshal writes it
// (keys sorted).
func specHash(t *testing.T, o *unstructured.Unstructured) string {
	t.Helper()
	b, err := json.Marshal(o.Object["spec"])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ruleIdentity names an entry of a rule list: a kyverno rule's name, a
// validation's message (a compact validation reads objects through dyn(),
// so its expression differs from its own policy's).
func ruleIdentity(e any) string {
	m, _ := e.(map[string]any)
	if n, ok := m["name"].(string); ok {
		return n
	}
	return fmt.Sprint(m["message"], " | ", m["messageExpression"])
}

func TestParseTemplateHashes(t *testing.T) {
	tests := []struct {
		name, value string
		want        map[string]string
		err         string
	}{
		{name: "the annotation of two templates reads back as their hashes", value: "create=sha256:aa,scaling=sha256:bb",
			want: map[string]string{"create": "sha256:aa", "scaling": "sha256:bb"}},
		{name: "an empty annotation is no template", value: "", want: map[string]string{}},
		{name: "an entry without = is refused, quoted", value: "create=sha256:aa,scaling", err: `entry 2 ("scaling") is not <template>=<hash>`},
		{name: "an entry without a hash is refused", value: "create=", err: `entry 1 ("create=") is not`},
		{name: "a template listed twice is refused, named", value: "create=a,create=b", err: `template "create" is listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTemplateHashes(tt.value)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), AnnotationTemplateHashes) {
					t.Fatalf("error %v, want one naming %s and saying %q", err, AnnotationTemplateHashes, tt.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	parts := []TemplatePart{{Template: "create", Hash: "sha256:1"}, {Template: "delete", Hash: "sha256:2"}}
	if got, err := ParseTemplateHashes(TemplateHashes(parts)); err != nil || got["create"] != "sha256:1" || got["delete"] != "sha256:2" {
		t.Errorf("TemplateHashes does not read back: %v, %v", got, err)
	}
}
