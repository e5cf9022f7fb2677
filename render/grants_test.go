package render

import (
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
)

// grantAt is a grant of users, granted at start and expiring at end.
func grantAt(id string, start, end time.Time, users ...string) plan.Grant {
	s, e := metav1.NewTime(start), metav1.NewTime(end)
	return plan.Grant{ID: id, Users: users, Reason: "incident 42", Duration: metav1.Duration{Duration: end.Sub(start)},
		RequestedBy: "carl", RequestedAt: s, GrantedBy: "erin", GrantedAt: &s, ExpiresAt: &e}
}

// grantEnd is the end of the grant of grantedPlan: 13:00 UTC, an hour
// after now.
var grantEnd = now.Add(time.Hour)

// grantedPlan is an enforcing plan freezing creations in "shop", whose
// exempt group is release-managers, with two grants in force at now:
// bob's until grantEnd, and dave's for a quarter of an hour.
func grantedPlan() *plan.ProtectionPlan {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("create"))
	p.Spec.Requesters = &plan.Requesters{Exclude: plan.RequesterSet{Groups: []string{"release-managers"}}}
	p.Status.Grants = []plan.Grant{
		grantAt("summer-freeze-g1", now.Add(-30*time.Minute), grantEnd, "bob"),
		grantAt("summer-freeze-g2", now.Add(-5*time.Minute), now.Add(10*time.Minute), "dave"),
	}
	return p
}

// grantInput renders grantedPlan at instant at on a target, clocked.
func grantInput(target Target, at time.Time) Input {
	p := grantedPlan()
	return Input{Plan: p, Now: at, Target: target, Clock: true, Grants: p.Status.Grants}
}

// TestGrants_Golden writes a clocked render with two grants in force on
// each target: the kyverno rules' last precondition and the kyverno-cel
// match condition exempt-granted-requesters test each grant's users and
// instants; the record policies record the granted users within their
// grant only; vap, without a clock, lists them with the exempt
// requesters.
func TestGrants_Golden(t *testing.T) {
	for _, target := range []Target{TargetKyverno, TargetKyvernoCEL, TargetVAP} {
		name := "grants_clock"
		if target != TargetKyverno {
			name = string(target) + "/grants_clock"
		}
		checkGolden(t, name, mustYAML(t, mustRender(t, grantInput(target, now))))
	}
}

// TestGrants_ExplainAroundTheEnd: a creation by bob, the granted user,
// just before, at and after his grant's end. On the clock targets the
// policies rendered at now (no pass since) exempt him until the end
// instant and refuse him from it, as Explain says at that instant; the
// kyverno-cel policies are evaluated with cel-go, time.now() fixed at
// the instant (the Kyverno v1 engine runs in test/kyverno). On vap, and
// without Input.Clock, the policies keep him exempt until a pass renders
// them again: Explain at the instant is that pass's render.
func TestGrants_ExplainAroundTheEnd(t *testing.T) {
	bob := UserInfo{Username: "bob"}
	req := as(create(gvkDeployment, deployment("web", nil, 1, "nginx:1")), bob)
	cases := []struct {
		name   string
		at     time.Time
		exempt bool
	}{
		{"a second before the grant's end, bob's creation is exempt and recorded", grantEnd.Add(-time.Second), true},
		{"at the grant's end, bob's creation is refused", grantEnd, false},
		{"a second after the grant's end, bob's creation is refused", grantEnd.Add(time.Second), false},
	}
	for _, target := range []Target{TargetKyverno, TargetKyvernoCEL, TargetVAP} {
		res := mustRender(t, grantInput(target, now))
		for _, c := range cases {
			t.Run(string(target)+"/"+c.name, func(t *testing.T) {
				d, err := Explain(grantInput(target, c.at), req)
				if err != nil {
					t.Fatal(err)
				}
				if d.Exempt != c.exempt || d.Blocked == c.exempt {
					t.Fatalf("Explain: exempt=%v blocked=%v (%s), want exempt=%v", d.Exempt, d.Blocked, d.Reason, c.exempt)
				}
				if c.exempt && !strings.Contains(d.Reason, "break-glass grant summer-freeze-g1 until 2026-07-23 13:00:00 UTC") &&
					target != TargetVAP {
					t.Errorf("Explain's reason does not name the grant and its end: %s", d.Reason)
				}
				if target == TargetKyverno {
					return
				}
				celClockNow.Store(c.at.UnixNano())
				got := evaluateCEL(t, target, res, req)
				wantBlocked, wantRecorded := !c.exempt, c.exempt
				if target == TargetVAP { // no clock: exempt until the next pass
					wantBlocked, wantRecorded = false, true
				}
				if got.blocked != wantBlocked || got.recorded != wantRecorded {
					t.Errorf("cel-go at %s: blocked=%v recorded=%v %q, want blocked=%v recorded=%v",
						c.at.Format(time.RFC3339), got.blocked, got.recorded, got.messages, wantBlocked, wantRecorded)
				}
				if target == TargetKyvernoCEL && (got.blocked != d.Blocked || got.recorded != d.Exempt) {
					t.Errorf("cel-go and Explain disagree: cel-go blocked=%v recorded=%v, Explain %s", got.blocked, got.recorded, d.Verdict())
				}
			})
		}
	}
}

