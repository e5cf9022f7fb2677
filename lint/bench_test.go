package lint

import (
	"fmt"
	"testing"

	"github.com/telark/protectionplans/plan"
)

// BenchmarkLint_50Plans: 50 plans of three schedules each in Berlin,
// every pair sharing a namespace, over the default horizon of a year.
func BenchmarkLint_50Plans(b *testing.B) {
	var plans []*plan.ProtectionPlan
	for i := range 50 {
		plans = append(plans, onNamespaces(fmt.Sprintf("p%02d", i), []string{"shop", fmt.Sprintf("ns%d", i)}, []string{"create"},
			recurring("Europe/Berlin", fmt.Sprintf("0 %d * * *", i%24), "2h", "30 2 * * 0", "1h", "0 9 * * 1-5", "8h")))
	}
	b.ReportAllocs()
	for b.Loop() {
		Lint(plans, now)
	}
}
