package plan_test

import (
	"fmt"
	"net/url"

	"github.com/telark/protectionplans/plan"
)

// A list of plans filtered by a request's query, sorted by display name.
func ExampleFilter_Select() {
	f, err := plan.ParseFilter(url.Values{"environment": {"production"}, "text": {"friday"}})
	if err != nil {
		panic(err)
	}
	all := []plan.ProtectionPlan{
		listed("bf-2", "black friday (payments)", "Production", plan.PhaseScheduled),
		listed("bf", "Black Friday", "Production", plan.PhaseActive),
		listed("audit", "October audit", "Production", plan.PhaseTerminated),
	}
	for _, p := range f.Select(all) {
		fmt.Println(p.Name, p.Spec.Name)
	}
	_, err = plan.ParseFilter(url.Values{"phase": {"frozen"}})
	fmt.Println(plan.CodeOf(err))
	fmt.Println(plan.NewID("Black Friday 2026", []byte{1, 2, 3, 4, 5}))
	// Output:
	// bf Black Friday
	// bf-2 black friday (payments)
	// 400
	// black-friday-2026-bcdef
}
