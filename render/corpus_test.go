package render

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
)

// The explain corpus (testdata/explain_corpus.json) is every case of the
// Explain tables with its input and the decision Explain makes, written
// out so that checks outside this package can hold a real policy engine to
// the same cases: test/kyverno runs Kyverno's engine on each, and the
// end-to-end tests can replay them against a live cluster. Regenerate it
// with -update.

// corpusCase is one recorded case; its JSON is the format of the file.
type corpusCase struct {
	Name    string      `json:"name"`
	Input   corpusInput `json:"input"`
	Request Request     `json:"request"`
	Want    Decision    `json:"want"`
}

type corpusInput struct {
	Plan         *plan.ProtectionPlan `json:"plan"`
	Applications []plan.Application   `json:"applications,omitempty"`
	Now          time.Time            `json:"now"`
}

func explainCorpus(t *testing.T) []corpusCase {
	var cases []corpusCase
	add := func(name string, in Input, req Request) {
		d, err := Explain(in, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cases = append(cases, corpusCase{Name: name, Input: corpusInput{Plan: in.Plan, Applications: in.Applications, Now: in.Now}, Request: req, Want: d})
	}
	for _, c := range covered {
		for _, mode := range []plan.Mode{plan.ModeEnforce, plan.ModeAudit} {
			add(string(mode)+": "+c.name, Input{Plan: namespacePlan(mode, []string{"shop"}, tpl(c.template)), Now: now}, c.req)
		}
	}
	for _, c := range notFrozenCases() {
		add(c.name, Input{Plan: c.plan, Now: now}, c.req)
	}
	for _, c := range applicationCases() {
		add(c.name, Input{Plan: applicationsPlan(), Applications: []plan.Application{checkoutApp()}, Now: now}, c.req)
	}
	for _, c := range requesterCases() {
		add(c.name, Input{Plan: c.plan, Applications: c.apps, Now: now}, c.req)
	}
	up := namespacePlan(plan.ModeEnforce, []string{"shop"}, tplWith("scaling", "direction", "up"))
	add("direction up: scaling up is blocked", Input{Plan: up, Now: now}, scaleReq(gvkDeployment, "web", 2, 3))
	add("direction up: scaling down is not", Input{Plan: up, Now: now}, scaleReq(gvkDeployment, "web", 3, 2))
	return cases
}

func TestExplainCorpus(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(explainCorpus(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "explain_corpus", b.Bytes())
}
