package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/window"
)

// Fuzz targets with oracles (issue 15). Each checks properties that hold
// for every input, not only that nothing panics. Their seed corpora are in
// testdata/fuzz/<target>; hack/fuzz.sh runs every target of the module.

// decodeBases are the valid documents FuzzDecode adds unknown fields to:
// the decode tests' plans and the sample plans of examples/plans.
func decodeBases(tb testing.TB) [][]byte {
	bases := [][]byte{[]byte(planYAML), []byte(planJSON)}
	files, err := filepath.Glob("../examples/plans/*.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		bases = append(bases, b)
	}
	return bases
}

// knownFields are the JSON names of the fields at each place FuzzDecode
// puts an unknown field; a name on its list is not unknown there.
var knownFields = []struct {
	path  []string // the object's path in the document; index 0 of a list
	names []string
}{
	{nil, []string{"apiVersion", "kind", "metadata", "spec", "status"}},
	{[]string{"spec"}, []string{"name", "description", "scope", "exclusions", "templates", "window", "mode",
		"approvalMode", "environment", "tags"}},
	{[]string{"spec", "scope"}, []string{"applications", "namespaces"}},
	{[]string{"spec", "window"}, []string{"type", "startAt", "endAt", "schedules", "timeZone"}},
	{[]string{"spec", "templates", "0"}, []string{"name", "parameters"}},
}

// FuzzDecode decodes arbitrary bodies, and valid plans with an unknown
// field added. Oracles:
//
//   - Decode never panics, and fails only with a *DecodeError (400) or,
//     over the limit, a *TooLargeError (413): a body of n bytes is too
//     large for a limit of n-1 and decodes exactly as without a limit at
//     a limit of n;
//   - a plan that decodes, encoded to JSON and decoded again, is the same
//     plan (times compared as metav1.Time writes them: the instant, to
//     the second) and encodes to the same bytes;
//   - a valid plan with a field added that its type does not have, at the
//     top or inside spec, spec.scope, spec.window or a template, in JSON or
//     in YAML, is refused with an unknown-field problem naming that field.
func FuzzDecode(f *testing.F) {
	bases := decodeBases(f)
	trees := make([]map[string]any, len(bases))
	for i, b := range bases {
		// The plan as Decode reads it and JSON writes it (YAML's numbers
		// and booleans in parameters become the strings they stand for).
		var p ProtectionPlan
		if err := Decode(bytes.NewReader(b), &p); err != nil {
			f.Fatal(err)
		}
		j, err := json.Marshal(&p)
		if err != nil {
			f.Fatal(err)
		}
		if err := json.Unmarshal(j, &trees[i]); err != nil {
			f.Fatal(err)
		}
		f.Add(b, "naem", uint8(i))
	}
	f.Add([]byte(strings.Replace(planYAML, "namespaces:", "namespace:", 1)), "Mode", uint8(7))
	f.Add([]byte(planYAML+"---\n"+planYAML), "", uint8(13))
	f.Add([]byte(`{"spec":{"name":"x","name":"y"}}`), "spec.name", uint8(20))

	// The default limit, once (a body over 1 MiB per run would be slow):
	// one byte over it is too large, whatever the body says.
	over := append(bytes.Repeat([]byte(" "), DefaultMaxBodyBytes+1-len(bases[0])), bases[0]...)
	var p ProtectionPlan
	err := Decode(bytes.NewReader(over), &p)
	if tl := errAs[*TooLargeError](err); tl == nil || tl.Limit != DefaultMaxBodyBytes || CodeOf(err) != http.StatusRequestEntityTooLarge {
		f.Fatalf("a body of 1 MiB + 1 byte: err = %v, want a *TooLargeError", err)
	}

	f.Fuzz(func(t *testing.T, body []byte, name string, where uint8) {
		checkDecode(t, body)
		base := trees[int(where)%len(trees)]
		loc := knownFields[int(where)/len(trees)%len(knownFields)]
		checkUnknownField(t, base, loc.path, loc.names, name, where&0x80 != 0)
	})
}

