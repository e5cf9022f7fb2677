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

// A list walked page by page, as a Kubernetes client pages a list: each
// answer's Continue is the next request's.
func ExamplePageRequest_Of() {
	sorted := []plan.ProtectionPlan{
		listed("c", "Cyber Monday", "Production", plan.PhaseScheduled),
		listed("a", "Audit", "Production", plan.PhaseActive),
		listed("b", "Black Friday", "Production", plan.PhaseActive),
	}
	plan.SortByName(sorted)
	q := url.Values{"limit": {"2"}}
	for {
		r, err := plan.ParsePage(q)
		if err != nil {
			panic(err)
		}
		pg := r.Of(sorted)
		for _, p := range pg.Items {
			fmt.Print(p.Name, " ")
		}
		fmt.Println("| remaining", pg.Remaining)
		if pg.Continue == "" {
			break
		}
		q.Set("continue", pg.Continue)
	}
	_, err := plan.ParsePage(url.Values{"limit": {"0"}})
	fmt.Println(plan.CodeOf(err))
	// Output:
	// a b | remaining 1
	// c | remaining 0
	// 400
}
