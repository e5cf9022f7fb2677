//go:build e2e

package matrix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/violations"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestNamespaceSelectors runs the namespaceSelectors scope (issue 23) on
// the real admission chain of each target, without an operator: the test
// renders and applies the policies itself, so no pass can ever have run,
// and what refuses is the policies' own namespace selector.
//
//   - a selector plan (delete and scaling, enforce) refuses the delete and
//     the kubectl scale of a Deployment in a namespace created and
//     labelled after its policies were in force;
//   - relabelling that namespace out of the selector (removing the label,
//     or changing it) is refused while the plan holds; an unrelated label
//     is admitted;
//   - the whole-cluster plan (one empty selector, delete, enforce) refuses
//     a delete in an unlabelled namespace, and leaves kube-system and the
//     release namespace alone.
//
// Requests are server dry-runs, but the namespace relabelling of the last
// door, which must succeed for real only when it is allowed.
func TestNamespaceSelectors(t *testing.T) {
	if s.run != nil {
		t.Fatal("an operator is running")
	}
	if left, err := anyManagedObject(t.Context()); err != nil || left != "" {
		t.Fatalf("managed policies left by an earlier test: %s %v", left, err)
	}
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) { selectorPhase(t, target) })
	}
}

// selectorRelease stands for the release namespace of the renders.
const selectorRelease = "sel-release"

func selectorPhase(t *testing.T, target render.Target) {
	short := map[render.Target]string{render.TargetKyverno: "kyv", render.TargetKyvernoCEL: "cel", render.TargetVAP: "vap"}[target]
	ts := specOf(target)
	team := "sel-" + short
	kubectl := func(args ...string) error {
		_, _, err := s.env.Kubectl(t.Context(), args...)
		return err
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	deployment := func(t *testing.T, ns string) {
		t.Helper()
		must(t, createNamespace(t.Context(), s.c, ns))
		if err := kubectl("-n", ns, "create", "deployment", "web", "--image=registry.k8s.io/pause:3.10"); err != nil &&
			!strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	refusedNow := func(args ...string) (bool, string) {
		err := kubectl(append(args, "--dry-run=server")...)
		return err != nil && refused(err.Error()), fmt.Sprint(err)
	}
	apply := func(t *testing.T, p *plan.ProtectionPlan) {
		res, err := render.Render(render.Input{Plan: p, Now: time.Now(), Target: target, ReleaseNamespace: selectorRelease})
		if err != nil {
			t.Fatal(err)
		}
		ts.applyPolicies(t, res.Objects(), "e2e-selectors")
		t.Logf("%s: %d cluster-wide policies (%d objects) in force", target, len(res.Policies), len(res.Objects()))
	}

	t.Run("selector", func(t *testing.T) {
		pre, post, free := "sel-"+short+"-pre", "sel-"+short+"-post", "sel-"+short+"-free"
		deployment(t, pre)
		deployment(t, free)
		must(t, kubectl("label", "ns", pre, "e2e-team="+team, "--overwrite"))
		p := latencyPlan("sel-"+short, "", "delete", "scaling")
		p.Spec.Scope = plan.Scope{NamespaceSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"e2e-team": team}},
			{MatchLabels: map[string]string{"e2e-other": team}},
		}}
		apply(t, p)
		eventually(t, time.Minute, "the selector policies refusing in "+pre, func() (string, bool) {
			ok, why := refusedNow("-n", pre, "delete", "deployment", "web")
			return why, ok
		})
		// A namespace created and labelled now, with no pass to render
		// anything for it.
		deployment(t, post)
		if ok, why := refusedNow("-n", post, "delete", "deployment", "web"); ok {
			t.Fatalf("a delete in %s, not labelled yet, was refused: %s", post, why)
		}
		must(t, kubectl("label", "ns", post, "e2e-other="+team))
		labelled := time.Now()
		eventually(t, 30*time.Second, "a delete in "+post+" refused after it was labelled", func() (string, bool) {
			ok, why := refusedNow("-n", post, "delete", "deployment", "web")
			return why, ok
		})
		t.Logf("%s: a delete in %s refused %s after the namespace was labelled (second selector)", target, post, time.Since(labelled).Round(time.Millisecond))
		// The scaling policy is another policy (on vap, another binding)
		// than the delete's: it may see the new label a moment later (CI
		// once saw it admit the scale right after the delete was refused).
		scaleFrom := time.Now()
		eventually(t, 10*time.Second, "kubectl scale in "+post+" refused", func() (string, bool) {
			ok, why := refusedNow("-n", post, "scale", "deployment", "web", "--replicas=3")
			return why, ok
		})
		t.Logf("%s: kubectl scale in %s refused %s after the delete was", target, post, time.Since(scaleFrom).Round(time.Millisecond))
		// Relabelling out, while the plan holds (the namespace-labels
		// policy: its webhook may take a moment longer).
		eventually(t, 30*time.Second, "removing the label of "+post+" refused", func() (string, bool) {
			ok, why := refusedNow("label", "ns", post, "e2e-other-")
			return why, ok
		})
		if ok, why := refusedNow("label", "ns", post, "e2e-other=someone-else", "--overwrite"); !ok {
			t.Errorf("changing the label of %s out of the selector was admitted: %s", post, why)
		}
		must(t, kubectl("label", "ns", post, "unrelated=yes"))
		if ok, why := refusedNow("-n", free, "delete", "deployment", "web"); ok {
			t.Errorf("a namespace no selector selects is frozen: %s", why)
		}
	})

	t.Run("whole cluster", func(t *testing.T) {
		bare := "sel-" + short + "-bare"
		for _, ns := range []string{bare, selectorRelease, "kube-system"} {
			deployment(t, ns)
		}
		p := latencyPlan("sel-"+short+"-all", "", "delete")
		p.Spec.Scope = plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{}}}
		apply(t, p)
		eventually(t, time.Minute, "the whole-cluster policies refusing in "+bare, func() (string, bool) {
			ok, why := refusedNow("-n", bare, "delete", "deployment", "web")
			return why, ok
		})
		for _, ns := range []string{selectorRelease, "kube-system"} {
			if ok, why := refusedNow("-n", ns, "delete", "deployment", "web"); ok || why != "<nil>" {
				t.Errorf("the whole-cluster plan touched %s: %s", ns, why)
			}
		}
	})
}

