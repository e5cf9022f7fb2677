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

// TestClockEnginesAgreeWithExplain: the policies of a clocked render
// (render.Input.Clock) read the clock in Kyverno's own engines. Kyverno's
// clock is the wall clock (JMESPath time_now_utc, truncated to the second;
// CEL time.now()), so each case places the window's edges around the
// current second instead of moving the clock: an edge one second after
// it (just before the edge), at it, and one second before it (just
// after). The policies are rendered half an hour before the start (pre-
// armed, no pass since), and the engines must decide as Explain does now.
func TestClockEnginesAgreeWithExplain(t *testing.T) {
	runners := engines()
	req := render.Request{
		Operation: render.OpCreate, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Namespace: "shop", Name: "web", UserInfo: render.UserInfo{Username: "alice"},
		Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}},
	}
	edges := []struct {
		name       string
		start, end func(s time.Time) time.Time // s: the current second
		blocked    bool
	}{
		{"a second before the start instant, a creation is admitted",
			func(s time.Time) time.Time { return s.Add(time.Second) }, func(s time.Time) time.Time { return s.Add(time.Hour) }, false},
		{"at the start instant, a creation is refused",
			func(s time.Time) time.Time { return s }, func(s time.Time) time.Time { return s.Add(time.Hour) }, true},
		{"a second after the start instant, a creation is refused",
			func(s time.Time) time.Time { return s.Add(-time.Second) }, func(s time.Time) time.Time { return s.Add(time.Hour) }, true},
		{"a second before the end instant, a creation is refused",
			func(s time.Time) time.Time { return s.Add(-time.Hour) }, func(s time.Time) time.Time { return s.Add(time.Second) }, true},
		{"at the end instant, a creation is admitted",
			func(s time.Time) time.Time { return s.Add(-time.Hour) }, func(s time.Time) time.Time { return s }, false},
		{"a second after the end instant, a creation is admitted",
			func(s time.Time) time.Time { return s.Add(-time.Hour) }, func(s time.Time) time.Time { return s.Add(-time.Second) }, false},
	}
	for _, zone := range []string{"Europe/Berlin", "America/New_York"} {
		for _, target := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL} {
			for _, e := range edges {
				t.Run(fmt.Sprintf("%s/%s/%s", target, zone, e.name), func(t *testing.T) {
					// The current second must not change between the render
					// and the evaluation: try again when it did.
					for attempt := 0; ; attempt++ {
						s := time.Now().UTC().Truncate(time.Second)
						start, end := e.start(s), e.end(s)
						spec := window.Spec{Type: window.TimeRange, TimeZone: zone,
							StartAt: &metav1.Time{Time: start}, EndAt: &metav1.Time{Time: end}}
						p := &plan.ProtectionPlan{
							ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
							Spec: plan.Spec{Name: "Nightly freeze", Scope: plan.Scope{Namespaces: []string{"shop"}},
								Templates: []plan.TemplateRef{{Name: "create"}}, Window: spec, Mode: plan.ModeEnforce},
							Status: plan.Status{Phase: plan.PhaseScheduled},
						}
						renderAt := start.Add(-30 * time.Minute)
						res, err := render.Render(render.Input{Plan: p, Now: renderAt, Target: target, Clock: true})
						if err != nil {
							t.Fatal(err)
						}
						if len(res.Policies) == 0 {
							t.Fatal("the plan renders nothing 30m before its start")
						}
						got := runners[target](t, res, req)
						now := time.Now()
						if now.UTC().Truncate(time.Second) != s {
							if attempt < 3 {
								continue
							}
							t.Fatal("the second changed during the evaluation, three times")
						}
						w, _ := window.Parse(spec)
						if w.Active(now) {
							p.Status.Phase = plan.PhaseActive
						}
						d, err := render.Explain(render.Input{Plan: p, Now: now, Target: target, Clock: true}, req)
						if err != nil {
							t.Fatal(err)
						}
						if got.blocked != d.Blocked || got.blocked != e.blocked {
							t.Fatalf("engine blocked=%v (%q), Explain blocked=%v (%s), want %v",
								got.blocked, got.messages, d.Blocked, d.Reason, e.blocked)
						}
						return
					}
				})
			}
		}
	}
}