// checkDecode holds the oracles of an arbitrary body.
func checkDecode(t *testing.T, body []byte) {
	var p ProtectionPlan
	err := Decode(bytes.NewReader(body), &p)
	var tooLarge *TooLargeError
	var de *DecodeError
	switch {
	case err == nil:
	case errors.As(err, &tooLarge):
		if len(body) <= DefaultMaxBodyBytes || tooLarge.Limit != DefaultMaxBodyBytes || CodeOf(err) != http.StatusRequestEntityTooLarge {
			t.Fatalf("a body of %d bytes: %v (code %d)", len(body), err, CodeOf(err))
		}
		return
	case errors.As(err, &de):
		if CodeOf(err) != http.StatusBadRequest || len(de.Problems) == 0 {
			t.Fatalf("decode error %#v: code %d, want 400 and at least one problem", de, CodeOf(err))
		}
	default:
		t.Fatalf("Decode returned %T %v, want a *DecodeError or a *TooLargeError", err, err)
	}
	if len(body) > DefaultMaxBodyBytes {
		t.Fatalf("a body of %d bytes was read: err = %v", len(body), err)
	}
	if n := int64(len(body)); n > 1 {
		var q ProtectionPlan
		under := Decode(bytes.NewReader(body), &q, WithMaxBytes(n-1))
		if diff := cmp.Diff(&TooLargeError{Limit: n - 1}, under); diff != "" || CodeOf(under) != http.StatusRequestEntityTooLarge {
			t.Fatalf("a body of %d bytes under a limit of %d (-want +got):\n%s", n, n-1, diff)
		}
		var r ProtectionPlan
		again := Decode(bytes.NewReader(body), &r, WithMaxBytes(n))
		if diff := cmp.Diff(err, again); diff != "" {
			t.Fatalf("a second decode, at a limit of exactly the body's size, failed otherwise (-first +second):\n%s", diff)
		}
		if err == nil {
			if diff := cmp.Diff(&p, &r); diff != "" {
				t.Fatalf("two decodes of the same body differ (-first +second):\n%s", diff)
			}
		}
	}
	if err == nil {
		checkRoundTrip(t, &p)
	}
}

func errAs[E error](err error) E {
	var e E
	errors.As(err, &e)
	return e
}

// metaTimeAsWritten compares metav1.Times as their JSON form keeps them:
// the instant in UTC, to the second (Kubernetes' Time has a precision of
// one second; MicroTime is the type with more). A nil *metav1.Time and a
// pointer to the zero time both write null.
var metaTimeAsWritten = cmp.Options{
	cmp.Comparer(func(a, b metav1.Time) bool { return a.Unix() == b.Unix() }),
	cmp.Comparer(func(a, b *metav1.Time) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.Unix() == b.Unix()
	}),
	cmpopts.EquateEmpty(),
}

// checkRoundTrip encodes a decoded plan to JSON and decodes it again.
func checkRoundTrip(t *testing.T, p *ProtectionPlan) {
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("a decoded plan does not encode: %v", err)
	}
	var q ProtectionPlan
	if err := Decode(bytes.NewReader(b), &q, WithMaxBytes(int64(len(b))+1)); err != nil {
		t.Fatalf("a decoded plan, encoded, does not decode again: %v\n%s", err, b)
	}
	if diff := cmp.Diff(p, &q, metaTimeAsWritten); diff != "" {
		t.Fatalf("a decoded plan, encoded and decoded again, changed (-first +second):\n%s\n%s", diff, b)
	}
	again, err := json.Marshal(&q)
	if err != nil || !bytes.Equal(b, again) {
		t.Fatalf("the encoding is not stable: %v\n%s\n%s", err, b, again)
	}
}