// TestGrants_OthersAndGroups: on a clocked render a grant exempts its
// own users only, and a granted user who is in an exempt group stays
// exempt (and recorded) after the grant's end, by cel-go as by Explain.
func TestGrants_OthersAndGroups(t *testing.T) {
	res := mustRender(t, grantInput(TargetKyvernoCEL, now))
	after := grantEnd.Add(time.Minute)
	cases := []struct {
		name            string
		user            UserInfo
		at              time.Time
		blocked, exempt bool
		recordedByCELGo bool
	}{
		{"alice, granted nothing, is refused during bob's grant", UserInfo{Username: "alice"}, now, true, false, false},
		{"dave is exempt during his own grant", UserInfo{Username: "dave"}, now.Add(5 * time.Minute), false, true, true},
		{"dave is refused after his grant though bob's lasts", UserInfo{Username: "dave"}, now.Add(10 * time.Minute), true, false, false},
		{"bob in release-managers is exempt after his grant's end, by the group", UserInfo{Username: "bob", Groups: []string{"release-managers"}}, after, false, true, true},
		{"a user named like bob's base64 is not bob", UserInfo{Username: base64.StdEncoding.EncodeToString([]byte("bob"))}, now, true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := as(create(gvkDeployment, deployment("web", nil, 1, "nginx:1")), c.user)
			d, err := Explain(grantInput(TargetKyvernoCEL, c.at), req)
			if err != nil {
				t.Fatal(err)
			}
			if d.Blocked != c.blocked || d.Exempt != c.exempt {
				t.Fatalf("Explain: %s (%s), want blocked=%v exempt=%v", d.Verdict(), d.Reason, c.blocked, c.exempt)
			}
			celClockNow.Store(c.at.UnixNano())
			got := evaluateCEL(t, TargetKyvernoCEL, res, req)
			if got.blocked != c.blocked || got.recorded != c.recordedByCELGo {
				t.Errorf("cel-go: blocked=%v recorded=%v, want blocked=%v recorded=%v", got.blocked, got.recorded, c.blocked, c.recordedByCELGo)
			}
		})
	}
}

// TestGrants_HashChangesOnlyWithTheGrants: the rendered hashes stay the
// same from one pass to the next while the same grants are in force;
// they change when a grant is added or ends, and never by the instant.
func TestGrants_HashChangesOnlyWithTheGrants(t *testing.T) {
	hashes := func(in Input) string {
		var hs []string
		for _, p := range mustRender(t, in).Policies {
			hs = append(hs, p.Name+"="+p.Hash)
		}
		return strings.Join(hs, ",")
	}
	for _, target := range []Target{TargetKyverno, TargetKyvernoCEL} {
		t.Run(string(target), func(t *testing.T) {
			base := hashes(grantInput(target, now))
			if got := hashes(grantInput(target, now.Add(7*time.Minute))); got != base {
				t.Errorf("a pass 7 minutes later, the same grants in force, changes the hashes")
			}
			if got := hashes(grantInput(target, now.Add(11*time.Minute))); got == base {
				t.Errorf("the end of dave's grant leaves the hashes as they were")
			}
			in := grantInput(target, now)
			in.Grants = append(in.Grants, grantAt("summer-freeze-g3", now, now.Add(time.Hour), "frank"))
			if got := hashes(in); got == base {
				t.Errorf("a grant added leaves the hashes as they were")
			}
		})
	}
}

