package reconcile_test

import (
	"slices"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

func TestCheckpointOf(t *testing.T) {
	cases := map[string]struct {
		target     render.Target
		drop       string // a plan deleted since its policies were listed
		plans      []string
		namespaces []string
	}{
		"the plans with live policies, and their namespaces": {
			plans: []string{"other", "xmas"}, namespaces: []string{"payments", "shop"},
		},
		"a deleted plan's policies are not checkpointed": {
			drop: "other", plans: []string{"xmas"}, namespaces: []string{"payments", "shop"},
		},
		"vap policies give no namespace to read": {target: render.TargetVAP, plans: []string{"other", "xmas"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := newWorld("shop", "payments")
			w.settings.Target = tc.target
			w.add(freeze("xmas", "shop", "payments"))
			w.add(freeze("other", "shop"))
			w.pass(start)
			var plans []*plan.ProtectionPlan
			for _, id := range w.ids() {
				if id != tc.drop {
					plans = append(plans, w.plans[id])
				}
			}
			c := reconcile.CheckpointOf(plans, w.all())
			if !slices.Equal(c.Plans, tc.plans) || !slices.Equal(c.Namespaces, tc.namespaces) {
				t.Errorf("checkpoint of %v in %v, want %v in %v", c.Plans, c.Namespaces, tc.plans, tc.namespaces)
			}
		})
	}
	if !reconcile.CheckpointDue(time.Time{}, start, time.Minute) || reconcile.CheckpointDue(start, start.Add(time.Second), time.Minute) ||
		!reconcile.CheckpointDue(start, start.Add(time.Minute), time.Minute) {
		t.Error("CheckpointDue: want due first, not before the period, and at the period")
	}
}
