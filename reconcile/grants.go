package reconcile

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// The break-glass pipelines: a grant is requested by one person with a
// reason, granted by another (or by the requester himself when he is in
// spec.breakGlass.selfGrantGroups, and then recorded as self-granted),
// in force from then until its expiry (exclusive) or a revoke, and never
// past the end of the window interval it was granted in. Each pipeline
// returns the plan whose status the embedder writes with the
// resourceVersion read: of a concurrent grant and revoke, one write wins
// and the other gets 409 from the store. The pass renders the plan with
// the users of the grants in force exempt (render.Input.Grants) and wakes
// at each grant's expiry. With Settings.Clock on a target with a clock
// the policies themselves stop honouring a grant at its end instant, and
// the pass at the expiry only takes the spent grant out (and records the
// expiry on the timeline); on vap (no clock) that pass is what ends it.

// GrantRequest asks for a grant.
type GrantRequest struct {
	ActionInput
	// Users are the users to exempt; the caller when empty.
	Users []string
	// Reason says why (required).
	Reason string
	// Duration is how long the grant lasts once granted;
	// plan.DefaultGrantDuration when zero.
	Duration time.Duration
}

// RequestGrant checks the version and the permission (breakglass.request),
// that the plan is active, and the request's fields (with their paths:
// users[0], reason, duration); then adds the request to the plan's
// grants and timeline. The result's plan carries the new grant last.
func RequestGrant(in GrantRequest) (plan.Result, error) {
	if err := CheckVersion(in.Plan, in.Version); err != nil {
		return plan.Result{}, err
	}
	if err := approval.Authorize(in.Caller, approval.ActionBreakGlassRequest, in.Plan); err != nil {
		return plan.Result{}, err
	}
	if err := activeForGrants(in.Plan, in.Now); err != nil {
		return plan.Result{}, err
	}
	users, d := in.Users, in.Duration
	if len(users) == 0 {
		users = []string{in.Caller.Username}
	}
	if d == 0 {
		d = min(plan.DefaultGrantDuration, in.Plan.Spec.MaxGrantDuration())
	}
	if errs := plan.ValidateGrantRequest(users, in.Reason, d, in.Plan.Spec.MaxGrantDuration(), nil); len(errs) > 0 {
		return plan.Result{}, plan.NewValidationError(errs)
	}
	if err := roomForUsers(in.Plan, users, in.Now); err != nil {
		return plan.Result{}, err
	}
	p := in.Plan.DeepCopy()
	p.Status.GrantSeq++
	g := plan.Grant{
		ID:    fmt.Sprintf("%s-g%d", p.Name, p.Status.GrantSeq),
		Users: slices.Clone(users), Reason: in.Reason, Duration: metav1.Duration{Duration: d},
		RequestedBy: in.Caller.Username, RequestedAt: metav1.NewTime(in.Now),
	}
	p.Status.Grants = capGrants(append(p.Status.Grants, g), in.Now)
	ev := grantEvent(p, plan.EventGrantRequested, in.Caller.Username, in.Now,
		fmt.Sprintf("break-glass grant %s requested for %s, %s: %s", g.ID, strings.Join(g.Users, ", "), d, g.Reason))
	return plan.Result{Plan: p, Events: []plan.TimelineEvent{ev}}, nil
}

// GrantDecision names a grant to grant or revoke.
type GrantDecision struct {
	ActionInput
	// Grant is the grant's ID.
	Grant string
}

