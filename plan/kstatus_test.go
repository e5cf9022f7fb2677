package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKStatus_EveryPhase(t *testing.T) {
	must := func(r Result, err error) *ProtectionPlan {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r.Plan
	}
	created := func(p *ProtectionPlan, now string) *ProtectionPlan { return must(Create(p, "alice", at(now))) }
	active := func() *ProtectionPlan { return created(holiday(), "Thu Dec 24 2026 20:00 Europe/Berlin") }
	failed := func() *ProtectionPlan {
		return must(Fail(active(), ReasonPoliciesRefused, "the cluster refused policy x", at("Thu Dec 24 2026 20:01 Europe/Berlin")))
	}
	cases := map[string]struct {
		plan        func() *ProtectionPlan
		want        KStatus
		reconciling condState
		stalled     condState
	}{
		"a plan scheduled before its window is Current": {
			plan: func() *ProtectionPlan { return created(holiday(), "Tue Dec 1 2026 10:00 UTC") },
			want: KStatusCurrent, reconciling: condState{metav1.ConditionFalse, "Scheduled"}, stalled: condState{metav1.ConditionFalse, "Scheduled"}},
		"an active plan is Current": {
			plan: active,
			want: KStatusCurrent, reconciling: condState{metav1.ConditionFalse, "Active"}, stalled: condState{metav1.ConditionFalse, "Active"}},
		"a plan whose window ended is Current": {
			plan: func() *ProtectionPlan { return Tick(active(), at("Mon Dec 28 2026 09:00 Europe/Berlin")).Plan },
			want: KStatusCurrent, reconciling: condState{metav1.ConditionFalse, "Terminated"}, stalled: condState{metav1.ConditionFalse, "Terminated"}},
		"a plan waiting for an approver is InProgress (from Ready False), neither reconciling nor stalled": {
			plan: func() *ProtectionPlan { return created(required(holiday()), "Tue Dec 1 2026 10:00 UTC") },
			want: KStatusInProgress, reconciling: condState{metav1.ConditionFalse, "PendingApproval"}, stalled: condState{metav1.ConditionFalse, "PendingApproval"}},
		"a failed plan is Failed, stalled with Ready's reason": {
			plan: failed,
			want: KStatusFailed, reconciling: condState{metav1.ConditionFalse, "Failed"}, stalled: condState{metav1.ConditionTrue, ReasonPoliciesRefused}},
		"a failed plan being retried is InProgress, reconciling": {
			plan: func() *ProtectionPlan { return Tick(failed(), at("Thu Dec 24 2026 20:02 Europe/Berlin")).Plan },
			want: KStatusInProgress, reconciling: condState{metav1.ConditionTrue, ReasonRetrying}, stalled: condState{metav1.ConditionFalse, ReasonRetrying}},
		"a plan put in place again after a retry is Current again": {
			plan: func() *ProtectionPlan {
				retried := Tick(failed(), at("Thu Dec 24 2026 20:02 Europe/Berlin")).Plan
				return Tick(retried, at("Thu Dec 24 2026 20:03 Europe/Berlin")).Plan
			},
			want: KStatusCurrent, reconciling: condState{metav1.ConditionFalse, "Active"}, stalled: condState{metav1.ConditionFalse, "Active"}},
		"a canceled plan is Failed, stalled: only a person can run it again": {
			plan: func() *ProtectionPlan {
				return must(Cancel(active(), "bob", at("Fri Dec 25 2026 10:00 Europe/Berlin")))
			},
			want: KStatusFailed, reconciling: condState{metav1.ConditionFalse, "Canceled"}, stalled: condState{metav1.ConditionTrue, "Canceled"}},
		"a plan reactivated after a cancel is Current again": {
			plan: func() *ProtectionPlan {
				canceled := must(Cancel(active(), "bob", at("Fri Dec 25 2026 10:00 Europe/Berlin")))
				return must(Reactivate(canceled, "bob", at("Fri Dec 25 2026 11:00 Europe/Berlin")))
			},
			want: KStatusCurrent, reconciling: condState{metav1.ConditionFalse, "Active"}, stalled: condState{metav1.ConditionFalse, "Active"}},
		"an active plan whose spec changed since its status was written is InProgress": {
			plan: func() *ProtectionPlan {
				in := holiday()
				in.Generation = 1
				p := created(in, "Thu Dec 24 2026 20:00 Europe/Berlin")
				p.Generation = 2
				return p
			},
			want: KStatusInProgress, reconciling: condState{metav1.ConditionFalse, "Active"}, stalled: condState{metav1.ConditionFalse, "Active"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := tc.plan()
			if got := KStatusOf(p); got != tc.want {
				t.Errorf("KStatusOf = %s, want %s (phase %s)", got, tc.want, p.Status.Phase)
			}
			c := conds(p)
			if diff := cmp.Diff(tc.reconciling, c[ConditionReconciling]); diff != "" {
				t.Errorf("Reconciling (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stalled, c[ConditionStalled]); diff != "" {
				t.Errorf("Stalled (-want +got):\n%s", diff)
			}
		})
	}
}

// The operator retries a failed plan on every tick (Tick, then Fail again
// in the same pass): a lasting failure must read the same after each pass,
// or an embedder that writes only changes would write on every tick.
func TestKStatus_ALastingFailureReadsTheSameAfterEachRetry(t *testing.T) {
	p, err := Create(holiday(), "alice", at("Thu Dec 24 2026 20:00 Europe/Berlin"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Fail(p.Plan, ReasonNamespaceGone, "namespace shop is gone", at("Thu Dec 24 2026 20:01 Europe/Berlin"))
	if err != nil {
		t.Fatal(err)
	}
	before := r.Plan
	for _, now := range []string{"Thu Dec 24 2026 20:02 Europe/Berlin", "Thu Dec 24 2026 20:03 Europe/Berlin"} {
		retried := Tick(before, at(now)).Plan
		again, err := Fail(retried, ReasonNamespaceGone, "namespace shop is gone", at(now))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before.Status.Conditions, again.Plan.Status.Conditions); diff != "" {
			t.Errorf("conditions after the pass at %s (-before +after):\n%s", now, diff)
		}
		before = again.Plan
	}
}
