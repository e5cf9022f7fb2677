package render

import (
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// Break-glass grants at the enforcer (issue 20). Input.Grants are the
// plan's grants (status.grants); those in force at Now exempt their
// users as spec.requesters.exclude.users does: admitted, and recorded by
// the record policy as writes an exemption admitted.
//
// Without a clock (vap, or Input.Clock off) the users are simply added
// to the exempt requesters, as plan.WithGrants does: the exemption lasts
// until a pass renders the policies again after the grant's end (the
// reconcile pass wakes at it), so with the operator down a grant outlives
// its end by as long as the operator is down.
//
// On a clocked render (Input.Clock on a target with a clock) each grant
// exempts its users only from its start (GrantedAt) to its end (its
// expiry, or its revoke), evaluated by the engine at admission, so that
// the policy stops honouring it at its end instant by itself:
//
//   - kyverno: subjects cannot be bound in time, so each rule carries a
//     precondition, true unless the requester's user name is a granted
//     one and time_now_utc() is within the grant. The user name is never
//     read as text: the test compares base64_encode(username) with the
//     base64 of each granted name (constants of [A-Za-z0-9+/=] in raw
//     string literals), so a name with quotes, braces or "{{ }}" reaches
//     no expression. The record policy matches the granted users as
//     subjects and records them only within their grant.
//   - kyverno-cel: a match condition (exempt-granted-requesters) with the
//     user names as CEL string literals and Kyverno's time.now(); the
//     record policy's condition is the exempt requesters' test or the
//     grants'.
//
// The instants are rendered as RFC 3339 UTC constants truncated to the
// second (time_now_utc has no fractions), and a grant is rendered while
// Now is within its truncated interval, so that Render, Explain and the
// engines agree to the second. A grant's constants are fixed when it is
// granted: the render hash changes when a grant starts, ends or is
// added, never from one pass to the next. Grants cannot start later than
// their approval (reconcile.ApproveGrant grants from now), so a render
// carries only grants already in force.

// grantExemption is a grant as a clocked render carries it: its users
// (those not exempt already, sorted) and its interval [start, end).
type grantExemption struct {
	id         string
	users      []string
	start, end time.Time
}

// grantSet are the clocked render's grants, in the order of Input.Grants.
type grantSet []grantExemption

// grantsPath names Input.Grants in errors: the plan's status.grants,
// which they are when the reconcile pass renders.
var grantsPath = field.NewPath("status", "grants")

// compileGrants checks Input.Grants and reduces those in force at Now:
// on a clocked render to the grants the policies test, and otherwise to
// users added to the exempt requesters (the returned set).
func compileGrants(in Input, exempt requesterSet) (grantSet, requesterSet, field.ErrorList) {
	var (
		out  grantSet
		errs field.ErrorList
		all  = slices.Clone(exempt.Users)
	)
	for i, g := range in.Grants {
		fld := grantsPath.Index(i)
		if g.GrantedAt != nil && g.ExpiresAt == nil {
			errs = append(errs, field.Required(fld.Child("expiresAt"), "a granted grant has an expiry"))
			continue
		}
		start, end := grantInterval(g)
		inForce := g.State(in.Now) == plan.GrantInForce
		if in.clocked() {
			// The truncated instants the policies carry decide.
			inForce = g.GrantedAt != nil && !in.Now.Before(start) && in.Now.Before(end)
		}
		if !inForce {
			continue
		}
		if e := plan.ValidateGrantUsers(g.Users, fld.Child("users")); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		ge := grantExemption{id: g.ID, start: start, end: end}
		for _, u := range slices.Sorted(slices.Values(g.Users)) {
			if !slices.Contains(exempt.Users, u) { // exempt already: the grant adds nothing
				ge.users = append(ge.users, u)
			}
			if !slices.Contains(all, u) {
				all = append(all, u)
			}
		}
		if len(ge.users) > 0 {
			out = append(out, ge)
		}
	}
	if len(all) > plan.MaxRequesters && len(exempt.Users) <= plan.MaxRequesters { // else ValidateRequesters says
		// As plan.WithGrants' plan would be refused (reconcile refuses a
		// request that would take the plan past it: roomForUsers).
		errs = append(errs, field.TooMany(field.NewPath("spec", "requesters", "exclude", "users"), len(all), plan.MaxRequesters))
	}
	if len(errs) > 0 {
		return nil, exempt, errs
	}
	if in.clocked() {
		return out, exempt, nil
	}
	merged := plan.RequesterSet(exempt)
	merged.Users = all
	return nil, newRequesterSet(merged), nil
}

// grantInterval is the interval a grant is in force in, as a clocked
// render carries it: from GrantedAt to its End, truncated to the second.
func grantInterval(g plan.Grant) (start, end time.Time) {
	if g.GrantedAt != nil {
		start = g.GrantedAt.Time.UTC().Truncate(time.Second)
	}
	return start, g.End().UTC().Truncate(time.Second)
}

// which names the grant that exempts the requester at now, for
// Explain's reasons; "" for none.
func (s grantSet) which(u UserInfo, now time.Time) string {
	for _, g := range s {
		if slices.Contains(g.users, u.Username) && !now.Before(g.start) && now.Before(g.end) {
			return "break-glass grant " + g.id + " until " + g.end.Format("2006-01-02 15:04:05") + " UTC"
		}
	}
	return ""
}

// usernames are the granted users, sorted, each once.
func (s grantSet) usernames() []string {
	var out []string
	for _, g := range s {
		out = append(out, g.users...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// b64List is a JMESPath list of the names' base64, as raw string
// literals: the alphabet holds no quote.
func b64List(names []string) string {
	enc := make([]string, len(names))
	for i, n := range names {
		enc[i] = "'" + base64.StdEncoding.EncodeToString([]byte(n)) + "'"
	}
	return "[" + strings.Join(enc, ", ") + "]"
}

// kyvernoUsername is the request's user name as the grants' tests read
// it: its base64, never the text itself.
const kyvernoUsername = "base64_encode(request.userInfo.username || '')"

// kyvernoTest is the JMESPath test true while a granted user's grant is
// in force by the engine's clock.
func (s grantSet) kyvernoTest() string {
	const now = "time_now_utc()"
	terms := make([]string, len(s))
	for i, g := range s {
		terms[i] = "(contains(" + b64List(g.users) + ", " + kyvernoUsername + ") && !time_before(" + now + ", '" + instant(g.start) +
			"') && time_before(" + now + ", '" + instant(g.end) + "'))"
	}
	return strings.Join(terms, " || ")
}

// kyvernoPrecondition adds to a rule the grants' precondition: for a rule
// of the plan (or its warning policy, or its namespace guard), true
// unless a grant in force exempts the requester; for a rule of the record
// policy, which matches the granted users as subjects besides the exempt
// requesters, true for a requester no grant names, within the grant for
// one it does, or for one in an exempt group (exempt whatever the
// grant). Granted users are never exempt users or service accounts
// (compileGrants, plan.ValidateGrantUsers).
func (s grantSet) kyvernoPrecondition(r *kyRule, record bool, exempt requesterSet) {
	if len(s) == 0 {
		return
	}
	expr := "!(" + s.kyvernoTest() + ")"
	if record {
		alts := []string{"!contains(" + b64List(s.usernames()) + ", " + kyvernoUsername + ")", s.kyvernoTest()}
		if len(exempt.Groups) > 0 {
			alts = append(alts, "length((request.userInfo.groups || `[]`)[?contains("+b64List(exempt.Groups)+", base64_encode(@))]) > `0`")
		}
		expr = strings.Join(alts, " || ")
	}
	if r.Preconditions == nil {
		r.Preconditions = &kyConditions{}
	}
	r.Preconditions = &kyConditions{All: append(append([]kyCondition(nil), r.Preconditions.All...), isTrue("not_null("+expr+")"))}
}

// kyvernoSubjects are the granted users as Kyverno subjects, for the
// record policy's match (names validated: no wildcard reaches Kyverno).
func (s grantSet) kyvernoSubjects() []kySubject {
	var out []kySubject
	for _, u := range s.usernames() {
		out = append(out, kySubject{Kind: "User", Name: u})
	}
	return out
}

// celTest is the CEL test true while a granted user's grant is in force
// by Kyverno's time.now(); names reach it as string literals.
func (s grantSet) celTest() string {
	const now = "time.now()"
	terms := make([]string, len(s))
	for i, g := range s {
		terms[i] = "(" + celIn(celUsername, g.users) + " && " + now + " >= timestamp('" + instant(g.start) + "') && " +
			now + " < timestamp('" + instant(g.end) + "'))"
	}
	return "(" + strings.Join(terms, " || ") + ")"
}
