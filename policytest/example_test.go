package policytest_test

import (
	"fmt"
	"strings"
	"testing/fstest"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/plan/plantest"
	"github.com/telark/protectionplans/policytest"
	"github.com/telark/protectionplans/render"
)

const shopFreeze = `
apiVersion: telark.io/v1alpha1
kind: ProtectionPlan
metadata: {name: shop-freeze}
spec:
  name: Shop freeze
  scope: {namespaces: [shop]}
  templates: [{name: delete}]
  window: {type: time_range, startAt: "2026-12-24T18:00:00Z", endAt: "2026-12-27T06:00:00Z"}
  mode: enforce
`

// A suite written in Go, as a platform team's unit test of its plan
// would be (policytest.RunT(t, suite) runs it as subtests).
func ExampleSuite_Run() {
	p := &plan.ProtectionPlan{}
	if err := plan.Decode(strings.NewReader(shopFreeze), p); err != nil {
		panic(err)
	}
	del, err := render.DecodeRequest([]byte("operation: DELETE\nkind: Deployment\nnamespace: shop\nname: web\nuser: alice\n"))
	if err != nil {
		panic(err)
	}
	suite := policytest.Suite{
		Name:    "shop freeze",
		Plans:   []*plan.ProtectionPlan{p},
		Cluster: &plantest.Cluster{Namespaces: []string{"shop"}},
		Targets: []render.Target{render.TargetKyverno, render.TargetVAP},
		Cases: []policytest.Case{
			{Name: "a delete on Christmas Day is refused", At: time.Date(2026, 12, 25, 12, 0, 0, 0, time.UTC), Request: del,
				Expect: policytest.Expect{Decision: policytest.Blocked, Template: "delete", Message: "Shop freeze"}},
			{Name: "a delete after the freeze is admitted", At: time.Date(2026, 12, 27, 6, 0, 0, 0, time.UTC), Request: del,
				Expect: policytest.Expect{Decision: policytest.Blocked}}, // wrong on purpose
		},
	}
	res, err := suite.Run()
	if err != nil {
		panic(err)
	}
	for _, c := range res.Checks {
		fmt.Printf("%s [%s]: passed %t\n", c.Case, c.Target, c.Passed())
	}
	fmt.Println(res.Failed()[0].Failure)
	// Output:
	// a delete on Christmas Day is refused [kyverno]: passed true
	// a delete on Christmas Day is refused [vap]: passed true
	// a delete after the freeze is admitted [kyverno]: passed false
	// a delete after the freeze is admitted [vap]: passed false
	// want blocked, got admitted; shop-freeze: admitted (terminated): the plan is not active (phase "terminated"): it deploys no policies
}

// A test file, read through any fs.FS (here in memory; os.DirFS in a
// repository).
func ExampleLoad() {
	fsys := fstest.MapFS{
		"plans/shop.yaml": {Data: []byte(shopFreeze)},
		"tests/shop_test.yaml": {Data: []byte(`
apiVersion: cli.telark.io/v1alpha1
kind: Test
plans: [../plans/shop.yaml]
cluster: {namespaces: [shop]}
cases:
- name: a delete on Christmas Day is refused
  at: 2026-12-25
  request: {operation: DELETE, kind: Deployment, namespace: shop, name: web, user: alice}
  expect: {decision: blocked, template: delete}
`)},
	}
	suites, err := policytest.LoadDir(fsys, "tests")
	if err != nil {
		panic(err)
	}
	res, err := suites[0].Run()
	if err != nil {
		panic(err)
	}
	fmt.Println(res.File, res.Cases(), "case,", len(res.Checks), "checks,", len(res.Failed()), "failed")
	// Output:
	// tests/shop_test.yaml 1 case, 3 checks, 0 failed
}
