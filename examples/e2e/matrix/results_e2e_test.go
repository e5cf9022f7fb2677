//go:build e2e

package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/violations"
)

// matrixTable writes the matrix as Markdown: one table per scope, a row per
// door and object set: what the catalog intends, what Explain says, what
// Kyverno did.
func matrixTable(cases []*mcase) string {
	var b strings.Builder
	b.WriteString("# Matrix: case x intended x Explain x Kyverno\n\n")
	b.WriteString("Templates named in a cell refused the request (blocked) or recorded it (audited).\n")
	var cur string
	for _, c := range cases {
		if c.sc.ns != cur {
			cur = c.sc.ns
			fmt.Fprintf(&b, "\n## %s: %s\n\n", c.sc.ns, describeScope(c.sc))
			b.WriteString("| set | door | how | request | dry-run | intended | Explain | Kyverno | agree |\n")
			b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		}
		set := "in scope"
		switch {
		case c.sc.plan == nil:
			set = "no plan"
		case c.set.prefix != "":
			set = "other app (" + c.set.app + ")"
		}
		req := string(c.req.Operation) + " " + c.req.Kind.Kind
		if c.req.Subresource != "" {
			req += "/" + c.req.Subresource
		}
		ok := "yes"
		if !c.ok() {
			ok = "**NO**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %v | %s | %s | %s | %s |\n", set, c.door.id, c.door.how, req,
			c.sc.dry && !c.door.real, c.intended, c.explained, c.kyverno, ok)
	}
	return b.String()
}

func describeScope(sc scope) string {
	if sc.plan == nil {
		return "no plan (out of every scope)"
	}
	p := sc.plan
	d := fmt.Sprintf("plan %s, %s scope, %s, templates %d", p.Name, p.Spec.Scope.Type(), p.Spec.Mode, len(p.Spec.Templates))
	if len(p.Spec.Templates) < len(catalogNames()) {
		var names []string
		for _, t := range p.Spec.Templates {
			names = append(names, t.Name)
		}
		d += " (" + strings.Join(names, ", ") + ")"
	}
	if ex := p.Spec.Exclusions; len(ex.Kinds) > 0 || len(ex.Resources) > 0 {
		d += fmt.Sprintf("; excluded kinds %v, resources %v", ex.Kinds, ex.Resources)
	}
	return d
}

// coverage logs, per template, how many doors it caught in each scope (a
// template that caught nothing would make agreement meaningless).
func coverage(t *testing.T, cases []*mcase) {
	t.Helper()
	var b strings.Builder
	b.WriteString("doors caught by Kyverno, per template and scope:\n")
	for _, tmpl := range catalogNames() {
		fmt.Fprintf(&b, "  %-16s", tmpl)
		total := 0
		for _, sc := range matrixScopes() {
			n := 0
			for _, c := range cases {
				if c.sc.ns == sc.ns && (slices.Contains(c.kyverno.blocked, tmpl) || slices.Contains(c.kyverno.audited, tmpl)) {
					n++
				}
			}
			total += n
			fmt.Fprintf(&b, " %s=%d", sc.ns, n)
		}
		b.WriteString("\n")
		if total == 0 {
			t.Errorf("template %s caught no door anywhere", tmpl)
		}
	}
	t.Log(b.String())
}