// TestSelectorLatency measures, with TestAdmissionLatency's client and
// interleaved rounds (latencyClient.measure), what a namespaceSelectors
// plan costs at admission against the same plan listing its namespace,
// per target: both every-template plans in force at once, one on a
// namespace it lists, the other on a namespace its selector selects.
//
//	base-patch, base-scale  kube-system (no webhook, no binding)
//	list-patch, list-scale  the plan listing its namespace
//	sel-patch, sel-scale    the plan selecting its namespace by label
//	out-patch               a namespace neither covers
//
// It logs each cell's min, median and max, and the ratio of the selector
// plan's median overhead (over the baseline) to the listing plan's. 200
// requests per cell; PROTECTIONPLANS_E2E_LATENCY=1 runs 1,200.
func TestSelectorLatency(t *testing.T) {
	n, lt := latencySetup(t)
	var lines []string
	for _, target := range render.Targets() {
		t.Run(string(target), func(t *testing.T) {
			lines = append(lines, selectorLatencyPhase(t, lt, target, n)...)
		})
	}
	t.Logf("selector plan against the same plan listing its namespace, %d requests per cell:\n%s", n, strings.Join(lines, "\n"))
}

func selectorLatencyPhase(t *testing.T, lt *latencyClient, target render.Target, n int) []string {
	ctx := t.Context()
	short := map[render.Target]string{render.TargetKyverno: "kyv", render.TargetKyvernoCEL: "cel", render.TargetVAP: "vap"}[target]
	nsOf := func(what string) string { return "lsel-" + short + "-" + what }
	for _, what := range []string{"list", "sel", "out"} {
		if err := createNamespace(ctx, s.c, nsOf(what)); err != nil {
			t.Fatal(err)
		}
		if err := createDeployment(ctx, nsOf(what), "web"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.env.Kubectl(ctx, "label", "ns", nsOf("sel"), "e2e-latency="+short, "--overwrite"); err != nil {
		t.Fatal(err)
	}
	list := latencyPlan(nsOf("list"), nsOf("list"), catalogNames()...)
	sel := latencyPlan(nsOf("sel"), "", catalogNames()...)
	sel.Spec.Scope = plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"e2e-latency": short}}}}
	var objs []*unstructured.Unstructured
	for _, p := range []*plan.ProtectionPlan{list, sel} {
		res, err := render.Render(render.Input{Plan: p, Now: time.Now(), Target: target, ReleaseNamespace: selectorRelease})
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, res.Objects()...)
	}
	specOf(target).applyPolicies(t, objs, "e2e-selector-latency")
	eventually(t, 2*time.Minute, "both plans refusing", func() (string, bool) {
		for _, what := range []string{"list", "sel"} {
			if code, body := lt.scale(ctx, nsOf(what), "web", 3); code < 400 {
				return fmt.Sprintf("scale in %s admitted (%d %s)", nsOf(what), code, body), false
			}
		}
		return "", true
	})
	time.Sleep(3 * time.Second) // Kyverno's other webhook configuration, if any
	r := lt.measure(t, string(target)+"-selectors", n, []cell{
		{name: "base-patch", ns: "kube-system", deploy: "lat-web"},
		{name: "list-patch", ns: nsOf("list"), deploy: "web"},
		{name: "sel-patch", ns: nsOf("sel"), deploy: "web"},
		{name: "out-patch", ns: nsOf("out"), deploy: "web"},
		{name: "base-scale", ns: "kube-system", deploy: "lat-web", scale: true},
		{name: "list-scale", ns: nsOf("list"), deploy: "web", scale: true, refused: true},
		{name: "sel-scale", ns: nsOf("sel"), deploy: "web", scale: true, refused: true},
	})
	var out []string
	for _, c := range r.cells {
		sorted := sortedCopy(r.samples[c.name])
		out = append(out, fmt.Sprintf("%s %-10s min %.2f median %.2f max %.2f ms", target, c.name,
			ms(sorted[0]), ms(percentile(sorted, 50)), ms(sorted[len(sorted)-1])))
	}
	for _, kind := range []string{"patch", "scale"} {
		l, _, _ := medianDiffCI(r.samples["list-"+kind], r.samples["base-"+kind])
		sd, lo, hi := medianDiffCI(r.samples["sel-"+kind], r.samples["base-"+kind])
		vs, vlo, vhi := medianDiffCI(r.samples["sel-"+kind], r.samples["list-"+kind])
		out = append(out, fmt.Sprintf("%s %s: overhead over the baseline, selector %+.2f ms [%+.2f, %+.2f] vs listing %+.2f ms: ratio %s; selector - listing %+.2f ms [%+.2f, %+.2f]",
			target, kind, sd, lo, hi, l, overheadRatio(sd, l), vs, vlo, vhi))
	}
	for _, line := range out {
		t.Log(line)
	}
	return out
}