// TestGrants_WithoutClockAsWithGrants: without a clock (vap, or Clock
// off) Input.Grants renders exactly what plan.WithGrants' plan renders:
// the users added to the exempt requesters.
func TestGrants_WithoutClockAsWithGrants(t *testing.T) {
	for _, in := range []Input{grantInput(TargetVAP, now), {Target: TargetKyverno}, {Target: TargetKyvernoCEL}} {
		p := grantedPlan()
		in.Plan, in.Now, in.Grants = p, now, p.Status.Grants
		t.Run(fmt.Sprintf("%s clock=%v", in.Target, in.Clock), func(t *testing.T) {
			got := string(mustYAML(t, mustRender(t, in)))
			in.Plan, in.Grants = plan.WithGrants(p, now), nil
			if diff := cmp.Diff(string(mustYAML(t, mustRender(t, in))), got); diff != "" {
				t.Errorf("Input.Grants and plan.WithGrants differ (-WithGrants +Grants):\n%s", diff)
			}
		})
	}
}

// TestGrants_HostileUsernamesStayInert: granted user names that would do
// harm if read as JMESPath, Kyverno variables or CEL reach the kyverno
// policies as base64 only (the record policy's subjects aside, which
// Kyverno compares as names) and the CEL policies as string literals:
// each exempts its own user within the grant, nobody else.
func TestGrants_HostileUsernamesStayInert(t *testing.T) {
	var names []string
	// The plan texts of hostile_test.go, and names made to break out of
	// the grants' own literals.
	extra := []string{"bob' || `true` || '", `bob") || true || ("`, "bob'), `true`) || contains(['", `\'`, "'bob'", "[?@ == 'bob']"}
	for _, n := range append(slices.Clone(hostileNames), extra...) {
		if len(plan.ValidateGrantUsers([]string{n}, nil)) == 0 {
			names = append(names, n)
		}
	}
	if len(names) < 10 {
		t.Fatalf("only %d hostile names pass the user name checks", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("create"))
			gs := []plan.Grant{grantAt("summer-freeze-g1", now.Add(-time.Minute), grantEnd, name)}
			ky := mustRender(t, Input{Plan: p, Now: now, Clock: true, Grants: gs})
			y := mustYAML(t, ky)
			for _, o := range ky.Objects() {
				walkStrings(o.Object, func(s string) { checkGrantVariables(t, s) })
			}
			for _, pol := range ky.Policies {
				if pol.Template == ExemptTemplate {
					continue
				}
				if strings.Contains(string(y), base64.StdEncoding.EncodeToString([]byte(name))) == false {
					t.Errorf("the kyverno policies do not carry the name's base64")
				}
				for _, o := range pol.Objects {
					walkStrings(o.Object, func(s string) {
						if strings.Contains(s, name) {
							t.Errorf("policy %s carries the name as text: %q", pol.Name, s)
						}
					})
				}
			}
			cel := mustRender(t, Input{Plan: p, Now: now, Target: TargetKyvernoCEL, Clock: true, Grants: gs})
			celClockNow.Store(now.UnixNano())
			for _, c := range []struct {
				user            string
				blocked, record bool
			}{{name, false, true}, {"alice", true, false}, {name + "x", true, false}} {
				got := evaluateCEL(t, TargetKyvernoCEL, cel, as(create(gvkDeployment, deployment("web", nil, 1, "nginx:1")), UserInfo{Username: c.user}))
				if got.blocked != c.blocked || got.recorded != c.record {
					t.Errorf("user %q: cel-go blocked=%v recorded=%v, want %v %v", c.user, got.blocked, got.recorded, c.blocked, c.record)
				}
			}
		})
	}
}

