package plan_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

func TestValidateBreakGlass(t *testing.T) {
	d := func(x time.Duration) *metav1.Duration { return &metav1.Duration{Duration: x} }
	cases := map[string]struct {
		b      *plan.BreakGlass
		fields []string
	}{
		"no settings take the defaults":                    {},
		"a maximum of 2h and an on-call group are valid":   {b: &plan.BreakGlass{MaxDuration: d(2 * time.Hour), SelfGrantGroups: []string{"platform-oncall"}}},
		"a maximum over 24h names maxDuration":             {b: &plan.BreakGlass{MaxDuration: d(25 * time.Hour)}, fields: []string{"spec.breakGlass.maxDuration"}},
		"a maximum under a minute names maxDuration":       {b: &plan.BreakGlass{MaxDuration: d(30 * time.Second)}, fields: []string{"spec.breakGlass.maxDuration"}},
		"a self-grant group with a wildcard names it":      {b: &plan.BreakGlass{SelfGrantGroups: []string{"oncall", "sre-*"}}, fields: []string{"spec.breakGlass.selfGrantGroups[1]"}},
		"a self-grant group listed twice names the second": {b: &plan.BreakGlass{SelfGrantGroups: []string{"oncall", "oncall"}}, fields: []string{"spec.breakGlass.selfGrantGroups[1]"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := plan.ValidateBreakGlass(tc.b, field.NewPath("spec", "breakGlass"))
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if len(got) != len(tc.fields) || (len(got) > 0 && got[0] != tc.fields[0]) {
				t.Errorf("fields %v, want %v (%v)", got, tc.fields, errs)
			}
		})
	}
}

func TestIsMaterialEdit_BreakGlass(t *testing.T) {
	a := plan.Spec{Name: "x"}
	b := a
	b.BreakGlass = &plan.BreakGlass{SelfGrantGroups: []string{"oncall"}}
	if !plan.IsMaterialEdit(a, b) {
		t.Error("who may grant himself a break-glass is a material edit (R-A6)")
	}
}

func TestMaxGrantDuration(t *testing.T) {
	if got := (plan.Spec{}).MaxGrantDuration(); got != plan.DefaultMaxGrantDuration {
		t.Errorf("default %s", got)
	}
	s := plan.Spec{BreakGlass: &plan.BreakGlass{MaxDuration: &metav1.Duration{Duration: 30 * time.Minute}}}
	if got := s.MaxGrantDuration(); got != 30*time.Minute {
		t.Errorf("set %s", got)
	}
}

func TestGrantState(t *testing.T) {
	at := func(m int) *metav1.Time {
		v := metav1.NewTime(time.Date(2026, 12, 3, 10, m, 0, 0, time.UTC))
		return &v
	}
	cases := []struct {
		name string
		g    plan.Grant
		now  *metav1.Time
		want plan.GrantState
	}{
		{"a request not granted is requested", plan.Grant{}, at(5), plan.GrantRequested},
		{"a grant before its expiry is in force", plan.Grant{GrantedAt: at(0), ExpiresAt: at(10)}, at(9), plan.GrantInForce},
		{"a grant at its expiry is expired (the expiry is exclusive)", plan.Grant{GrantedAt: at(0), ExpiresAt: at(10)}, at(10), plan.GrantExpired},
		{"a grant revoked before its expiry is revoked from the revoke", plan.Grant{GrantedAt: at(0), ExpiresAt: at(10), RevokedAt: at(4)}, at(4), plan.GrantRevoked},
		{"a grant granted without an expiry (a status edited by hand) is expired, not a panic", plan.Grant{GrantedAt: at(0)}, at(5), plan.GrantExpired},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.g.State(c.now.Time); got != c.want {
				t.Fatalf("State = %s, want %s", got, c.want)
			}
		})
	}
}