// checkLedgers waits for the operator's checkpoints and checks that every
// decision Kyverno made on a plan's policies (refused or audited) is in
// the plan's ledger, and in the feed of both the ledger and the live
// events, with Explain's message.
func checkLedgers(t *testing.T, cases []*mcase, scopes []scope) {
	t.Helper()
	for _, sc := range scopes {
		if sc.plan == nil {
			continue
		}
		type pair struct{ tmpl, resource string }
		want := map[pair]string{}
		for _, c := range cases {
			if c.sc.ns != sc.ns {
				continue
			}
			for _, tmpl := range append(slices.Clone(c.kyverno.blocked), c.kyverno.audited...) {
				want[pair{tmpl, sc.ns + "/" + c.name}] = c.messages[tmpl]
			}
		}
		id := sc.plan.Name
		audit := sc.plan.Spec.Mode == plan.ModeAudit
		var ledger violations.Ledger
		began := time.Now()
		eventually(t, checkpointEvery+10*tick+20*time.Second, "the ledger of "+id+" holding every decision", func() (string, bool) {
			data, err := os.ReadFile(filepath.Join(s.reportsDir, id, operator.LedgerFile))
			if err != nil {
				return err.Error(), false
			}
			if ledger, err = violations.DecodeLedger(data); err != nil {
				return err.Error(), false
			}
			got := map[pair]bool{}
			for _, v := range ledger.Violations {
				got[pair{v.Template, v.Resource.Namespace + "/" + v.Resource.Name}] = true
			}
			for p := range want {
				if !got[p] {
					return fmt.Sprintf("%d violations, none for %v", len(ledger.Violations), p), false
				}
			}
			return "", true
		})
		prefix := "would be blocked by protection plan " + sc.plan.Spec.Name + ": "
		for _, v := range ledger.Violations {
			if v.Result != violations.ResultFail {
				t.Errorf("ledger of %s holds a %s result, not a violation: %+v", id, v.Result, v)
			}
			if v.Plan != id || v.Blocked == audit {
				t.Errorf("ledger of %s: %+v (plan %s, audit %v)", id, v, id, audit)
			}
			if audit && v.Source == violations.SourceEvent && !strings.HasPrefix(v.Message, prefix) {
				t.Errorf("ledger of %s: message %q does not read %q", id, v.Message, prefix+"...")
			}
			if m, ok := want[pair{v.Template, v.Resource.Namespace + "/" + v.Resource.Name}]; ok && v.Source == violations.SourceEvent && v.Message != m {
				t.Errorf("ledger of %s: message %q, Explain's %q", id, v.Message, m)
			}
		}
		page, err := violations.Feed(ledger.Violations, violations.Query{Plan: id, Namespaces: []string{sc.ns}, Limit: violations.MaxLimit})
		if err != nil {
			t.Error(err)
		}
		live := settledViolations(t, []string{sc.ns}, policyIndex(t))
		livePage, err := violations.Feed(live, violations.Query{Plan: id, Namespaces: []string{sc.ns}, Limit: violations.MaxLimit})
		if err != nil {
			t.Error(err)
		}
		sources := map[violations.Source]int{}
		for _, v := range ledger.Violations {
			sources[v.Source]++
		}
		t.Logf("ledger of %s: %d violations (%v; %d expected decisions) within %s; feed page %d, live feed page %d",
			id, len(ledger.Violations), sources, len(want), time.Since(began).Round(time.Millisecond), len(page.Items), len(livePage.Items))
		if len(page.Items) == 0 || len(livePage.Items) == 0 {
			t.Errorf("empty feed for %s", id)
		}
	}
}

// policyViolationEvents lists the PolicyViolation events of namespaces.
func policyViolationEvents(t *testing.T, namespaces []string) []corev1.Event {
	t.Helper()
	var out []corev1.Event
	for _, ns := range namespaces {
		var list corev1.EventList
		if err := s.c.List(t.Context(), &list, client.InNamespace(ns), client.MatchingFields{"reason": violations.ReasonPolicyViolation}); err != nil {
			t.Fatal(err)
		}
		out = append(out, list.Items...)
	}
	return out
}

