//go:build e2e

package harness_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/examples/e2e/harness"
)

// TestRecordFixtures records what Kyverno really emits, for the unit tests
// of the violations package: PolicyViolation events (core/v1 and
// events.k8s.io/v1 views), EphemeralReports and PolicyReports, for
// kyverno.io/v1 Policies and policies.kyverno.io/v1
// NamespacedValidatingPolicies, in Audit and Enforce, for real requests and
// server dry-runs. Each case has its own namespace so that its objects can
// be dumped alone.
//
// It writes only when PROTECTIONPLANS_RECORD_FIXTURES=1, into
// PROTECTIONPLANS_FIXTURES_DIR or ../../../violations/testdata/kyverno-1.19.1.
func TestRecordFixtures(t *testing.T) {
	out := fixturesDir(t, filepath.Join("..", "..", "..", "violations", "testdata", "kyverno-1.19.1"))
	env := harness.MustStart(t)
	ctx := t.Context()
	log := &strings.Builder{}
	k := kubectl{t: t, env: env, log: log}
	r := recorder{t: t, k: k, dir: out}

	fmt.Fprintf(log, "# Recorded %s by TestRecordFixtures (examples/e2e/harness/record_e2e_test.go).\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(log, "# kubectl runs with an admin kubeconfig (user e2e-admin, group system:masters).\n\n")
	r.write("versions.json", []byte(k.must("version", "-o", "json")))

	for _, f := range []string{"deployment.yaml", "policy-enforce-v1.yaml", "policy-audit-v1.yaml", "nvpol-audit.yaml", "nvpol-enforce.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		r.write(f, data)
	}

	type step struct {
		args    []string
		refused bool
	}
	scale := func(dry bool) []string {
		a := []string{"scale", "deployment/web", "--replicas=3"}
		if dry {
			a = append(a, "--dry-run=server")
		}
		return a
	}
	patch := func(dry bool) []string {
		a := []string{"patch", "deployment/web", "--type=merge", "-p", `{"spec":{"replicas":4}}`}
		if dry {
			a = append(a, "--dry-run=server")
		}
		return a
	}
	cases := []struct {
		ns, policyFile, policyName, name string
		steps                            []step
		reports                          bool // wait for a PolicyReport with a fail result
		audit                            bool // dump EphemeralReports right after the requests
	}{
		{"fx-enforce-v1", "policy-enforce-v1.yaml", "freeze-replicas", "enforce-v1",
			[]step{{scale(false), true}, {patch(false), true}, {[]string{"label", "deployment/web", "tier=frontend"}, false}}, false, false},
		{"fx-dryrun-v1", "policy-enforce-v1.yaml", "freeze-replicas", "dryrun-v1",
			[]step{{scale(true), true}, {patch(true), true}}, false, false},
		{"fx-audit-v1", "policy-audit-v1.yaml", "freeze-replicas-audit", "audit-v1",
			[]step{{scale(false), false}, {patch(false), false}}, true, true},
		{"fx-audit-dryrun-v1", "policy-audit-v1.yaml", "freeze-replicas-audit", "audit-dryrun-v1",
			[]step{{scale(true), false}, {patch(true), false}}, false, true},
		{"fx-audit-nvpol", "nvpol-audit.yaml", "freeze-replicas-cel", "audit-nvpol",
			[]step{{scale(false), false}, {patch(false), false}}, true, true},
		{"fx-audit-dryrun-nvpol", "nvpol-audit.yaml", "freeze-replicas-cel", "audit-dryrun-nvpol",
			[]step{{scale(true), false}, {patch(true), false}}, false, true},
		{"fx-enforce-nvpol", "nvpol-enforce.yaml", "freeze-replicas-cel-deny", "enforce-nvpol",
			[]step{{scale(false), true}, {patch(false), true}}, false, false},
		{"fx-dryrun-nvpol", "nvpol-enforce.yaml", "freeze-replicas-cel-deny", "dryrun-nvpol",
			[]step{{scale(true), true}, {patch(true), true}}, false, false},
	}

	for _, c := range cases {
		fmt.Fprintf(log, "## case %s (namespace %s, policy %s)\n\n", c.name, c.ns, c.policyFile)
		k.namespaceWithDeployment(c.ns)
		k.must("apply", "-n", c.ns, "-f", filepath.Join("testdata", c.policyFile))
		if err := env.WaitPolicyReady(ctx, c.ns, c.policyName); err != nil {
			t.Fatal(err)
		}
		var refusals []string
		for _, s := range c.steps {
			args := append([]string{"-n", c.ns}, s.args...)
			_, stderr, err := k.run(args...)
			if s.refused != (err != nil) {
				t.Fatalf("%s: kubectl %s: refused=%v, want %v: %s", c.name, strings.Join(s.args, " "), err != nil, s.refused, stderr)
			}
			if err != nil {
				refusals = append(refusals, "$ kubectl "+strings.Join(quoteArgs(args), " ")+"\n"+stderr)
			}
		}
		if len(refusals) > 0 {
			r.write("refusals-"+c.name+".txt", []byte(strings.Join(refusals, "\n")))
		}
		if c.audit {
			// EphemeralReports live only until the reports controller
			// aggregates them: dump them at once.
			r.dumpList("ephemeralreports-"+c.name+".json", c.ns, "ephemeralreports.reports.kyverno.io", nil)
		}
	}

	// Events are emitted asynchronously: let them all arrive.
	for _, c := range cases {
		r.waitStableEvents(c.ns)
		isPV := func(item map[string]any) bool { return item["reason"] == "PolicyViolation" }
		r.dumpList("events-"+c.name+".json", c.ns, "events", isPV)
		r.dumpList("events.k8s.io-"+c.name+".json", c.ns, "events.v1.events.k8s.io", isPV)
	}

	// PolicyReports: 10-40 s after the audited requests.
	for _, c := range cases {
		if !c.reports {
			continue
		}
		eventually(t, 2*time.Minute, "a PolicyReport with a fail result in "+c.ns, func() (struct{}, bool) {
			return struct{}{}, failResults(t, env, c.ns) > 0
		})
	}
	// Give the aggregation a moment to include every result, then dump
	// the reports of every case (dry-run and enforce cases are expected to
	// have none).
	time.Sleep(10 * time.Second)
	for _, c := range cases {
		r.dumpList("policyreports-"+c.name+".json", c.ns, "policyreports.wgpolicyk8s.io", nil)
	}
	r.dumpList("ephemeralreports-all-after.json", "", "ephemeralreports.reports.kyverno.io", nil)
	r.write("commands.log", []byte(log.String()))
	t.Logf("fixtures written to %s", out)
}

type recorder struct {
	t   *testing.T
	k   kubectl
	dir string
}

func (r recorder) write(name string, data []byte) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, name), data, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// dumpList runs `kubectl get RESOURCE -n NS -o json` (all namespaces when ns
// is empty), keeps the items keep accepts (all when nil) and writes the list.
func (r recorder) dumpList(name, ns, resource string, keep func(map[string]any) bool) {
	r.t.Helper()
	args := []string{"get", resource, "-o", "json"}
	if ns == "" {
		args = append(args, "-A")
	} else {
		args = append(args, "-n", ns)
	}
	stdout := r.k.must(args...)
	var list map[string]any
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		r.t.Fatalf("%s: %v", name, err)
	}
	items, _ := list["items"].([]any)
	kept := []any{}
	for _, it := range items {
		m, _ := it.(map[string]any)
		if keep == nil || keep(m) {
			kept = append(kept, m)
		}
	}
	list["items"] = kept
	b, err := prettyJSON(list)
	if err != nil {
		r.t.Fatal(err)
	}
	r.write(name, b)
	r.t.Logf("%s: %d items", name, len(kept))
}

