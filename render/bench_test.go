package render

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/telark/protectionplans/plan"
)

// BenchmarkRender_2000Namespaces renders one plan with every template over
// 2,000 namespaces (18,000 policies) for each target and, in the same run,
// each target's baseline: json.Marshal of the very objects Render returns
// (for vap, a policy and a binding each). The goal is a render costing at
// most 1.5 times its baseline.
func BenchmarkRender_2000Namespaces(b *testing.B) {
	namespaces := make([]string, 2000)
	for i := range namespaces {
		namespaces[i] = fmt.Sprintf("team-%04d", i)
	}
	p := namespacePlan(plan.ModeEnforce, namespaces, allTemplates()...)
	p.Spec.Exclusions.Kinds = []string{"ConfigMap"}
	for _, target := range Targets() {
		in := Input{Plan: p, Now: now, Target: target}
		res, err := Render(in)
		if err != nil {
			b.Fatal(err)
		}
		objs := res.Objects()
		b.Run(string(target)+"/render", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(in); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(target)+"/baseline-json-marshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, o := range objs {
					if _, err := json.Marshal(o.Object); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