// ApproveGrant grants a request: the caller needs breakglass.grant and
// may not be the requester, unless he is in spec.breakGlass.
// selfGrantGroups (the grant then says SelfGranted). The plan must be
// active; the grant lasts its duration from now, cut at the end of the
// window interval now is in. A grant already granted or revoked is 409.
func ApproveGrant(in GrantDecision) (plan.Result, error) {
	if err := CheckVersion(in.Plan, in.Version); err != nil {
		return plan.Result{}, err
	}
	if err := approval.Authorize(in.Caller, approval.ActionBreakGlassGrant, in.Plan); err != nil {
		return plan.Result{}, err
	}
	i, err := findGrant(in.Plan, in.Grant)
	if err != nil {
		return plan.Result{}, err
	}
	g := in.Plan.Status.Grants[i]
	if st := g.State(in.Now); st != plan.GrantRequested {
		return plan.Result{}, &GrantStateError{Grant: g.ID, State: st, Action: "grant"}
	}
	self := g.RequestedBy == in.Caller.Username || slices.Contains(g.Users, in.Caller.Username)
	if self && !selfGranters(in.Plan).Matches(in.Caller.Username, in.Caller.Groups) {
		return plan.Result{}, &approval.ForbiddenError{Username: in.Caller.Username, Action: approval.ActionBreakGlassGrant,
			Reason: "a break-glass grant needs a second person: the requester (or a user it exempts) may not grant it, unless the plan's spec.breakGlass.selfGrantGroups names one of his groups"}
	}
	if err := activeForGrants(in.Plan, in.Now); err != nil {
		return plan.Result{}, err
	}
	end := in.Now.Add(g.Duration.Duration)
	if winEnd, ok := intervalEnd(in.Plan, in.Now, in.windowOptions()); ok && winEnd.Before(end) {
		end = winEnd
	}
	p := in.Plan.DeepCopy()
	now := metav1.NewTime(in.Now)
	exp := metav1.NewTime(end)
	pg := &p.Status.Grants[i]
	pg.GrantedBy, pg.GrantedAt, pg.ExpiresAt, pg.SelfGranted = in.Caller.Username, &now, &exp, self
	msg := fmt.Sprintf("break-glass grant %s granted: %s exempt until %s UTC", g.ID, strings.Join(g.Users, ", "), end.UTC().Format("2006-01-02 15:04:05"))
	if self {
		msg += " (self-granted by a member of spec.breakGlass.selfGrantGroups)"
	}
	ev := grantEvent(p, plan.EventGranted, in.Caller.Username, in.Now, msg)
	r := plan.Result{Plan: p, Events: []plan.TimelineEvent{ev}}
	r.NextEdge = &end
	return r, nil
}

// RevokeGrant ends a grant in force, or withdraws a request, now. The
// requester may withdraw or end his own with breakglass.request; anyone
// else needs breakglass.grant. A grant already ended is 409.
func RevokeGrant(in GrantDecision) (plan.Result, error) {
	if err := CheckVersion(in.Plan, in.Version); err != nil {
		return plan.Result{}, err
	}
	i, err := findGrant(in.Plan, in.Grant)
	if err != nil {
		if aerr := approval.Authorize(in.Caller, approval.ActionBreakGlassRequest, in.Plan); aerr != nil {
			return plan.Result{}, aerr
		}
		return plan.Result{}, err
	}
	g := in.Plan.Status.Grants[i]
	action := approval.ActionBreakGlassGrant
	if g.RequestedBy == in.Caller.Username {
		action = approval.ActionBreakGlassRequest
	}
	if err := approval.Authorize(in.Caller, action, in.Plan); err != nil {
		return plan.Result{}, err
	}
	if st := g.State(in.Now); st != plan.GrantRequested && st != plan.GrantInForce {
		return plan.Result{}, &GrantStateError{Grant: g.ID, State: st, Action: "revoke"}
	}
	p := in.Plan.DeepCopy()
	now := metav1.NewTime(in.Now)
	p.Status.Grants[i].RevokedBy, p.Status.Grants[i].RevokedAt = in.Caller.Username, &now
	ev := grantEvent(p, plan.EventGrantRevoked, in.Caller.Username, in.Now,
		fmt.Sprintf("break-glass grant %s revoked: %s no longer exempt", g.ID, strings.Join(g.Users, ", ")))
	return plan.Result{Plan: p, Events: []plan.TimelineEvent{ev}}, nil
}

func grantEvent(p *plan.ProtectionPlan, t plan.EventType, actor string, now time.Time, msg string) plan.TimelineEvent {
	ev := plan.TimelineEvent{Time: metav1.NewTime(now), Type: t, Actor: actor, Phase: p.Status.Phase, Message: plan.Shorten(msg, 1000)}
	plan.AppendEvent(p, ev)
	return ev
}

// activeForGrants refuses a grant on a plan that freezes nothing now: a
// break-glass is for a freeze in force.
func activeForGrants(p *plan.ProtectionPlan, now time.Time) error {
	if p.Status.Phase != plan.PhaseActive {
		return &GrantPhaseError{Plan: p.Name, Phase: p.Status.Phase}
	}
	return nil
}

