package render

import (
	"slices"
	"testing"

	"github.com/telark/protectionplans/plan"
)

// TestKyvernoExclude_ScaleOnlyWhereItExists: an excluded kind's /scale is
// listed only for a kind that has one. Kyverno warns, on every write of
// the policy, about a /scale it cannot resolve (DaemonSet/scale), and a
// kind with one must keep it, or its kubectl scale is not excluded.
func TestKyvernoExclude_ScaleOnlyWhereItExists(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("scaling"))
	p.Spec.Exclusions.Kinds = []string{"Deployment", "DaemonSet", "ConfigMap", "Rollout.argoproj.io", "ScaledObject.keda.sh"}
	c, err := compile(Input{Plan: p, Now: now, Kinds: servedKinds})
	if err != nil {
		t.Fatal(err)
	}
	m := kyvernoExclude(c.excludedKinds, nsScope{name: "shop"}, c.exempt, c.hasScale)
	var kinds []string
	for _, f := range m.Any {
		if f.Resources != nil {
			kinds = append(kinds, f.Resources.Kinds...)
		}
	}
	for _, c := range []struct {
		kind string
		want bool
	}{
		{"Deployment/scale", true}, // a catalog kind, named without its group
		{"argoproj.io/*/Rollout/scale", true},
		{"DaemonSet/scale", false},
		{"ConfigMap/scale", false},
		{"keda.sh/*/ScaledObject/scale", false},
		{"DaemonSet", true},
		{"keda.sh/*/ScaledObject", true},
	} {
		if got := slices.Contains(kinds, c.kind); got != c.want {
			t.Errorf("%s listed %v, want %v (kinds %v)", c.kind, got, c.want, kinds)
		}
	}
}
