package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// nightly is a recurring window of two hours from 01:30 every night in a
// zone: on the night DST ends the wall clock passes 01:30 to 03:00 twice.
func nightly(zone string) window.Spec {
	return window.Spec{Type: window.Recurring, TimeZone: zone,
		Schedules: []window.Schedule{{Cron: "30 1 * * *", Duration: "2h"}}}
}

// clockPlan is a plan freezing creations in "shop" in the window, with
// its phase as the lifecycle sets it at t.
func clockPlan(t *testing.T, spec window.Spec, at time.Time) *plan.ProtectionPlan {
	t.Helper()
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("create"))
	p.Spec.Name = "Nightly freeze"
	p.Spec.Window = spec
	w, err := window.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = plan.PhaseScheduled
	if w.Active(at) {
		p.Status.Phase = plan.PhaseActive
	}
	return p
}

// TestClock_PoliciesKeepTimeWithoutAPass renders a plan's policies once,
// half an hour before the window starts (pre-armed), and evaluates them
// with cel-go, Kyverno's time.now() fixed at instants just before, at and
// after each edge, as if no pass ran after the render: they must decide
// as Explain does at that instant, and refuse exactly inside the window.
func TestClock_PoliciesKeepTimeWithoutAPass(t *testing.T) {
	nights := []struct {
		zone string
		dst  time.Time // a day whose night changes the zone's offset
	}{
		{"Europe/Berlin", time.Date(2026, time.October, 24, 12, 0, 0, 0, time.UTC)},
		{"America/New_York", time.Date(2026, time.October, 31, 12, 0, 0, 0, time.UTC)},
	}
	for _, n := range nights {
		spec := nightly(n.zone)
		w, err := window.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		occ := w.Occurrences(n.dst, n.dst.Add(24*time.Hour))
		if len(occ) == 0 {
			t.Fatalf("%s: no occurrence after %s", n.zone, n.dst)
		}
		iv := occ[0]
		renderAt := iv.Start.Add(-30 * time.Minute)
		for _, target := range []Target{TargetKyverno, TargetKyvernoCEL} {
			res := mustRender(t, Input{Plan: clockPlan(t, spec, renderAt), Now: renderAt, Target: target, Clock: true})
			if len(res.Policies) == 0 {
				t.Fatalf("%s %s: a plan 30m before its start renders nothing within the lead", n.zone, target)
			}
			y := string(mustYAML(t, res))
			for _, edge := range []time.Time{iv.Start, iv.End} {
				if !strings.Contains(y, edge.UTC().Format(time.RFC3339)) {
					t.Errorf("%s %s: the policies do not carry the edge %s", n.zone, target, edge.UTC().Format(time.RFC3339))
				}
			}
			if target != TargetKyvernoCEL {
				continue // the Kyverno v1 engine runs in test/kyverno
			}
			for _, at := range edgeInstants(iv) {
				name := fmt.Sprintf("%s: a creation at %s (%s) is refused only inside the window",
					n.zone, at.In(w.Location()).Format("Jan 2 15:04:05 MST"), at.UTC().Format(time.RFC3339))
				t.Run(name, func(t *testing.T) {
					req := create(gvkDeployment, deployment("web", nil, 1, "nginx:1"))
					celClockNow.Store(at.UnixNano())
					got := evaluateCEL(t, target, res, req)
					d, err := Explain(Input{Plan: clockPlan(t, spec, at), Now: at, Target: target, Clock: true}, req)
					if err != nil {
						t.Fatal(err)
					}
					if got.blocked != d.Blocked || got.blocked != w.Active(at) {
						t.Errorf("time.now()=%s: cel-go blocked=%v, Explain blocked=%v (%s), window active=%v",
							at.UTC().Format(time.RFC3339), got.blocked, d.Blocked, d.Reason, w.Active(at))
					}
				})
			}
		}
	}
}

// edgeInstants are the instants just before, at and just after the
// interval's start and end.
func edgeInstants(iv window.Interval) []time.Time {
	var out []time.Time
	for _, e := range []time.Time{iv.Start, iv.End} {
		out = append(out, e.Add(-time.Second), e, e.Add(time.Second))
	}
	return out
}

