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

	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
)

// matrixTable writes the matrix as Markdown: one table per scope, a row per
// door and object set: what the catalog intends, what Explain says, what
// the admission chain did (Kyverno, or under vap the API server).
func matrixTable(cases []*mcase) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Matrix (target %s): case x intended x Explain x live\n\n", tgt.target)
	b.WriteString("Templates named in a cell refused the request (blocked) or recorded it (audited).\n")
	var cur string
	for _, c := range cases {
		if c.sc.ns != cur {
			cur = c.sc.ns
			fmt.Fprintf(&b, "\n## %s: %s\n\n", c.sc.ns, describeScope(c.sc))
			b.WriteString("| set | door | how | request | dry-run | intended | Explain | live | agree |\n")
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
			c.sc.dry && !c.door.real, c.intended, c.explained, c.live, ok)
	}
	return b.String()
}

// summary logs the matrix per scope: cases, refused, audited, admitted,
// disagreements.
func summary(t *testing.T, cases []*mcase, bad int) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "matrix summary, target %s:\n", tgt.target)
	type row struct{ cases, blocked, audited, admitted, bad int }
	rows := map[string]*row{}
	var order []string
	for _, c := range cases {
		r := rows[c.sc.ns]
		if r == nil {
			r = &row{}
			rows[c.sc.ns] = r
			order = append(order, c.sc.ns)
		}
		r.cases++
		switch {
		case len(c.live.blocked) > 0:
			r.blocked++
		case len(c.live.audited) > 0:
			r.audited++
		default:
			r.admitted++
		}
		if !c.ok() {
			r.bad++
		}
	}
	for _, ns := range order {
		r := rows[ns]
		fmt.Fprintf(&b, "  %-22s %3d cases: %3d refused, %3d audited, %3d admitted; %d disagreements\n", ns, r.cases, r.blocked, r.audited, r.admitted, r.bad)
	}
	fmt.Fprintf(&b, "  %-22s %3d cases, %d disagreements", "all", len(cases), bad)
	t.Log(b.String())
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
	fmt.Fprintf(&b, "doors caught live (%s), per template and scope:\n", tgt.target)
	for _, tmpl := range catalogNames() {
		fmt.Fprintf(&b, "  %-16s", tmpl)
		total := 0
		for _, sc := range matrixScopes() {
			n := 0
			for _, c := range cases {
				if c.sc.ns == sc.ns && (slices.Contains(c.live.blocked, tmpl) || slices.Contains(c.live.audited, tmpl)) {
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
// events, with Explain's message. Under vap there is nothing to find: the
// API server writes no event and no report of its decisions, and the
// test checks that the ledgers and the feed are indeed empty.
func checkLedgers(t *testing.T, cases []*mcase, scopes []scope) {
	t.Helper()
	if tgt.vap() {
		checkEmptyLedgers(t, cases, scopes)
		return
	}
	// The live feed: every plan's events, read once they settled.
	var planNS []string
	for _, sc := range scopes {
		if sc.plan != nil {
			planNS = append(planNS, sc.ns)
		}
	}
	live := settledViolations(t, planNS, policyIndex(t))
	for _, sc := range scopes {
		if sc.plan == nil {
			continue
		}
		type pair struct{ tmpl, resource string }
		type explained struct{ rule, message string }
		want := map[pair]explained{}
		for _, c := range cases {
			if c.sc.ns != sc.ns {
				continue
			}
			for _, tmpl := range append(slices.Clone(c.live.blocked), c.live.audited...) {
				want[pair{tmpl, sc.ns + "/" + c.name}] = explained{c.rules[tmpl], c.messages[tmpl]}
			}
		}
		id := sc.plan.Name
		audit := sc.plan.Spec.Mode == plan.ModeAudit
		var ledger violations.Ledger
		began := time.Now()
		eventually(t, checkpointEvery+10*tick+20*time.Second, "the ledger of "+id+" holding every decision", func() (string, bool) {
			data, err := os.ReadFile(filepath.Join(s.run.reportsDir, id, store.LedgerFile))
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
		// Every message names the plan; the one of the rule Explain names
		// is Explain's. (Under kyverno a template's policy can fail on
		// two rules at once, e.g. all-writes and its scope guard on a move
		// out of an application, and Kyverno records both; Explain names
		// the first. The CEL engine reports the first failing validation
		// of a policy, without a rule name.)
		prefix := "would be blocked by protection plan " + sc.plan.Spec.Name + ": "
		exact := map[pair]bool{}
		for _, v := range ledger.Violations {
			if v.Result != violations.ResultFail {
				t.Errorf("ledger of %s holds a %s result, not a violation: %+v", id, v.Result, v)
			}
			if v.Plan != id || v.Blocked == audit {
				t.Errorf("ledger of %s: %+v (plan %s, audit %v)", id, v, id, audit)
			}
			if v.Source != violations.SourceEvent {
				continue
			}
			if audit && !strings.HasPrefix(v.Message, prefix) {
				t.Errorf("ledger of %s: message %q does not read %q", id, v.Message, prefix+"...")
			}
			if !audit && !strings.Contains(v.Message, " by protection plan "+sc.plan.Spec.Name+" ") {
				t.Errorf("ledger of %s: message %q does not name the plan", id, v.Message)
			}
			k := pair{v.Template, v.Resource.Namespace + "/" + v.Resource.Name}
			if e, ok := want[k]; ok && (v.Rule == "" || v.Rule == e.rule) {
				if v.Message != e.message {
					t.Errorf("ledger of %s: rule %q: message %q, Explain's %q", id, v.Rule, v.Message, e.message)
				}
				exact[k] = true
			}
		}
		for k, e := range want {
			if !exact[k] {
				t.Errorf("ledger of %s: no event-sourced violation of %s on %s with Explain's rule %q and message %q", id, k.tmpl, k.resource, e.rule, e.message)
			}
		}
		page, err := violations.Feed(ledger.Violations, violations.Query{Plan: id, Namespaces: []string{sc.ns}, Limit: violations.MaxLimit})
		if err != nil {
			t.Error(err)
		}
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

// checkEmptyLedgers checks, under vap, that the decisions the API server
// made (refusals, audit warnings) reached no event, no report and no
// ledger: what the violations feed can show of a vap plan is nothing.
func checkEmptyLedgers(t *testing.T, cases []*mcase, scopes []scope) {
	t.Helper()
	decisions := 0
	for _, c := range cases {
		decisions += len(c.live.blocked) + len(c.live.audited)
	}
	time.Sleep(checkpointEvery + tick) // one checkpoint at least
	var namespaces []string
	for _, sc := range scopes {
		namespaces = append(namespaces, sc.ns)
	}
	evs := policyViolationEvents(t, namespaces)
	total := 0
	for _, sc := range scopes {
		if sc.plan == nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.run.reportsDir, sc.plan.Name, store.LedgerFile))
		if err == nil {
			l, err := violations.DecodeLedger(data)
			if err != nil {
				t.Error(err)
			}
			total += len(l.Violations)
		} else if !os.IsNotExist(err) {
			t.Error(err)
		}
		reps := &unstructured.UnstructuredList{}
		reps.SetGroupVersionKind(kube.PolicyReportListGVK)
		if err := s.c.List(t.Context(), reps, client.InNamespace(sc.ns)); err != nil {
			t.Error(err)
		}
		if n := len(reps.Items); n > 0 {
			t.Errorf("%d PolicyReports in %s under vap", n, sc.ns)
		}
	}
	if len(evs) > 0 || total > 0 {
		t.Errorf("under vap: %d PolicyViolation events, %d ledger violations; want none", len(evs), total)
	}
	t.Logf("vap: the API server made %d decisions (refusals and audit warnings); PolicyViolation events %d, PolicyReports 0, ledger violations %d: the violations feed shows nothing of a vap plan",
		decisions, len(evs), total)
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

// recordTarget says whether the matrix records fixtures for target:
// PROTECTIONPLANS_RECORD_FIXTURES=1 (or kyverno-cel) records the
// kyverno-cel run (files matrix-cel-cases.json and matrix-*-cel-mx-*.json),
// =kyverno the kyverno run (matrix-cases.json, matrix-*-mx-*.json),
// =all both. vap leaves nothing to record (no event, no report).
func recordTarget(target render.Target) bool {
	switch v := os.Getenv("PROTECTIONPLANS_RECORD_FIXTURES"); v {
	case "1", string(render.TargetKyvernoCEL):
		return target == render.TargetKyvernoCEL
	case "all":
		return target == render.TargetKyverno || target == render.TargetKyvernoCEL
	default:
		return v == string(target) && target != render.TargetVAP
	}
}

// recordFixtures writes what Kyverno emitted for the matrix's requests on
// the operator's policies of the target under test into
// violations/testdata/kyverno-1.19.1, as files named matrix-*: the
// policies, the PolicyViolation events (both views), the PolicyReports of
// three namespaces (matrix-<what>-<namespace>.json: the namespace names
// the target, cel-mx-... for kyverno-cel), and the cases (request,
// Explain's and Kyverno's answers; matrix-cases.json for kyverno,
// matrix-cel-cases.json for kyverno-cel). It never writes a file of
// another recording.
func recordFixtures(t *testing.T, cases []*mcase) {
	t.Helper()
	dir := fixturesDir()
	namespaces := []string{tgt.id("mx-ns-audit"), tgt.id("mx-app-audit"), tgt.id("mx-ns-enforce")}
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
	policies := map[render.Target]string{
		render.TargetKyverno:    "policies.v1.kyverno.io",
		render.TargetKyvernoCEL: "namespacedvalidatingpolicies.v1.policies.kyverno.io",
	}[tgt.target]
	isPV := func(m map[string]any) bool { return m["reason"] == violations.ReasonPolicyViolation }
	for _, ns := range namespaces {
		write("matrix-policies-"+ns+".json", dumpList(t, ns, policies, nil))
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
		Refusal     string            `json:"refusal,omitempty"`
	}
	var recs []recCase
	for _, c := range cases {
		if !slices.Contains(namespaces, c.sc.ns) {
			continue
		}
		r := recCase{Namespace: c.sc.ns, Set: "in scope", Door: c.door.id, How: c.door.how, Object: c.name,
			Operation: string(c.req.Operation), Kind: c.req.Kind.Kind, Subresource: c.req.Subresource,
			DryRun: c.sc.dry && !c.door.real, Blocked: nonNil(c.live.blocked), Audited: nonNil(c.live.audited), Messages: c.messages}
		if c.set.prefix != "" {
			r.Set = "other application"
		}
		if c.sc.plan != nil {
			r.Plan, r.Mode = c.sc.plan.Name, string(c.sc.plan.Spec.Mode)
		}
		if tgt.target != render.TargetKyverno && c.refusal != "" {
			r.Refusal = refusalText(c.refusal)
		}
		recs = append(recs, r)
	}
	b, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	name := "matrix-cases.json"
	if tgt.target == render.TargetKyvernoCEL {
		name = "matrix-cel-cases.json"
	}
	write(name, append(b, '\n'))
	t.Logf("fixtures written to %s", dir)
}

// refusalText is the API server's answer in an error of kubectl or of the
// client: what follows "Error from server (...): ", without the command.
func refusalText(err string) string {
	if i := strings.Index(err, "Error from server"); i >= 0 {
		err = err[i:]
	} else if i := strings.Index(err, "admission webhook"); i >= 0 {
		err = err[i:]
	}
	return strings.TrimSpace(err)
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
	n, err := s.env.FailResults(t.Context(), ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