// checkUnknownField adds name at path (a copy of base) and expects it to be
// refused as an unknown field, unless the type has a field of that name.
func checkUnknownField(t *testing.T, base map[string]any, path, known []string, name string, asYAML bool) {
	// JSON and YAML carry text; invalid UTF-8 is written as U+FFFD.
	name = strings.ToValidUTF8(name, string(utf8.RuneError))
	if slices.Contains(known, name) {
		return
	}
	doc := cloneTree(base).(map[string]any)
	obj := doc
	var want string
	for _, key := range path {
		if key == "0" {
			list, _ := obj["templates"].([]any)
			if len(list) == 0 {
				return
			}
			obj = list[0].(map[string]any)
			want = strings.TrimSuffix(want, ".templates") + ".templates[0]"
			continue
		}
		next, ok := obj[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[key] = next
		}
		obj, want = next, joinPath(want, key)
	}
	obj[name] = "x"
	// A name that would break a one-line error is quoted: the YAML
	// decoder quotes it as a key, the JSON decoder the whole path.
	inKey := want + keySuffix(name)
	want = joinPath(want, name)
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	format := FormatJSON
	if asYAML {
		// Not every name JSON holds comes back from YAML: the encoder
		// refuses control characters, and writes "<<" bare, which YAML
		// reads as a merge key. Those names are tried in JSON only.
		if y, err := yaml.JSONToYAML(body); err == nil && sameYAML(y, doc) {
			body, format = y, FormatYAML
		}
	}
	var p ProtectionPlan
	err = Decode(bytes.NewReader(body), &p, WithFormat(format))
	de := errAs[*DecodeError](err)
	if de == nil || CodeOf(err) != http.StatusBadRequest {
		t.Fatalf("a %s plan with the unknown field %q: err = %v, want a *DecodeError (400)\n%s", format, want, err, body)
	}
	for _, pr := range de.Problems {
		if pr.Kind == ProblemUnknownField && (pr.Field == want || pr.Field == inKey || pr.Field == strconv.Quote(want)) {
			return
		}
	}
	t.Fatalf("a %s plan with the unknown field %q: problems %+v do not name it\n%s", format, want, de.Problems, body)
}

// sameYAML reports whether the YAML document y reads as doc.
func sameYAML(y []byte, doc map[string]any) bool {
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		return false
	}
	var back map[string]any
	return json.Unmarshal(j, &back) == nil && reflect.DeepEqual(back, doc)
}

func cloneTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneTree(e)
		}
		return out
	}
	return v
}

