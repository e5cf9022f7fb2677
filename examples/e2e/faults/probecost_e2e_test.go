//go:build e2e

package faults

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/telark/protectionplans/examples/operator/operator"
	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// countingTransport counts the operator's requests by verb, and its
// writes (dry-runs apart); its dry-runs also by namespace.
type countingTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	by   map[string]int
	// dryRunsIn counts the dry-runs by the namespace of their path.
	dryRunsIn map[string]int
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	verb := req.Method
	switch {
	case req.Method == http.MethodGet && req.URL.Query().Get("watch") == "true":
		verb = "WATCH"
	case req.URL.Query().Get("dryRun") != "":
		verb += " dry-run"
	}
	t.mu.Lock()
	t.by[verb]++
	if req.URL.Query().Get("dryRun") != "" {
		if _, rest, ok := strings.Cut(req.URL.Path, "/namespaces/"); ok {
			ns, _, _ := strings.Cut(rest, "/")
			if t.dryRunsIn == nil {
				t.dryRunsIn = map[string]int{}
			}
			t.dryRunsIn[ns]++
		}
	}
	t.mu.Unlock()
	return t.next.RoundTrip(req)
}

// dryRuns is the number of dry-runs sent in namespace ns so far.
func (t *countingTransport) dryRuns(ns string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dryRunsIn[ns]
}

func (t *countingTransport) snapshot() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]int{}
	for k, v := range t.by {
		out[k] = v
	}
	return out
}

// TestProbeCost measures what the enforcement check and the probes add to
// a pass (issue 21): three plans freezing creation in one namespace (three
// active policies), the operator in this process with its requests
// counted, run three ways on the same plans: without the check, with the
// check and no probe, with both. Over probeCostPasses steady passes each
// logs the requests per pass by verb, the writes (none but dry-runs), the
// mean pass time (protectionplans_tick_duration_seconds) and the
// PolicyViolation events Kyverno wrote.
func TestProbeCost(t *testing.T) {
	const probeCostPasses = 5
	ns := "probe-cost"
	createNamespace(t, ns)
	ids := []string{"probe-cost-a", "probe-cost-b", "probe-cost-c"}
	createFreezePlans(t, ns, ids...)
	type row struct {
		name          string
		check, probes bool
	}
	type result struct {
		row
		perPass         map[string]float64
		writes          int
		passTime        time.Duration
		eventsPerPass   float64
		dryRunsPerPass  float64
		requestsPerPass float64
	}
	var results []result
	for _, r := range []row{
		{name: "without the enforcement check"},
		{name: "with the check, no probe", check: true},
		{name: "with the check and the probes", check: true, probes: true},
	} {
		t.Run(r.name, func(t *testing.T) {
			ct := &countingTransport{by: map[string]int{}}
			op, stop := startCounted(t, t.TempDir(), ct, operator.Config{NoEnforcementCheck: !r.check, NoProbe: !r.probes})
			defer stop()
			waitFor(t, time.Minute, "three active plans with their policies ready", func() (string, bool) {
				for _, id := range ids {
					p := getPlan(t, id)
					if p.Status.Phase != plan.PhaseActive || conditionOf(p, plan.ConditionPoliciesHealthy) != "True/InPlace" {
						return id + " " + string(p.Status.Phase) + " " + conditionOf(p, plan.ConditionPoliciesHealthy), false
					}
				}
				for _, u := range planPolicies(t, ids[0]) {
					if err := env.WaitPolicyReady(t.Context(), ns, u.GetName()); err != nil {
						return err.Error(), false
					}
				}
				return "", true
			})
			// Two passes to settle (conditions that change with the check).
			from := op.Passes()
			waitFor(t, 10*tick, "two passes", func() (string, bool) { return "", op.Passes() >= from+2 })
			before, evBefore := ct.snapshot(), policyViolations(t, ns)
			sumBefore, countBefore := tickHistogram(t)
			from = op.Passes()
			waitFor(t, time.Duration(probeCostPasses+3)*tick, "the measured passes", func() (string, bool) { return "", op.Passes() >= from+probeCostPasses })
			after, evAfter := ct.snapshot(), policyViolations(t, ns)
			sumAfter, countAfter := tickHistogram(t)
			passes := float64(op.Passes() - from)
			res := result{row: r, perPass: map[string]float64{}}
			for verb, n := range after {
				d := n - before[verb]
				if d == 0 {
					continue
				}
				res.perPass[verb] = float64(d) / passes
				if verb != "WATCH" {
					res.requestsPerPass += float64(d) / passes
				}
				switch verb {
				case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
					res.writes += d
				case http.MethodPost + " dry-run":
					res.dryRunsPerPass = float64(d) / passes
				}
			}
			if n := countAfter - countBefore; n > 0 {
				res.passTime = time.Duration((sumAfter - sumBefore) / float64(n) * float64(time.Second))
			}
			res.eventsPerPass = float64(evAfter-evBefore) / passes
			results = append(results, res)
			if res.writes != 0 {
				t.Errorf("%d writes in %v steady passes: %v", res.writes, passes, res.perPass)
			}
			if r.probes && res.dryRunsPerPass != 1 {
				t.Errorf("%.2f dry-runs a pass, want 1 (three plans freezing creation in one namespace share the probe)", res.dryRunsPerPass)
			}
			if !r.probes && res.dryRunsPerPass != 0 {
				t.Errorf("%.2f dry-runs a pass without probes", res.dryRunsPerPass)
			}
		})
	}
	for _, r := range results {
		var verbs []string
		for v, n := range r.perPass {
			verbs = append(verbs, fmt.Sprintf("%s %.1f", v, n))
		}
		sort.Strings(verbs)
		t.Logf("%s: %.1f requests a pass (%s), %d writes, mean pass %s, %.1f Kyverno PolicyViolation events a pass (3 active policies)",
			r.name, r.requestsPerPass, strings.Join(verbs, ", "), r.writes, r.passTime.Round(100*time.Microsecond), r.eventsPerPass)
	}
	if len(results) == 3 {
		base := results[0]
		for _, r := range results[1:] {
			t.Logf("%s adds %.1f requests a pass (%.2f per active policy here; the enforcer reads are per pass, whatever the plans) and %s of pass time over %s",
				r.name, r.requestsPerPass-base.requestsPerPass, (r.requestsPerPass-base.requestsPerPass)/3, (r.passTime - base.passTime).Round(100*time.Microsecond), base.name)
		}
	}
}

