//go:build e2e

package harness_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/examples/e2e/harness"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// TestRecordWarningFixtures records what Kyverno really emits for a
// plan's advance warnings (issue 20), for the violations package: the
// warning kubectl prints for an admitted write in scope, and the
// PolicyViolation events and reports Kyverno makes of the audited
// failure a warning is, for the warning policy of each Kyverno target
// (rendered by the library: a plan active for three hours, clocked, with
// the scaling template in enforce mode, next to its own policy).
//
// It writes only when PROTECTIONPLANS_RECORD_FIXTURES=1, into
// PROTECTIONPLANS_FIXTURES_DIR or
// ../../../violations/testdata/kyverno-1.19.1/warnings.
func TestRecordWarningFixtures(t *testing.T) {
	out := fixturesDir(t, filepath.Join("..", "..", "..", "violations", "testdata", "kyverno-1.19.1", "warnings"))
	env := harness.MustStart(t)
	ctx := t.Context()
	log := &strings.Builder{}
	k := kubectl{t: t, env: env, log: log}
	r := recorder{t: t, k: k, dir: out}
	now := time.Now().UTC().Truncate(time.Second)
	fmt.Fprintf(log, "# Recorded %s by TestRecordWarningFixtures (examples/e2e/harness/record_warnings_e2e_test.go).\n\n", now.Format(time.RFC3339))

	cases := []struct {
		ns     string
		target render.Target
		name   string
	}{
		{"fx-warn-v1", render.TargetKyverno, "v1"},
		{"fx-warn-nvpol", render.TargetKyvernoCEL, "nvpol"},
	}
	for _, c := range cases {
		fmt.Fprintf(log, "## case %s (namespace %s, target %s)\n\n", c.name, c.ns, c.target)
		k.namespaceWithDeployment(c.ns)
		p := &plan.ProtectionPlan{
			ObjectMeta: metav1.ObjectMeta{Name: "warned"},
			Spec: plan.Spec{Name: "Nightly image freeze", Scope: plan.Scope{Namespaces: []string{c.ns}},
				Templates: []plan.TemplateRef{{Name: "scaling"}}, Mode: plan.ModeEnforce,
				Window: window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin",
					StartAt: &metav1.Time{Time: now.Add(-time.Minute)}, EndAt: &metav1.Time{Time: now.Add(3 * time.Hour)}}},
			Status: plan.Status{Phase: plan.PhaseActive},
		}
		res, err := render.Render(render.Input{Plan: p, Now: now, Target: c.target, Clock: true, Warnings: true})
		if err != nil {
			t.Fatal(err)
		}
		y, err := res.YAML()
		if err != nil {
			t.Fatal(err)
		}
		r.write("policies-"+c.name+".yaml", y)
		if _, stderr, err := env.KubectlInput(ctx, string(y), "apply", "-f", "-"); err != nil {
			t.Fatalf("apply: %v: %s", err, stderr)
		}
		for _, pol := range res.Policies {
			if err := env.WaitPolicyReady(ctx, pol.Namespace, pol.Name); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(3 * time.Second) // the webhook configuration follows asynchronously
		args := []string{"-n", c.ns, "label", "deployment/web", "tier=frontend"}
		_, stderr, err := k.run(args...)
		if err != nil {
			t.Fatalf("%s: the label change was refused: %s", c.name, stderr)
		}
		if !strings.Contains(stderr, "Warning:") || !strings.Contains(stderr, "freeze Nightly image freeze is in force for") {
			t.Fatalf("%s: kubectl printed no Active warning: %q", c.name, stderr)
		}
		r.write("kubectl-"+c.name+".txt", []byte("$ kubectl "+strings.Join(quoteArgs(args), " ")+"\n"+stderr))
		r.dumpList("ephemeralreports-"+c.name+".json", c.ns, "ephemeralreports.reports.kyverno.io", nil)
	}
	for _, c := range cases {
		r.waitStableEvents(c.ns)
		isPV := func(item map[string]any) bool { return item["reason"] == "PolicyViolation" }
		r.dumpList("events-"+c.name+".json", c.ns, "events", isPV)
		r.dumpList("events.k8s.io-"+c.name+".json", c.ns, "events.v1.events.k8s.io", isPV)
	}
	time.Sleep(30 * time.Second) // the reports controller aggregates 10-40 s later
	for _, c := range cases {
		r.dumpList("policyreports-"+c.name+".json", c.ns, "policyreports.wgpolicyk8s.io", nil)
	}
	r.write("commands.log", []byte(log.String()))
	t.Logf("fixtures written to %s", out)
}
