package kyverno_test

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/window"
)

// TestGrantEnginesAgreeWithExplain: a break-glass grant on a clocked
// render (render.Input.Grants with Clock) ends at its end instant in
// Kyverno's own engines, with no render since. As in
// TestClockEnginesAgreeWithExplain the clock is the wall clock, so each
// case places the grant's end around the current second: one second
// after it (just before the end), at it, and one second before it (just
// after). The policies are rendered ten minutes before the current
// second, the grant in force; the engines must decide as Explain does
// now, for the granted user, for another user, for a granted user in an
// exempt group (exempt whatever the grant) and for a granted user whose
// name would be an expression if it were ever read as one.
func TestGrantEnginesAgreeWithExplain(t *testing.T) {
	runners := engines()
	const hostile = "bob' || `true` || '$request.object\") || true"
	ends := []struct {
		name string
		end  func(s time.Time) time.Time // s: the current second
		in   bool                        // the grant is in force
	}{
		{"a second before the grant's end", func(s time.Time) time.Time { return s.Add(time.Second) }, true},
		{"at the grant's end", func(s time.Time) time.Time { return s }, false},
		{"a second after the grant's end", func(s time.Time) time.Time { return s.Add(-time.Second) }, false},
	}
	users := []struct {
		name   string
		user   render.UserInfo
		exempt func(inForce bool) bool
	}{
		{"the granted user", render.UserInfo{Username: "bob"}, func(in bool) bool { return in }},
		{"a user the grant does not name", render.UserInfo{Username: "alice"}, func(bool) bool { return false }},
		{"a granted user in the exempt group", render.UserInfo{Username: "bob", Groups: []string{"release-managers"}}, func(bool) bool { return true }},
		{"a granted user with a hostile name", render.UserInfo{Username: hostile}, func(in bool) bool { return in }},
	}
	for _, target := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL} {
		for _, e := range ends {
			for _, u := range users {
				want := u.exempt(e.in)
				verdict := "refused"
				if want {
					verdict = "exempt and recorded"
				}
				t.Run(fmt.Sprintf("%s/%s, %s's creation is %s", target, e.name, u.name, verdict), func(t *testing.T) {
					req := render.Request{
						Operation: render.OpCreate, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
						Namespace: "shop", Name: "web", UserInfo: u.user,
						Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web", "namespace": "shop"}},
					}
					// The current second must not change between the render
					// and the evaluation: try again when it did.
					for attempt := 0; ; attempt++ {
						s := time.Now().UTC().Truncate(time.Second)
						p, grants := grantedPlan(s, e.end(s), hostile)
						res, err := render.Render(render.Input{Plan: p, Now: s.Add(-10 * time.Minute), Target: target, Clock: true, Grants: grants})
						if err != nil {
							t.Fatal(err)
						}
						got := runners[target](t, res, req)
						now := time.Now()
						if now.UTC().Truncate(time.Second) != s {
							if attempt < 3 {
								continue
							}
							t.Fatal("the second changed during the evaluation, three times")
						}
						d, err := render.Explain(render.Input{Plan: p, Now: now, Target: target, Clock: true, Grants: grants}, req)
						if err != nil {
							t.Fatal(err)
						}
						if got.blocked != d.Blocked || got.recorded != d.Exempt || got.blocked == want || got.recorded != want {
							t.Fatalf("engine blocked=%v recorded=%v (%q), Explain %s (%s), want exempt=%v",
								got.blocked, got.recorded, got.messages, d.Verdict(), d.Reason, want)
						}
						return
					}
				})
			}
		}
	}
}

// grantedPlan is an active plan freezing creations in "shop" from two
// hours before s to two hours after, exempting the group
// release-managers, with a grant to bob and to the hostile name from
// half an hour before s until end.
func grantedPlan(s, end time.Time, hostile string) (*plan.ProtectionPlan, []plan.Grant) {
	start, stop := metav1.NewTime(s.Add(-2*time.Hour)), metav1.NewTime(s.Add(2*time.Hour))
	p := &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly"},
		Spec: plan.Spec{Name: "Nightly freeze", Scope: plan.Scope{Namespaces: []string{"shop"}},
			Templates: []plan.TemplateRef{{Name: "create"}}, Mode: plan.ModeEnforce,
			Window:     window.Spec{Type: window.TimeRange, TimeZone: "Europe/Berlin", StartAt: &start, EndAt: &stop},
			Requesters: &plan.Requesters{Exclude: plan.RequesterSet{Groups: []string{"release-managers"}}}},
		Status: plan.Status{Phase: plan.PhaseActive},
	}
	granted, expires := metav1.NewTime(s.Add(-30*time.Minute)), metav1.NewTime(end)
	g := plan.Grant{ID: "nightly-g1", Users: []string{"bob", hostile}, Reason: "incident", Duration: metav1.Duration{Duration: time.Hour},
		RequestedBy: "carl", RequestedAt: granted, GrantedBy: "erin", GrantedAt: &granted, ExpiresAt: &expires}
	p.Status.Grants = []plan.Grant{g}
	return p, p.Status.Grants
}