// waitStableEvents waits until the PolicyViolation events of ns stop
// changing for 5 s (at most 45 s).
func (r recorder) waitStableEvents(ns string) {
	r.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	var last any
	stableSince := time.Now()
	for time.Now().Before(deadline) {
		evs := policyViolationEvents(r.t, r.k.env, ns)
		type key struct {
			name  string
			count int32
		}
		var cur []key
		for _, ev := range evs {
			cur = append(cur, key{ev.Name, ev.Count})
		}
		if !reflect.DeepEqual(cur, last) {
			last = cur
			stableSince = time.Now()
		} else if len(cur) > 0 && time.Since(stableSince) >= 5*time.Second {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	r.t.Logf("events of %s still changing (or none) after 45 s", ns)
}

// prettyJSON re-indents JSON for stable, reviewable fixture files.
func prettyJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// fixturesDir skips a recording test unless PROTECTIONPLANS_RECORD_FIXTURES=1,
// and returns the directory it writes into, made: PROTECTIONPLANS_FIXTURES_DIR,
// or def.
func fixturesDir(t *testing.T, def string) string {
	t.Helper()
	if os.Getenv("PROTECTIONPLANS_RECORD_FIXTURES") != "1" {
		t.Skip("set PROTECTIONPLANS_RECORD_FIXTURES=1 to record fixtures")
	}
	out := os.Getenv("PROTECTIONPLANS_FIXTURES_DIR")
	if out == "" {
		out = def
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out
}
