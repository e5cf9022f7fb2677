package operator

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// TestReconcile_BreakGlassGrant: a grant the server stored is put in
// place by the next pass (its user exempt in the policy), counted by the
// gauge, and ends by itself: the pass at its expiry puts the policy back
// without the user, writing only the policy.
func TestReconcile_BreakGlassGrant(t *testing.T) {
	f := newFixture(t, []client.Object{namespace("shop"), kubectlPlan("freeze", plan.ModeEnforce, []string{"shop"}, "scaling")})
	f.pass()
	owner := approval.Caller{Username: "alice", Roles: []approval.Role{approval.Owner()}}
	carol := approval.Caller{Username: "carol", Roles: []approval.Role{approval.Contributor()}}
	now := f.clock.Now()
	res, err := reconcile.RequestGrant(reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Plan: f.plan("freeze"), Caller: carol, Now: now},
		Reason: "INC-1", Duration: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	f.storeStatus(res.Plan)
	res, err = reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: f.plan("freeze"), Caller: owner, Now: now}, Grant: "freeze-g1"})
	if err != nil {
		t.Fatal(err)
	}
	f.storeStatus(res.Plan)

	f.drainEvents()
	repairs := testutil.ToFloat64(metricRepairs.WithLabelValues("Apply"))
	writes := f.tick(time.Second)
	if !exempts(f, "carol") {
		t.Fatalf("after the grant, no policy exempts carol; writes %q", writes)
	}
	if got := testutil.ToFloat64(metricGrants); got != 1 {
		t.Errorf("grants in force gauge = %v, want 1", got)
	}
	if writes := f.tick(2 * time.Second); len(writes) > 0 {
		t.Errorf("a steady pass with a grant in force wrote %q", writes)
	}
	f.clock.Step(10 * time.Minute)
	writes = f.pass()
	if exempts(f, "carol") {
		t.Errorf("after the expiry, a policy still exempts carol; writes %q", writes)
	}
	want := []string{"apply Policy shop/freeze-scaling", "delete Policy shop/freeze-exempt", "update/status ProtectionPlan /freeze"}
	if !slices.Equal(writes, want) {
		t.Errorf("the expiry's writes = %q, want %q (the policy without carol, the record policy gone, the status)", writes, want)
	}
	// Putting the grant in place and taking it out are not drift: no
	// repair counted, no health change, and the expiry on the timeline.
	if got := testutil.ToFloat64(metricRepairs.WithLabelValues("Apply")); got != repairs {
		t.Errorf("repairs counted: %v, was %v", got, repairs)
	}
	for _, ev := range f.drainEvents() {
		if strings.Contains(ev, "HealthChanged") {
			t.Errorf("event %q: a grant is not drift", ev)
		}
	}
	tl := f.plan("freeze").Status.Timeline
	if last := tl[len(tl)-1]; last.Type != plan.EventGrantExpired || !strings.Contains(last.Message, "carol no longer exempt") {
		t.Errorf("the timeline ends with %+v, want the grant's expiry", last)
	}
	if got := testutil.ToFloat64(metricGrants); got != 0 {
		t.Errorf("grants in force gauge = %v after the expiry, want 0", got)
	}
	if st := f.plan("freeze").Status.Grants[0].State(f.clock.Now()); st != plan.GrantExpired {
		t.Errorf("the stored grant is %s", st)
	}
}

func exempts(f *fixture, user string) bool {
	for _, u := range f.policies("shop") {
		b, _ := u.MarshalJSON()
		if strings.Contains(string(b), `"`+user+`"`) {
			return true
		}
	}
	return false
}