// intervalEnd is the end of the window interval now is in, when it has
// one.
func intervalEnd(p *plan.ProtectionPlan, now time.Time, opts []window.Option) (time.Time, bool) {
	w, err := window.Parse(p.Spec.Window, opts...)
	if err != nil {
		return time.Time{}, false
	}
	iv, ok := w.Containing(now)
	if !ok || iv.OpenEnd || iv.End.IsZero() {
		return time.Time{}, false
	}
	return iv.End, true
}

func findGrant(p *plan.ProtectionPlan, id string) (int, error) {
	i := slices.IndexFunc(p.Status.Grants, func(g plan.Grant) bool { return g.ID == id })
	if i < 0 {
		return -1, &GrantNotFoundError{Plan: p.Name, Grant: id}
	}
	return i, nil
}

// selfGranters are the requesters who may grant their own requests: the
// members of spec.breakGlass.selfGrantGroups.
func selfGranters(p *plan.ProtectionPlan) plan.RequesterSet {
	if p.Spec.BreakGlass == nil {
		return plan.RequesterSet{}
	}
	return plan.RequesterSet{Groups: p.Spec.BreakGlass.SelfGrantGroups}
}

// roomForUsers refuses a request that would take the users the plan
// exempts (spec.requesters.exclude.users and the users of every grant
// not ended) past plan.MaxRequesters, which render would refuse.
func roomForUsers(p *plan.ProtectionPlan, users []string, now time.Time) error {
	all := map[string]bool{}
	if r := p.Spec.Requesters; r != nil {
		for _, u := range r.Exclude.Users {
			all[u] = true
		}
	}
	for _, g := range p.Status.Grants {
		if st := g.State(now); st == plan.GrantRequested || st == plan.GrantInForce {
			for _, u := range g.Users {
				all[u] = true
			}
		}
	}
	for _, u := range users {
		all[u] = true
	}
	if len(all) > plan.MaxRequesters {
		return plan.NewValidationError(field.ErrorList{field.TooMany(field.NewPath("users"), len(all), plan.MaxRequesters)})
	}
	return nil
}

// capGrants keeps at most plan.MaxGrants grants, dropping the oldest
// ended ones first; grants requested or in force are never dropped.
func capGrants(gs []plan.Grant, now time.Time) []plan.Grant {
	for over := len(gs) - plan.MaxGrants; over > 0; over-- {
		i := slices.IndexFunc(gs, func(g plan.Grant) bool {
			st := g.State(now)
			return st == plan.GrantExpired || st == plan.GrantRevoked
		})
		if i < 0 {
			break
		}
		gs = slices.Delete(gs, i, i+1)
	}
	return gs
}

// GrantPhaseError refuses a grant on a plan that is not active (409).
type GrantPhaseError struct {
	Plan  string
	Phase plan.Phase
}

func (e *GrantPhaseError) Error() string {
	return fmt.Sprintf("plan %q is %s, not active: it freezes nothing now, so there is nothing to break glass for", e.Plan, e.Phase)
}

// HTTPCode is 409.
func (e *GrantPhaseError) HTTPCode() int { return http.StatusConflict }

// GrantNotFoundError is a grant ID the plan does not have (404).
type GrantNotFoundError struct{ Plan, Grant string }

func (e *GrantNotFoundError) Error() string {
	return fmt.Sprintf("plan %q has no break-glass grant %q", e.Plan, e.Grant)
}

// HTTPCode is 404.
func (e *GrantNotFoundError) HTTPCode() int { return http.StatusNotFound }

// GrantStateError refuses to grant or revoke a grant whose state does not
// allow it (409): granted already, revoked, expired.
type GrantStateError struct {
	Grant  string
	State  plan.GrantState
	Action string
}

func (e *GrantStateError) Error() string {
	return fmt.Sprintf("break-glass grant %s is %s: it cannot be %s", e.Grant, strings.ReplaceAll(string(e.State), "_", " "), map[string]string{"grant": "granted", "revoke": "revoked"}[e.Action])
}

// HTTPCode is 409.
func (e *GrantStateError) HTTPCode() int { return http.StatusConflict }

var (
	_ plan.Coder = (*GrantPhaseError)(nil)
	_ plan.Coder = (*GrantNotFoundError)(nil)
	_ plan.Coder = (*GrantStateError)(nil)
)