// overheadRatio is a selector plan's overhead over the listing plan's.
func overheadRatio(sel, list float64) string {
	if list <= 0 {
		return "n/a (listing overhead <= 0)"
	}
	return fmt.Sprintf("%.2f", sel/list)
}

// testSelectorPlanOperator runs a namespaceSelectors plan through the
// operator of the target under test (a row of runTarget): the plan becomes
// active with its cluster-wide policies, status.coverage lists the
// selected namespace, a delete there is refused, and, for the Kyverno
// targets, the refusal reaches the plan's ledger (the checkpoint reads
// the events of cluster-wide policies in "default" and in the covered
// namespaces). A namespace labelled afterwards is refused at once and
// joins status.coverage at a later pass.
func testSelectorPlanOperator(t *testing.T) {
	ctx := t.Context()
	id := tgt.id("sel-op")
	first, second := tgt.id("sel-op-a"), tgt.id("sel-op-b")
	for _, ns := range []string{first, second} {
		if err := createNamespace(ctx, s.c, ns); err != nil {
			t.Fatal(err)
		}
		if err := createDeployment(ctx, ns, "web"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.env.Kubectl(ctx, "label", "ns", first, "e2e-op="+id, "--overwrite"); err != nil {
		t.Fatal(err)
	}
	p := matrixPlan(id, "Selector plan", plan.ModeEnforce,
		plan.Scope{NamespaceSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"e2e-op": id}}}}, plan.Exclusions{}, "delete")
	if err := s.c.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	deleteRefused := func(ns string) (string, bool) {
		_, _, err := s.env.Kubectl(ctx, "-n", ns, "delete", "deployment", "web", "--dry-run=server")
		return fmt.Sprint(err), err != nil && refused(err.Error())
	}
	coverage := func() map[string]bool {
		var got plan.ProtectionPlan
		out := map[string]bool{}
		if err := s.c.Get(ctx, client.ObjectKey{Name: id}, &got); err == nil {
			for _, c := range got.Status.Coverage {
				out[c.Namespace] = true
			}
		}
		return out
	}
	eventually(t, time.Minute, "the selector plan refusing a delete in "+first, func() (string, bool) {
		why, ok := deleteRefused(first)
		var got plan.ProtectionPlan
		if err := s.c.Get(ctx, client.ObjectKey{Name: id}, &got); err == nil {
			why += fmt.Sprintf(" (plan %s: %+v)", got.Status.Phase, got.Status.Conditions)
		}
		return why, ok
	})
	eventually(t, 10*tick, "status.coverage listing "+first, func() (string, bool) {
		c := coverage()
		return fmt.Sprint(c), c[first] && !c[second]
	})
	if why, ok := deleteRefused(second); ok {
		t.Fatalf("a delete in %s, not labelled, was refused: %s", second, why)
	}
	if _, _, err := s.env.Kubectl(ctx, "label", "ns", second, "e2e-op="+id); err != nil {
		t.Fatal(err)
	}
	labelled := time.Now()
	eventually(t, 30*time.Second, "a delete in "+second+" refused after it was labelled", func() (string, bool) { return deleteRefused(second) })
	t.Logf("%s: a delete in %s refused %s after it was labelled", tgt.target, second, time.Since(labelled).Round(time.Millisecond))
	eventually(t, 10*tick, "status.coverage listing "+second, func() (string, bool) {
		c := coverage()
		return fmt.Sprint(c), c[second]
	})
	if tgt.vap() {
		return // no event, no report: nothing reaches a ledger
	}
	eventually(t, checkpointEvery+10*tick+20*time.Second, "the ledger of "+id+" holding the refused deletes", func() (string, bool) {
		data, err := os.ReadFile(filepath.Join(s.run.reportsDir, id, store.LedgerFile))
		if err != nil {
			return err.Error(), false
		}
		ledger, err := violations.DecodeLedger(data)
		if err != nil {
			return err.Error(), false
		}
		got := map[string]bool{}
		for _, v := range ledger.Violations {
			if v.Template == "delete" && v.Blocked {
				got[v.Resource.Namespace] = true
			}
		}
		return fmt.Sprintf("%d violations: %v", len(ledger.Violations), got), got[first] && got[second]
	})
}