func TestArmed(t *testing.T) {
	spec := nightly("Europe/Berlin")
	w, _ := window.Parse(spec)
	day := time.Date(2026, time.July, 23, 12, 0, 0, 0, time.UTC)
	start := w.Occurrences(day, day.Add(24*time.Hour))[0].Start
	cases := []struct {
		name  string
		at    time.Time
		in    func(p *plan.ProtectionPlan, at time.Time) Input
		armed bool
	}{
		{"a scheduled plan within the default lead is armed on the kyverno target", start.Add(-59 * time.Minute),
			func(p *plan.ProtectionPlan, at time.Time) Input { return Input{Plan: p, Now: at, Clock: true} }, true},
		{"a scheduled plan before the default lead is not armed", start.Add(-61 * time.Minute),
			func(p *plan.ProtectionPlan, at time.Time) Input { return Input{Plan: p, Now: at, Clock: true} }, false},
		{"a longer lead arms it earlier", start.Add(-61 * time.Minute),
			func(p *plan.ProtectionPlan, at time.Time) Input {
				return Input{Plan: p, Now: at, Clock: true, Lead: 2 * time.Hour, Target: TargetKyvernoCEL}
			}, true},
		{"without Clock a scheduled plan is not armed", start.Add(-time.Minute),
			func(p *plan.ProtectionPlan, at time.Time) Input { return Input{Plan: p, Now: at} }, false},
		{"vap has no clock: a scheduled plan is not armed", start.Add(-time.Minute),
			func(p *plan.ProtectionPlan, at time.Time) Input {
				return Input{Plan: p, Now: at, Clock: true, Target: TargetVAP}
			}, false},
		{"an active plan is armed on every target", start.Add(time.Minute),
			func(p *plan.ProtectionPlan, at time.Time) Input {
				return Input{Plan: p, Now: at, Target: TargetVAP}
			}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in(clockPlan(t, spec, c.at), c.at)
			if got := Armed(in); got != c.armed {
				t.Fatalf("Armed = %v, want %v", got, c.armed)
			}
			res := mustRender(t, in)
			if (len(res.Policies) > 0) != c.armed {
				t.Errorf("Render made %d policies; armed = %v", len(res.Policies), c.armed)
			}
		})
	}
}

// TestClock_Golden writes a pre-armed render of each clock target: the
// instants are RFC 3339 UTC constants, the kyverno rule's precondition is
// start <= now < end (time_between is exclusive at the start).
func TestClock_Golden(t *testing.T) {
	spec := nightly("Europe/Berlin")
	at := time.Date(2026, time.October, 24, 22, 45, 0, 0, time.UTC) // 00:45 CEST, 45m before the start
	for _, target := range []Target{TargetKyverno, TargetKyvernoCEL} {
		res := mustRender(t, Input{Plan: clockPlan(t, spec, at), Now: at, Target: target, Clock: true})
		name := "clock"
		if target != TargetKyverno {
			name = string(target) + "/clock" // where test/kyverno decodes each target's goldens
		}
		checkGolden(t, name, mustYAML(t, res))
	}
}

// TestClock_EveryPolicyOfASelectorPlanKeepsTime: on a clocked render
// every policy that refuses carries the window's instants, the
// namespace-relabel guard of a namespaceSelectors scope too (it refused
// relabels from the pre-arm, up to the lead before the start).
func TestClock_EveryPolicyOfASelectorPlanKeepsTime(t *testing.T) {
	at := time.Date(2026, time.October, 24, 23, 0, 0, 0, time.UTC) // 30m before the Berlin night
	spec := nightly("Europe/Berlin")
	for _, target := range []Target{TargetKyverno, TargetKyvernoCEL} {
		t.Run(fmt.Sprintf("%s: a pre-armed selector plan refuses nothing before its start, relabels included", target), func(t *testing.T) {
			p := selectorPlan(plan.ModeEnforce, []metav1.LabelSelector{teamSelector("payments")}, tpl("create"))
			p.Spec.Window = spec
			p.Status.Phase = plan.PhaseScheduled
			in := selectorInput(target, p)
			in.Now, in.Clock = at, true
			res := mustRender(t, in)
			clock := map[Target]string{TargetKyverno: "time_now_utc()", TargetKyvernoCEL: clockMatchCondition}[target]
			var guard bool
			for _, pol := range res.Policies {
				guard = guard || pol.Template == NamespaceLabelsTemplate
				for _, o := range pol.Objects {
					b, err := json.Marshal(o.Object)
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(string(b), clock) {
						t.Errorf("policy %s (template %s) does not read the clock (%s): it refuses from the pre-arm on", pol.Name, pol.Template, clock)
					}
				}
			}
			if !guard {
				t.Fatalf("no %s policy rendered", NamespaceLabelsTemplate)
			}
		})
	}
}