// TestProbeEvents measures the one write the probes cause in the steady
// state (issue 21): the PolicyViolation events Kyverno writes for the
// refused dry-runs, per pass, with 1, 2 and 4 plans freezing creation in
// one namespace, on kyverno and kyverno-cel (rows; one namespace per row,
// the operator in this process). The pass sends one dry-run per namespace
// and kind whatever the plans (reconcile.ProbeLog), which the test checks;
// the events follow the policies that refuse it: Kyverno 1.19.1 writes one
// event per refusing policy and rule (pkg/webhooks/utils/event.go,
// GenerateEvents: one NewPolicyFailEvent per failed rule of each engine
// response; pkg/event/controller.go, emitEvent: a new events.k8s.io Event
// each, never a series), the same on the CEL engine
// (pkg/webhooks/resource/vpol/handler.go, admissionEvent, per policy).
// Nothing about a request can suppress them but --omitEvents, which drops
// every PolicyViolation event of the cluster (the audit feed with them),
// or resourceFilters, which exempt the probe from evaluation too: so they
// grow with the plans of a namespace, one per plan and pass, never with
// the square of them. The test fails if a probe costs more events than
// the policies that refuse it, or if the dry-runs grow with the plans.
func TestProbeEvents(t *testing.T) {
	const passes = 5
	type result struct {
		target                        render.Target
		plans                         int
		dryRunsPerPass, eventsPerPass float64
	}
	var results []result
	for _, target := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL} {
		for _, n := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%d plans", target, n), func(t *testing.T) {
				ns := fmt.Sprintf("probe-events-%s-%d", target, n)
				createNamespace(t, ns)
				var ids []string
				for i := range n {
					ids = append(ids, fmt.Sprintf("%s-%c", ns, 'a'+i))
				}
				createFreezePlans(t, ns, ids...)
				ct := &countingTransport{by: map[string]int{}}
				op, stop := startCounted(t, t.TempDir(), ct, operator.Config{Target: target})
				defer stop()
				// Verified but for the guard, which this test does not
				// install (GuardMissing, the least severe reason, is the
				// condition's only when it is the only finding).
				waitFor(t, time.Minute, "every plan verified (its policy ready, the probe refused)", func() (string, bool) {
					var got []string
					ok := true
					for _, id := range ids {
						c := conditionOf(getPlan(t, id), plan.ConditionEnforcementVerified)
						got = append(got, id+" "+c)
						ok = ok && (c == "True/"+health.ReasonEnforced || c == "False/"+health.ReasonGuardMissing)
					}
					return strings.Join(got, ", "), ok
				})
				from := op.Passes()
				waitFor(t, 10*tick, "two passes to settle", func() (string, bool) { return "", op.Passes() >= from+2 })
				// Kyverno writes its events from a queue: let the last
				// pass's land before counting.
				time.Sleep(time.Second)
				dryBefore, evBefore := ct.dryRuns(ns), policyViolations(t, ns)
				from = op.Passes()
				waitFor(t, time.Duration(passes+3)*tick, "the measured passes", func() (string, bool) { return "", op.Passes() >= from+passes })
				time.Sleep(time.Second)
				done := float64(op.Passes() - from)
				r := result{target: target, plans: n,
					dryRunsPerPass: float64(ct.dryRuns(ns)-dryBefore) / done,
					eventsPerPass:  float64(policyViolations(t, ns)-evBefore) / done}
				results = append(results, r)
				t.Logf("%s, %d plans in %s: %.2f dry-runs and %.2f PolicyViolation events a pass over %v passes",
					target, n, ns, r.dryRunsPerPass, r.eventsPerPass, done)
				// One request a pass whatever the plans (a pass or two may
				// straddle the window's edges).
				if r.dryRunsPerPass < 0.5 || r.dryRunsPerPass > 1.5 {
					t.Errorf("%.2f dry-runs a pass in %s, want 1 (the plans share the probe)", r.dryRunsPerPass, ns)
				}
				if r.eventsPerPass > float64(n)+0.5 {
					t.Errorf("%.2f events a pass for %d plans: more than one per refusing policy", r.eventsPerPass, n)
				}
				if r.eventsPerPass < 0.5 {
					t.Errorf("%.2f events a pass: the refused probes left no event, the measure proves nothing", r.eventsPerPass)
				}
			})
		}
	}
	for _, r := range results {
		t.Logf("%-11s %d plans: %.2f dry-runs a pass, %.2f events a pass (%.2f per plan)", r.target, r.plans, r.dryRunsPerPass, r.eventsPerPass, r.eventsPerPass/float64(r.plans))
	}
}