// FuzzValidate validates plans built from arbitrary text: plan ID, display
// name, description, a namespace (or application), a template with a
// parameter, and the window's fields. Oracles:
//
//   - Validate never panics and returns nil or a *ValidationError whose
//     code follows from its field error types (200, 400, 409 or 503);
//   - it is deterministic: a second call returns the same errors;
//   - it does not change the plan;
//   - every field error has a field path;
//   - a display name or a description containing {{ or }} is refused,
//     on spec.name or spec.description.
func FuzzValidate(f *testing.F) {
	f.Add("nightly", "Nightly image freeze", "No new images at night.", "checkout", "image-change", "", "",
		"Europe/Berlin", "0 22 * * *", "8h", int64(0), int64(86400), uint8(1))
	f.Add("holiday", "Holiday freeze", "", "payments", "scaling", "maxReplicas", "5",
		"", "", "", int64(-3600), int64(3*86400), uint8(0))
	f.Add("holiday", "freeze {{ request.object }}", "see }}", "shop", "all-writes", "kinds", "Deployment",
		"UTC", "", "", int64(0), int64(0), uint8(2))
	f.Add("Nightly_Freeze", "  christmas FREEZE ", "\x00", "kube-system", "scaling", "grace", "-1s",
		"Local", "0 0 30 2 *", "0s", int64(-1<<40), int64(-1), uint8(5))
	now := at("Tue Dec 1 2026 10:00 UTC")
	env := testEnv(now)
	f.Fuzz(func(t *testing.T, id, name, desc, scope, tmpl, key, value, zone, cron, dur string, start, length int64, shape uint8) {
		p := fuzzPlan(now, id, name, desc, scope, tmpl, key, value, zone, cron, dur, start, length, shape)
		before := p.DeepCopy()
		err := Validate(p, env)
		if diff := cmp.Diff(before, p); diff != "" {
			t.Fatalf("Validate changed the plan (-before +after):\n%s", diff)
		}
		again := Validate(p, env)
		if diff := cmp.Diff(describeErrs(err), describeErrs(again)); diff != "" {
			t.Fatalf("two validations of the same plan differ (-first +second):\n%s", diff)
		}
		var verr *ValidationError
		switch {
		case err == nil:
		case errors.As(err, &verr) && len(verr.Errs) > 0:
			if code := CodeOf(err); code != 400 && code != 409 && code != 503 {
				t.Fatalf("code %d for %v", code, err)
			}
		default:
			t.Fatalf("Validate returned %T %v, want nil or a *ValidationError", err, err)
		}
		for _, d := range describeErrs(err) {
			if d.Field == "" {
				t.Errorf("a field error without a field path: %+v", d)
			}
		}
		for fld, text := range map[string]string{"spec.name": name, "spec.description": desc} {
			if !strings.Contains(text, "{{") && !strings.Contains(text, "}}") {
				continue
			}
			if !slices.Contains(describeErrs(err), fieldErr{Type: field.ErrorTypeInvalid, Field: fld, Detail: "must not contain {{ or }}"}) {
				t.Errorf("%s %q contains a template delimiter and was not refused on %s: %v", fld, text, fld, err)
			}
		}
	})
}

// fuzzPlan is holiday (namespaces) or nightly (applications), as shape
// says, with the fuzzed text in place, a second template and one of the
// three types of window.
func fuzzPlan(now time.Time, id, name, desc, scope, tmpl, key, value, zone, cron, dur string, start, length int64, shape uint8) *ProtectionPlan {
	p := holiday()
	if shape&1 != 0 {
		p = nightly()
	}
	p.Name, p.Spec.Name, p.Spec.Description = id, name, desc
	if p.Spec.Scope.Type() == ScopeApplications {
		p.Spec.Scope.Applications = append(p.Spec.Scope.Applications, scope)
	} else {
		p.Spec.Scope.Namespaces = append(p.Spec.Scope.Namespaces, scope)
	}
	p.Spec.Templates = append(p.Spec.Templates, TemplateRef{Name: tmpl, Parameters: map[string]string{key: value}})
	begin := metav1.NewTime(now.Add(time.Duration(start%(1<<33)) * time.Second))
	end := metav1.NewTime(begin.Add(time.Duration(length%(1<<33)) * time.Second))
	switch shape >> 1 % 3 {
	case 0:
		p.Spec.Window = window.Spec{Type: window.TimeRange, StartAt: &begin, EndAt: &end, TimeZone: zone}
	case 1:
		p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: zone,
			Schedules: []window.Schedule{{Cron: cron, Duration: dur}}}
		if shape&0x40 != 0 {
			p.Spec.Window.StartAt, p.Spec.Window.EndAt = &begin, &end
		}
	default:
		p.Spec.Window = window.Spec{Type: window.Permanent, TimeZone: zone}
		if shape&0x40 != 0 {
			p.Spec.Window.StartAt = &begin
		}
	}
	if shape&0x80 != 0 {
		p.Spec.Mode = Mode(value)
	}
	return p
}

// describeErrs is what FuzzValidate compares of an error: each field
// error's type, path and detail (a lookup error's detail is its text).
func describeErrs(err error) []fieldErr {
	var verr *ValidationError
	if !errors.As(err, &verr) {
		return nil
	}
	return fieldErrs(verr.Errs)
}
