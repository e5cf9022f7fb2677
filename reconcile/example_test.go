package reconcile_test

import (
	"fmt"
	"time"
)

// A custom controller's whole decision loop over in-memory inputs: the
// world type of this package's tests gathers and carries out; Decide and
// Sweep decide. A plan applied with kubectl is put in place when its
// window opens, repaired when someone deletes one of its policies, and
// withdrawn when the window ends, with its final report written once.
func Example() {
	w := newWorld("shop", "payments")
	w.add(freeze("xmas", "shop", "payments"))

	w.pass(start.Add(-time.Hour)) // created, scheduled
	w.pass(start)                 // the window opens: 4 policies applied
	fmt.Println(w.plans["xmas"].Status.Phase, len(w.policies), "policies")

	delete(w.policies, w.keys()[0]) // someone deletes a policy
	w.pass(start.Add(time.Minute))  // found and repaired
	w.pass(start.Add(2 * time.Minute))
	fmt.Println(len(w.policies), "policies")

	w.pass(end) // the window ends
	w.pass(end.Add(time.Minute))
	fmt.Println(w.plans["xmas"].Status.Phase, len(w.policies), "policies", w.finalReports("xmas"))
	for _, r := range w.reasons() {
		fmt.Println(r)
	}
	// Output:
	// active 4 policies
	// 4 policies
	// terminated 0 policies [xmas-end-20261227T050000Z]
	// Normal Created
	// Normal HealthChanged
	// Normal PoliciesApplied
	// Normal PhaseChanged
	// Normal HealthChanged
	// Normal PoliciesApplied
	// Warning HealthChanged
	// Normal HealthChanged
	// Normal PoliciesDeleted
	// Normal PhaseChanged
	// Normal HealthChanged
	// Normal ReportWritten
}
