package render

import (
	"bytes"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
)

// hostileNames are plan names and descriptions that would do harm if
// Kyverno, JMESPath or a YAML parser ever read them as anything but text.
var hostileNames = []string{
	"{{ request.userInfo.username }}",
	"{{{x}}}",
	"$(y",
	"$(./../metadata/name)",
	"}}",
	"\\{{ escaped }}",
	"{{- base64_decode('aGk=') }}",
	"line one\nline two\r\n---\nkind: Secret",
	"--- \n...\n",
	`"quoted" and 'single' and ` + "`backtick`",
	"ünïcødé ☃ 凍結 \u202e",
	"[?name=='x'] | @ && `true`",
	"a: b\n- c: d",
	"#comment",
	"' + request.userInfo.username + '",
	"\" + request.userInfo.username + \"",
	"\\",
	"\\\" + string(request) + \\\"",
	"\u0085 next line \u2028 line separator \x00 nul \x7f del",
}

// hostileInput is an enforcing plan named and described with every hostile
// string at once.
func hostileInput() Input {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"), tpl("secret-edits"))
	p.Spec.Name = strings.Join(hostileNames, " | ")
	p.Spec.Description = strings.Join(hostileNames, "\n")
	return Input{Plan: p, Now: now}
}

// ownVariable is what every "{{" of a rendered policy must start: our own
// JMESPath on the request or the parent's labels (an application's
// selector on a /scale's parent), or the message decode.
var ownVariable = regexp.MustCompile(`^\{\{(- base64_decode\('[A-Za-z0-9+/=]*'\) \}\}$|- join\('', \[base64_decode\('[A-Za-z0-9+/=]*'\), request\.kind\.kind, ' ', request\.name, base64_decode\('[A-Za-z0-9+/=]*'\)\]\) \}\}$| request\.| \(| !\(| sort\(| to_number\(to_string\(request\.| not_null\(\(parentLabels\.)`)

func TestHostile_MessagesAreExactAndInert(t *testing.T) {
	for _, name := range hostileNames {
		for _, mode := range []plan.Mode{plan.ModeAudit, plan.ModeEnforce} {
			t.Run(string(mode)+"/"+name, func(t *testing.T) {
				p := namespacePlan(mode, []string{"shop"}, tpl("scaling"))
				p.Spec.Name = name
				p.Spec.Description = name
				res := mustRender(t, Input{Plan: p, Now: now})
				obj := res.Policies[0].Objects[0].Object
				rule := obj["spec"].(map[string]any)["rules"].([]any)[0].(map[string]any)
				msg := rule["validate"].(map[string]any)["message"].(string)
				want := "would be blocked by protection plan " + name + ": scaling"
				if mode == plan.ModeEnforce {
					want = "scaling is frozen by protection plan " + name + " until 2026-07-24 06:00 CEST"
				}
				if got := decodeMessage(t, msg); got != want {
					t.Errorf("decoded message = %q, want %q", got, want)
				}
				checkOnlyOwnVariables(t, mustYAML(t, res))
			})
		}
	}
}

func TestHostile_YAMLStreamKeepsItsShape(t *testing.T) {
	in := hostileInput()
	res := mustRender(t, in)
	y := mustYAML(t, res)
	docs := bytes.Split(y, []byte("---\n"))[1:]
	if len(docs) != len(res.Policies) {
		t.Fatalf("YAML stream has %d documents, want %d", len(docs), len(res.Policies))
	}
	for i, doc := range docs {
		var back map[string]any
		if err := yaml.Unmarshal(doc, &back); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		want, _ := yaml.Marshal(res.Policies[i].Objects[0].Object)
		got, _ := yaml.Marshal(back)
		if !bytes.Equal(want, got) {
			t.Errorf("document %d does not read back as rendered", i)
		}
	}
	checkOnlyOwnVariables(t, y)
	if bytes.Contains(y, []byte("request.userInfo")) {
		t.Error("user text reached the policy")
	}
	// Apart from the base64 in messages (and so the hashes), the hostile
	// plan renders exactly like a plan with a plain name: user text reaches
	// nothing else.
	plain := hostileInput()
	plain.Plan.Spec.Name, plain.Plan.Spec.Description = "plain", "plain"
	got, want := neutralize(res.Objects()[0].Object), neutralize(mustRender(t, plain).Objects()[0].Object)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("user text changed something else than the messages (-plain +hostile):\n%s", diff)
	}
}

// neutralize replaces messages and hashes with placeholders.
func neutralize(v any) any {
	switch x := v.(type) {
	case string:
		x = regexp.MustCompile(`base64_decode\('[A-Za-z0-9+/=]*'\)`).ReplaceAllString(x, "base64_decode('...')")
		return regexp.MustCompile(`sha256:[0-9a-f]{64}`).ReplaceAllString(x, "sha256:...")
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = neutralize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = neutralize(e)
		}
		return out
	}
	return v
}

func decodeMessage(t *testing.T, msg string) string {
	t.Helper()
	m := regexp.MustCompile(`^\{\{- base64_decode\('([A-Za-z0-9+/=]*)'\) \}\}$`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("message %q is not one base64_decode substitution", msg)
	}
	b, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkOnlyOwnVariables fails when a "{{" or "$(" of the YAML is not one of
// ours.
func checkOnlyOwnVariables(t *testing.T, y []byte) {
	t.Helper()
	var objs []map[string]any
	for _, doc := range bytes.Split(y, []byte("---\n"))[1:] {
		var o map[string]any
		if err := yaml.Unmarshal(doc, &o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	for _, o := range objs {
		walkStrings(o, func(s string) {
			if strings.Contains(s, "$(") {
				t.Errorf("a $( reference in %q", s)
			}
			for i := strings.Index(s, "{{"); i >= 0; {
				if !ownVariable.MatchString(s[i:]) {
					t.Errorf("foreign variable at %q", s[i:])
				}
				j := strings.Index(s[i+2:], "{{")
				if j < 0 {
					break
				}
				i += 2 + j
			}
		})
	}
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for k, e := range x {
			f(k)
			walkStrings(e, f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	}
}

// assertFieldError checks that err is a 400 *plan.ValidationError naming
// field.
func assertFieldError(t *testing.T, err error, field string) {
	t.Helper()
	var verr *plan.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("error = %v, want a *plan.ValidationError", err)
	}
	if code := plan.CodeOf(err); code != 400 {
		t.Errorf("code = %d, want 400", code)
	}
	for _, fe := range verr.Errs {
		if fe.Field == field {
			return
		}
	}
	t.Errorf("error %q does not name %s", err, field)
}