// policyViolations sums the occurrences of the PolicyViolation events in
// ns.
func policyViolations(t *testing.T, ns string) int {
	t.Helper()
	var evs corev1.EventList
	if err := c.List(t.Context(), &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs.Items {
		if e.Reason == violations.ReasonPolicyViolation {
			n += int(max(e.Count, 1))
		}
	}
	return n
}

// tickHistogram reads the sum and count of the operator's pass durations
// from controller-runtime's registry (the operator runs in this process).
func tickHistogram(t *testing.T) (float64, uint64) {
	t.Helper()
	mfs, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "protectionplans_tick_duration_seconds" {
			continue
		}
		var h *dto.Histogram
		if ms := mf.GetMetric(); len(ms) > 0 {
			h = ms[0].GetHistogram()
		}
		return h.GetSampleSum(), h.GetSampleCount()
	}
	return 0, 0
}

// startCounted starts the operator in this process on base's target
// (kyverno when it names none) with a 2 s tick, its requests through ct,
// and the enforcement settings of base; it returns the operator and its
// stop.
func startCounted(t *testing.T, dir string, ct *countingTransport, base operator.Config) (*operator.Operator, func()) {
	t.Helper()
	return startWith(t, dir, func(rt http.RoundTripper) http.RoundTripper { ct.next = rt; return ct }, base)
}

// createFreezePlans creates plans ids, each freezing creation in ns for
// good in enforce mode, deleted when t ends (the sweep of the next test's
// operator removes their policies).
func createFreezePlans(t *testing.T, ns string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		p := newPlan(id, ns, plan.ModeEnforce, window.Spec{Type: window.Permanent})
		p.Spec.Templates = []plan.TemplateRef{{Name: "create"}}
		if err := c.Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, id := range ids {
			_ = c.Delete(context.Background(), &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: id}})
		}
	})
}
