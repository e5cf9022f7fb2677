package gitops

import (
	"testing"

	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/telark/protectionplans/plan"
)

// TestKStatus runs kstatus on a plan in every phase and checks the status
// package plan documents, and that plan.KStatusOf agrees with kstatus.
func TestKStatus(t *testing.T) {
	for name, tc := range phases {
		t.Run(name, func(t *testing.T) {
			p := tc.plan(t)
			res, err := status.Compute(toUnstructured(t, p))
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Status) != string(tc.kstatus) {
				t.Errorf("kstatus = %s (%s), want %s (phase %q)", res.Status, res.Message, tc.kstatus, p.Status.Phase)
			}
			if got := plan.KStatusOf(p); got != tc.kstatus {
				t.Errorf("plan.KStatusOf = %s, kstatus says %s", got, res.Status)
			}
		})
	}
}
