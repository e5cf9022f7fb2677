package render_test

import (
	"fmt"
	"time"

	"github.com/telark/protectionplans/render"
)

// A compact policy holds every template of the plan in its namespace and
// says which of its rules are whose, with each template's hash
// (Policy.Parts, and the telark.io/template-hashes annotation).
func ExampleTemplatePart() {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	res, err := render.Render(render.Input{Plan: examplePlan(), Now: now, Compact: true})
	if err != nil {
		panic(err)
	}
	p := res.Policies[0]
	rules, field, _ := render.RuleList(p.Objects[0])
	fmt.Println(p.Namespace, p.Name, len(rules), field)
	hashes, _ := render.ParseTemplateHashes(p.Objects[0].GetAnnotations()[render.AnnotationTemplateHashes])
	at := 0
	for _, pt := range p.Parts {
		fmt.Printf("%s: %s[%d:%d], hash in the annotation: %v\n", pt.Template, field, at, at+pt.Rules, hashes[pt.Template] == pt.Hash)
		at += pt.Rules
	}
	// Output:
	// payments black-friday-compact 4 spec.rules
	// image-change: spec.rules[0:3], hash in the annotation: true
	// scaling: spec.rules[3:4], hash in the annotation: true
}