// fixturesDir is where recorded fixtures go (PROTECTIONPLANS_FIXTURES_DIR
// overrides it).
func fixturesDir() string {
	if d := os.Getenv("PROTECTIONPLANS_FIXTURES_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "violations", "testdata", "kyverno-1.19.1")
}

// recordFixtures writes what Kyverno emitted for the matrix's requests on
// the operator's policies into violations/testdata/kyverno-1.19.1, as new
// files named matrix-*: the policies, the PolicyViolation events (both
// views), the PolicyReports, and the cases (request, Explain's and
// Kyverno's answers). It never overwrites a file of another recording.
func recordFixtures(t *testing.T, cases []*mcase, scopes []scope) {
	t.Helper()
	dir := fixturesDir()
	namespaces := []string{"mx-ns-audit", "mx-app-audit", "mx-ns-enforce"}
	// PolicyReports come 10-40 s after the audited requests.
	for _, ns := range namespaces[:2] {
		eventually(t, 2*time.Minute, "PolicyReports with fail results in "+ns, func() (string, bool) {
			n := failResults(t, ns)
			return fmt.Sprintf("%d fail results", n), n > 0
		})
	}
	time.Sleep(15 * time.Second) // let the aggregation take in every result
	write := func(name string, data []byte) {
		t.Helper()
		if !strings.HasPrefix(name, "matrix-") {
			t.Fatalf("refusing to write %s: only matrix-* files are this recorder's", name)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	isPV := func(m map[string]any) bool { return m["reason"] == violations.ReasonPolicyViolation }
	for _, ns := range namespaces {
		write("matrix-policies-"+ns+".json", dumpList(t, ns, "policies.v1.kyverno.io", nil))
		write("matrix-events-"+ns+".json", dumpList(t, ns, "events", isPV))
		write("matrix-events.k8s.io-"+ns+".json", dumpList(t, ns, "events.v1.events.k8s.io", isPV))
		write("matrix-policyreports-"+ns+".json", dumpList(t, ns, "policyreports.v1alpha2.wgpolicyk8s.io", nil))
	}
	type recCase struct {
		Namespace   string            `json:"namespace"`
		Plan        string            `json:"plan,omitempty"`
		Mode        string            `json:"mode,omitempty"`
		Set         string            `json:"set"`
		Door        string            `json:"door"`
		How         string            `json:"how"`
		Object      string            `json:"object"`
		Operation   string            `json:"operation"`
		Kind        string            `json:"kind"`
		Subresource string            `json:"subresource,omitempty"`
		DryRun      bool              `json:"dryRun"`
		Blocked     []string          `json:"blocked"`
		Audited     []string          `json:"audited"`
		Messages    map[string]string `json:"messages,omitempty"`
	}
	var recs []recCase
	for _, c := range cases {
		if !slices.Contains(namespaces, c.sc.ns) {
			continue
		}
		r := recCase{Namespace: c.sc.ns, Set: "in scope", Door: c.door.id, How: c.door.how, Object: c.name,
			Operation: string(c.req.Operation), Kind: c.req.Kind.Kind, Subresource: c.req.Subresource,
			DryRun: c.sc.dry && !c.door.real, Blocked: nonNil(c.kyverno.blocked), Audited: nonNil(c.kyverno.audited), Messages: c.messages}
		if c.set.prefix != "" {
			r.Set = "other application"
		}
		if c.sc.plan != nil {
			r.Plan, r.Mode = c.sc.plan.Name, string(c.sc.plan.Spec.Mode)
		}
		recs = append(recs, r)
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	write("matrix-cases.json", append(b, '\n'))
	t.Logf("fixtures written to %s", dir)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// dumpList runs `kubectl get RESOURCE -n NS -o json`, keeps the items keep
// accepts (all when nil) and returns the list, indented.
func dumpList(t *testing.T, ns, resource string, keep func(map[string]any) bool) []byte {
	t.Helper()
	out, _, err := s.env.Kubectl(t.Context(), "get", resource, "-n", ns, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	items, _ := list["items"].([]any)
	kept := []any{}
	for _, it := range items {
		if m, _ := it.(map[string]any); keep == nil || keep(m) {
			kept = append(kept, it)
		}
	}
	list["items"] = kept
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// failResults counts the fail results of the PolicyReports of ns.
func failResults(t *testing.T, ns string) int {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(operator.PolicyReportListGVK)
	if err := s.c.List(t.Context(), list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range list.Items {
		results, _, _ := unstructured.NestedSlice(r.Object, "results")
		for _, res := range results {
			if m, _ := res.(map[string]any); m["result"] == "fail" {
				n++
			}
		}
	}
	return n
}