// TestGrants_BadGrantsNameTheirField: a grant whose users could not be a
// requester's, or granted without an expiry, is refused with the field
// of the plan's status.grants at fault, never rendered.
func TestGrants_BadGrantsNameTheirField(t *testing.T) {
	noExpiry := grantAt("summer-freeze-g2", now.Add(-time.Minute), grantEnd, "bob")
	noExpiry.ExpiresAt = nil
	cases := []struct {
		name   string
		grants []plan.Grant
		field  string
	}{
		{"a granted user with a wildcard is refused", []plan.Grant{grantAt("g1", now.Add(-time.Minute), grantEnd, "bo*")}, "status.grants[0].users[0]"},
		{"a granted service account is refused", []plan.Grant{grantAt("g1", now.Add(-time.Minute), grantEnd, "ok", "system:serviceaccount:ci:deploy")}, "status.grants[0].users[1]"},
		{"a grant granted without an expiry is refused", []plan.Grant{grantAt("g1", now.Add(-time.Minute), grantEnd, "ok"), noExpiry}, "status.grants[1].expiresAt"},
	}
	for _, c := range cases {
		for _, clock := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s (clock=%v)", c.name, clock), func(t *testing.T) {
				_, err := Render(Input{Plan: namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("create")), Now: now, Clock: clock, Grants: c.grants})
				var ve *plan.ValidationError
				if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.field) {
					t.Fatalf("Render error = %v, want a validation error naming %s", err, c.field)
				}
			})
		}
	}
}

// TestGrants_EndedOrRequestedGrantsAreIgnored: a request not granted, a
// grant revoked or expired, renders as no grant at all.
func TestGrants_EndedOrRequestedGrantsAreIgnored(t *testing.T) {
	p := namespacePlan(plan.ModeEnforce, []string{"shop"}, tpl("create"))
	requested := grantAt("g1", now, grantEnd, "bob")
	requested.GrantedAt, requested.ExpiresAt = nil, nil
	revoked := grantAt("g2", now.Add(-time.Hour), grantEnd, "bob")
	revoked.RevokedAt = &metav1.Time{Time: now.Add(-time.Second)}
	expired := grantAt("g3", now.Add(-2*time.Hour), now, "bob")
	for _, target := range []Target{TargetKyverno, TargetKyvernoCEL, TargetVAP} {
		want := string(mustYAML(t, mustRender(t, Input{Plan: p, Now: now, Target: target, Clock: true})))
		got := string(mustYAML(t, mustRender(t, Input{Plan: p, Now: now, Target: target, Clock: true, Grants: []plan.Grant{requested, revoked, expired}})))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: grants not in force change the render:\n%s", target, diff)
		}
	}
}

// grantLiteral is a raw string literal of the grants' tests: a base64
// name or an RFC 3339 instant.
var grantLiteral = regexp.MustCompile(`'([A-Za-z0-9+/=]*|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)'`)

// grantVariables are every Kyverno variable a plan freezing creations
// with one grant of one user renders, its literals written 'X': the
// rule's precondition, the record policy's, and the record message.
var grantVariables = []string{
	"{{ request.operation }}",
	"{{ not_null(!((contains(['X'], base64_encode(request.userInfo.username || 'X')) && !time_before(time_now_utc(), 'X') && time_before(time_now_utc(), 'X')))) }}",
	"{{ not_null(!contains(['X'], base64_encode(request.userInfo.username || 'X')) || (contains(['X'], base64_encode(request.userInfo.username || 'X')) && !time_before(time_now_utc(), 'X') && time_before(time_now_utc(), 'X'))) }}",
	"{{- join('X', [base64_decode('X'), base64_encode(request.userInfo.username || 'X'), base64_decode('X')]) }}",
	"{{- base64_decode('X') }}",
}

// checkGrantVariables fails on any Kyverno variable of y that is not one
// of grantVariables once its literals are written 'X' (or the window's
// clock test), and on any $( reference: nothing of a name is left for
// Kyverno to read.
func checkGrantVariables(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, "$(") {
		t.Errorf("a $( reference in the policies")
	}
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			t.Fatalf("an unterminated variable at %q", s[i:])
		}
		v := grantLiteral.ReplaceAllString(s[i:i+j+2], "'X'")
		if !slices.Contains(grantVariables, v) && v != "{{ (!time_before(time_now_utc(), 'X') && time_before(time_now_utc(), 'X')) }}" {
			t.Errorf("foreign variable %q", v)
		}
		s = s[i+j+2:]
	}
}
