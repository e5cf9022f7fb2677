package report

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/net/html"

	"github.com/telark/protectionplans/plan"
)

// Fuzz target with oracles (issue 15); its seed corpus is in
// testdata/fuzz/FuzzReport, and hack/fuzz.sh runs it.

// fuzzText is the user text FuzzReport puts into the nightly run.
type fuzzText struct {
	name, desc, namespace, message, resource string
}

func (x fuzzText) all() []string {
	return []string{x.name, x.desc, x.namespace, x.message, x.resource}
}

// input is the nightly run with the plan's display name and description,
// a third namespace of its application, the namespace of one violation,
// every violation's message and the resource name of every third one
// replaced with the text.
func (x fuzzText) input(base Input) Input {
	in := base
	in.Plan = base.Plan.DeepCopy()
	in.Plan.Spec.Name, in.Plan.Spec.Description = x.name, x.desc
	app := base.Applications[0]
	app.Namespaces = append(slices.Clone(app.Namespaces), x.namespace)
	in.Applications = []plan.Application{app}
	in.Violations = slices.Clone(base.Violations)
	for i := range in.Violations {
		in.Violations[i].Message = x.message
		if i%3 == 0 {
			in.Violations[i].Resource.Name = x.resource
		}
	}
	in.Violations[1].Resource.Namespace = x.namespace
	return in
}

// FuzzReport builds the nightly run's report with user text in the plan's
// display name and description, a namespace, the violations' messages and
// resource names, and renders it in every format. Oracles:
//
//   - Build and Render never panic nor fail, and are deterministic: a
//     second build is equal and renders the same bytes in every format;
//   - HTML: the tokenizer reads the page, which has only the elements and
//     attributes html.tmpl writes, no comment, the template's style sheet,
//     no attribute value holding user text (each text that no attribute of
//     the plain nightly report holds) and shows every user text as it is
//     (checkHTMLKeepsText); parsed as a browser does, its outline is the
//     report's, without a script (checkStructure);
//   - Markdown: every table row has its table's cells, and there is no
//     raw HTML but <br>, and no link (checkMarkdownTables);
//   - JSON: it holds no < > or & (safe to embed), matches the schema
//     (checkSchema), and decodes to the same report, which renders the
//     same bytes;
//   - CSV: encoding/csv reads a header and a row per violation, no cell
//     starts a formula, and no message loses text (checkCSVSafe).
func FuzzReport(f *testing.F) {
	for i, h := range hostile {
		f.Add(h, hostile[(i+1)%len(hostile)], "shop-batch", h, hostile[(i+2)%len(hostile)])
	}
	f.Add("Nightly image freeze", "No new checkout images while the nightly settlement batch runs.", "payments",
		"changing container images is frozen by protection plan Nightly image freeze until 2026-07-22 06:00 CEST", "checkout-web")
	f.Add("", "", "", "", "")
	base := nightlyInput(f)
	plainAttrs := attributeValues(f, mustRender(f, mustBuild(f, base), HTML))
	for i, a := range plainAttrs {
		plainAttrs[i] = strings.ToLower(a)
	}
	f.Fuzz(func(t *testing.T, name, desc, namespace, message, resource string) {
		x := fuzzText{name, desc, namespace, message, resource}
		in := x.input(base)
		r := mustBuild(t, in)
		again := mustBuild(t, x.input(base))
		if diff := cmp.Diff(r, again); diff != "" {
			t.Fatalf("two builds of the same input differ (-first +second):\n%s", diff)
		}
		docs := map[Format][]byte{}
		for _, format := range Formats() {
			docs[format] = mustRender(t, r, format)
			if !bytes.Equal(docs[format], mustRender(t, again, format)) {
				t.Fatalf("two renders of the same report in %s differ", format)
			}
		}
		var markers []string
		for _, s := range x.all() {
			lower := strings.ToLower(s)
			if s != "" && !slices.ContainsFunc(plainAttrs, func(a string) bool { return strings.Contains(a, lower) }) {
				markers = append(markers, s)
			}
		}
		checkHTMLKeepsText(t, docs[HTML], x.all(), markers)
		checkStructure(t, docs[HTML])
		checkMarkdownTables(t, string(docs[Markdown]))
		checkJSONRoundTrip(t, r, docs[JSON])
		checkCSVSafe(t, r, docs[CSV])
	})
}

// attributeValues lists the attribute values of an HTML page (for
// FuzzReport, those of the plain nightly report, in lower case).
func attributeValues(tb testing.TB, doc []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				tb.Fatal(z.Err())
			}
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			for _, a := range z.Token().Attr {
				out = append(out, a.Val)
			}
		}
	}
}

// asJSONText compares strings as JSON holds them: JSON is Unicode text, and
// encoding/json writes each byte that is not UTF-8 as U+FFFD.
var asJSONText = cmpopts.AcyclicTransformer("asJSONText", func(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
})

// checkJSONRoundTrip holds that doc, the JSON of r, is safe to embed in
// HTML, matches the schema, and decodes to r (its strings as JSON holds
// them), which renders doc again.
func checkJSONRoundTrip(t *testing.T, r Report, doc []byte) {
	t.Helper()
	if i := bytes.IndexAny(doc, "<>&"); i >= 0 {
		t.Fatalf("the JSON has %q unescaped at %d; it must stay safe to embed in HTML", doc[i], i)
	}
	checkSchema(t, doc)
	var back Report
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatalf("the JSON report does not decode: %v", err)
	}
	if diff := cmp.Diff(r, back, asJSONText); diff != "" {
		t.Fatalf("the JSON report decodes to another report (-built +decoded):\n%s", diff)
	}
	// encoding/json escapes U+FFFD only where it replaced a byte that was
	// not UTF-8; elsewhere the same report is the same bytes.
	again := mustRender(t, back, JSON)
	if !bytes.Contains(doc, []byte(`\ufffd`)) && !bytes.Equal(doc, again) {
		t.Fatal("the decoded report renders other JSON")
	}
	var a, b any
	if json.Unmarshal(doc, &a) != nil || json.Unmarshal(again, &b) != nil || !cmp.Equal(a, b) {
		t.Fatal("the decoded report renders another JSON value")
	}
}
