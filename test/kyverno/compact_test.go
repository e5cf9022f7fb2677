package kyverno_test

import (
	"strings"
	"testing"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestCompactLayoutAgreesWithExplain replays the explain corpus, each case
// with its own plan and with the plan given every template of the catalog,
// through the real engines (Kyverno's kyverno.io/v1 and CEL engines, the
// API server's validating policy plugin) on the compact layout
// (render.Input.Compact):
// one policy per namespace holding every template. The verdict, the
// message and the policy must be Explain's, and Explain's verdict,
// template and message must be those of the per-template layout.
func TestCompactLayoutAgreesWithExplain(t *testing.T) {
	var every []plan.TemplateRef
	for _, tmpl := range render.Catalog() {
		every = append(every, plan.TemplateRef{Name: tmpl.Name()})
	}
	runners := engines()
	cases := 0
	for _, target := range render.Targets() {
		for _, c := range loadCorpus(t) {
			for _, variant := range []string{"own templates", "every template"} {
				p := c.Input.Plan
				if variant == "every template" {
					p = p.DeepCopy()
					p.Spec.Templates = every
				}
				cases++
				t.Run(string(target)+"/"+variant+"/"+c.Name, func(t *testing.T) {
					in := render.Input{Plan: p, Applications: c.Input.Applications, Now: c.Input.Now, Target: target}
					perTemplate, err := render.Explain(in, c.Request)
					if err != nil {
						t.Fatal(err)
					}
					in.Compact = true
					want, err := render.Explain(in, c.Request)
					if err != nil {
						t.Fatal(err)
					}
					rule := perTemplate.Rule
					if strings.HasPrefix(rule, "scope-guard") && !perTemplate.Exempt {
						rule = perTemplate.Template + "-" + rule
					}
					if want.Blocked != perTemplate.Blocked || want.Audited != perTemplate.Audited || want.Exempt != perTemplate.Exempt ||
						want.Template != perTemplate.Template || want.Message != perTemplate.Message || want.Rule != rule {
						t.Fatalf("Explain, compact: %+v; per template: %+v", want, perTemplate)
					}
					res, err := render.Render(in)
					if err != nil {
						t.Fatal(err)
					}
					got := runners[target](t, res, c.Request)
					if got.blocked != want.Blocked || got.audited != want.Audited || got.recorded != want.Exempt {
						t.Fatalf("engine: blocked=%v audited=%v recorded=%v (%q); Explain: blocked=%v audited=%v exempt=%v (%s)",
							got.blocked, got.audited, got.recorded, got.messages, want.Blocked, want.Audited, want.Exempt, want.Reason)
					}
					if want.Message == "" {
						return
					}
					// Kyverno's CEL engine reports the first failing
					// validation; the API server's plugin returns every
					// failing one, and the API server refuses with the first
					// (its warnings list all); Kyverno's kyverno.io/v1 engine
					// reports every failing rule, in rule order.
					if len(got.messages) == 0 || got.messages[0] != want.Message {
						t.Errorf("the engine says %q first, Explain %q", got.messages, want.Message)
					}
					policy := want.Policy
					if target == render.TargetKyverno {
						policy += "/" + want.Rule
					}
					if len(got.failed) == 0 || got.failed[0] != policy {
						t.Errorf("the engine failed %v first, Explain names %s", got.failed, policy)
					}
				})
			}
		}
	}
	t.Logf("%d cases", cases)
}
