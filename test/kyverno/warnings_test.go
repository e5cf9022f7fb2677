package kyverno_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// warnRequest is a write in scope of the "create" template.
var warnRequest = render.Request{
	Operation: render.OpCreate, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
	Namespace: "shop", Name: "web", UserInfo: render.UserInfo{Username: "alice"},
	Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}},
}

func warnPlan(spec window.Spec, at time.Time) *plan.ProtectionPlan {
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: plan.Spec{Name: "Nightly image freeze", Scope: plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "create"}}, Window: spec, Mode: plan.ModeEnforce},
		Status: plan.Status{Phase: plan.PhaseScheduled},
	}
	if w, err := window.Parse(spec); err == nil && w.Active(at) {
		p.Status.Phase = plan.PhaseActive
	}
	return p
}

// TestWarningsStaticEnginesAgree: without a clock (vap; the Kyverno
// targets without render.Input.Clock) the warning policy carries the
// current phase's text, rendered at each instant of a DST night in two
// zones; Kyverno's engines and the API server's plugin answer exactly
// render.WarningAt's warning, and refuse nothing for it.
func TestWarningsStaticEnginesAgree(t *testing.T) {
	runners := engines()
	nights := map[string]time.Time{ // the start of a nightly 22:00 window on a DST night, in UTC
		"Europe/Berlin":    time.Date(2026, time.October, 24, 20, 0, 0, 0, time.UTC),
		"America/New_York": time.Date(2026, time.November, 1, 2, 0, 0, 0, time.UTC),
	}
	for zone, start := range nights {
		spec := window.Spec{Type: window.Recurring, TimeZone: zone, Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}}
		end := start.Add(8 * time.Hour)
		instants := map[string]time.Time{
			"a second before the lead": start.Add(-time.Hour - time.Second), "at the lead before the start": start.Add(-time.Hour),
			"a second before the start": start.Add(-time.Second), "at the start": start,
			"a second before the lead of the end": end.Add(-time.Hour - time.Second), "at the lead before the end": end.Add(-time.Hour),
			"a second before the end": end.Add(-time.Second), "at the end": end,
		}
		for what, at := range instants {
			for _, target := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL, render.TargetVAP} {
				t.Run(fmt.Sprintf("%s/%s/%s the engine warns as WarningAt", target, zone, what), func(t *testing.T) {
					in := render.Input{Plan: warnPlan(spec, at), Now: at, Target: target, Warnings: true}
					res, err := render.Render(in)
					if err != nil {
						t.Fatal(err)
					}
					want, ok := render.WarningAt(in)
					got := runners[target](t, res, warnRequest).warnings
					if !ok && len(got) > 0 || ok && (len(got) != 1 || got[0] != want.Message) {
						t.Fatalf("engine warned %q, WarningAt %v %q", got, ok, want.Message)
					}
				})
			}
		}
	}
}

// TestWarningsClockEnginesAgree: a clocked warning policy, put in place
// at the lead before the start with no pass since, reads the wall clock
// in Kyverno's engines (time_now_utc, time.now()). As in
// TestClockEnginesAgreeWithExplain, the edges are placed around the
// current second: just before, at and just after each warning edge. The
// engine's warning, with the time left it computes, is WarningAt's at that
// second (CEL's clock has nanoseconds: the time left may read a second
// less, as WarningAt reads it a moment later).
func TestWarningsClockEnginesAgree(t *testing.T) {
	runners := engines()
	const lead = time.Hour
	edges := []struct {
		name       string
		start, end func(s time.Time) time.Time
	}{
		{"a second before the lead", func(s time.Time) time.Time { return s.Add(lead + time.Second) }, nil},
		{"at the lead before the start", func(s time.Time) time.Time { return s.Add(lead) }, nil},
		{"twenty minutes before the start", func(s time.Time) time.Time { return s.Add(20 * time.Minute) }, nil},
		{"a second before the start", func(s time.Time) time.Time { return s.Add(time.Second) }, nil},
		{"at the start", func(s time.Time) time.Time { return s }, nil},
		{"a second before the lead of the end", func(s time.Time) time.Time { return s.Add(-time.Hour) },
			func(s time.Time) time.Time { return s.Add(lead + time.Second) }},
		{"at the lead before the end", func(s time.Time) time.Time { return s.Add(-time.Hour) },
			func(s time.Time) time.Time { return s.Add(lead) }},
		{"a second before the end", func(s time.Time) time.Time { return s.Add(-2 * time.Hour) },
			func(s time.Time) time.Time { return s.Add(time.Second) }},
		{"at the end", func(s time.Time) time.Time { return s.Add(-2 * time.Hour) }, func(s time.Time) time.Time { return s }},
	}
	for _, zone := range []string{"Europe/Berlin", "America/New_York"} {
		for _, target := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL} {
			for _, e := range edges {
				t.Run(fmt.Sprintf("%s/%s/%s the engine warns as WarningAt", target, zone, e.name), func(t *testing.T) {
					for attempt := 0; ; attempt++ {
						s := time.Now().UTC().Truncate(time.Second)
						start := e.start(s)
						end := start.Add(3 * time.Hour)
						if e.end != nil {
							end = e.end(s)
						}
						spec := window.Spec{Type: window.TimeRange, TimeZone: zone,
							StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}}
						// Put in place at the lead before the start, no pass since
						// (for the first case, a second from now).
						renderAt := start.Add(-lead)
						res, err := render.Render(render.Input{Plan: warnPlan(spec, renderAt), Now: renderAt, Target: target, Clock: true, Warnings: true, Lead: lead})
						if err != nil {
							t.Fatal(err)
						}
						got := runners[target](t, res, warnRequest).warnings
						if time.Now().UTC().Truncate(time.Second) != s {
							if attempt < 3 {
								continue
							}
							t.Fatal("the second changed during the evaluation, three times")
						}
						var accept []string
						for _, now := range []time.Time{s, s.Add(time.Second - time.Nanosecond)} {
							if w, ok := render.WarningAt(render.Input{Plan: warnPlan(spec, now), Now: now, Target: target, Clock: true, Warnings: true, Lead: lead}); ok {
								accept = append(accept, w.Message)
							}
						}
						switch {
						case len(accept) == 0 && len(got) > 0:
							t.Fatalf("engine warned %q, WarningAt none", got)
						case len(accept) > 0 && (len(got) != 1 || got[0] != accept[0] && got[0] != accept[len(accept)-1]):
							t.Fatalf("engine warned %q, WarningAt %q", got, accept)
						}
						return
					}
				})
			}
		}
	}
}
