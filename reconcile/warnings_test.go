package reconcile_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// TestWarnings_VAPSwapsTheTextAtEachPhase follows a plan through its
// window on vap with Settings.Warnings (issue 20): the API server has no
// clock, so the warning policy's text is static and the pass comes back
// at each change of phase to swap it: BeforeStart within the lead,
// Active from the start, BeforeEnd within the lead before the end.
func TestWarnings_VAPSwapsTheTextAtEachPhase(t *testing.T) {
	steps := []struct {
		name     string
		at       time.Time
		phase    plan.Phase
		objects  int
		warning  string // the start of the warning policy's message
		nextEdge time.Time
		noWrites bool
	}{
		{name: "two hours before the start nothing is in place and the next pass is due at the lead",
			at: start.Add(-2 * time.Hour), phase: plan.PhaseScheduled, nextEdge: start.Add(-time.Hour)},
		{name: "within the lead the warning policy alone is in place, warning of the start, and the next pass is due at the start",
			at: start.Add(-30 * time.Minute), phase: plan.PhaseScheduled, objects: 2, warning: "freeze Freeze xmas starts at 2026-12-24 17:00 UTC", nextEdge: start},
		{name: "a pass within the lead in the steady state writes nothing",
			at: start.Add(-29 * time.Minute), phase: plan.PhaseScheduled, objects: 2, warning: "freeze Freeze xmas starts at", nextEdge: start, noWrites: true},
		{name: "the start puts the plan's policies in place and swaps the text for the Active warning",
			at: start.Add(time.Second), phase: plan.PhaseActive, objects: 6, warning: "freeze Freeze xmas is in force until 2026-12-27 05:00 UTC", nextEdge: end.Add(-time.Hour)},
		{name: "a pass during the window in the steady state writes nothing",
			at: start.Add(time.Hour), phase: plan.PhaseActive, objects: 6, warning: "freeze Freeze xmas is in force until", nextEdge: end.Add(-time.Hour), noWrites: true},
		{name: "at the lead before the end the pass swaps the text for the BeforeEnd warning",
			at: end.Add(-time.Hour), phase: plan.PhaseActive, objects: 6, warning: "freeze Freeze xmas ends at 2026-12-27 05:00 UTC", nextEdge: end},
		{name: "after the end everything is removed", at: end.Add(time.Minute), phase: plan.PhaseTerminated},
	}
	w := newWorld("shop")
	w.settings.Target, w.settings.Warnings = render.TargetVAP, true
	w.add(freeze("xmas", "shop"))
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			w.writes = 0
			out := w.passPlan("xmas", s.at)
			live := w.live("xmas")
			if p := w.plans["xmas"]; p.Status.Phase != s.phase || len(live) != s.objects {
				t.Fatalf("phase %s with %d objects, want %s with %d", p.Status.Phase, len(live), s.phase, s.objects)
			}
			if got := warningText(live); !strings.HasPrefix(got, s.warning) || (s.warning == "") != (got == "") {
				t.Errorf("warning %q, want it to start with %q", got, s.warning)
			}
			if !s.nextEdge.IsZero() && (out.NextEdge == nil || !out.NextEdge.Equal(s.nextEdge)) {
				t.Errorf("next edge %v, want %v", out.NextEdge, s.nextEdge.UTC())
			}
			if s.noWrites && w.writes != 0 {
				t.Errorf("%d writes in the steady state", w.writes)
			}
			if s.phase == plan.PhaseScheduled && s.objects > 0 {
				c := healthCondition(out)
				if c == nil || c.Reason != health.ReasonPreArmed || !strings.Contains(c.Message, "they only warn") {
					t.Errorf("PoliciesHealthy %+v, want PreArmed saying the policies only warn", c)
				}
			}
		})
	}
}

// TestWarnings_PlanOptsOut: a plan with spec.warnings.disabled has no
// warning policy, before or during its window.
func TestWarnings_PlanOptsOut(t *testing.T) {
	w := newWorld("shop")
	w.settings.Target, w.settings.Warnings = render.TargetVAP, true
	p := freeze("xmas", "shop")
	p.Spec.Warnings = &plan.Warnings{Disabled: true}
	w.add(p)
	w.passPlan("xmas", start.Add(-30*time.Minute))
	if n := len(w.live("xmas")); n != 0 {
		t.Errorf("%d objects within the lead", n)
	}
	w.passPlan("xmas", start.Add(time.Minute))
	if got := warningText(w.live("xmas")); got != "" {
		t.Errorf("warning %q during the window", got)
	}
}

// healthCondition is the pass's PoliciesHealthy condition.
func healthCondition(out reconcile.Output) *metav1.Condition {
	if out.Health == nil {
		return nil
	}
	for i, c := range out.Health.Conditions {
		if c.Type == plan.ConditionPoliciesHealthy {
			return &out.Health.Conditions[i]
		}
	}
	return nil
}

// warningText is the message of the warning ValidatingAdmissionPolicy.
func warningText(live []*unstructured.Unstructured) string {
	for _, u := range live {
		if u.GetKind() != "ValidatingAdmissionPolicy" || u.GetLabels()["telark.io/template"] != render.WarnTemplate {
			continue
		}
		vs, _, _ := unstructured.NestedSlice(u.Object, "spec", "validations")
		if len(vs) == 1 {
			m, _ := vs[0].(map[string]any)["message"].(string)
			return m
		}
	}
	return ""
}
