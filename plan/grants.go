package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits and defaults of break-glass grants.
const (
	// DefaultGrantDuration is a grant's duration when the request gives none.
	DefaultGrantDuration = time.Hour
	// DefaultMaxGrantDuration is spec.breakGlass.maxDuration when unset.
	DefaultMaxGrantDuration = 4 * time.Hour
	// MaxMaxGrantDuration bounds spec.breakGlass.maxDuration: a break-glass
	// is for an incident, not a standing exemption (spec.requesters).
	MaxMaxGrantDuration = 24 * time.Hour
	// MaxGrantReasonLength is the longest reason, in characters.
	MaxGrantReasonLength = 512
	// MaxGrantUsers is how many users one grant may name.
	MaxGrantUsers = 8
	// MaxGrants is how many grants a plan's status keeps.
	MaxGrants = 50
)

// BreakGlass configures a plan's break-glass grants.
// +kubebuilder:object:generate=true
type BreakGlass struct {
	// MaxDuration is the longest grant: DefaultMaxGrantDuration when
	// unset, at most MaxMaxGrantDuration. A grant never lasts past the end
	// of the window interval it was granted in.
	// +optional
	MaxDuration *metav1.Duration `json:"maxDuration,omitempty"`
	// SelfGrantGroups may grant their own requests (an on-call group during
	// an incident): the grant is still recorded and announced as
	// self-granted. Without it, the requester never grants his own.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	SelfGrantGroups []string `json:"selfGrantGroups,omitempty"`
}

// MaxGrantDuration is the plan's longest grant.
func (s Spec) MaxGrantDuration() time.Duration {
	if s.BreakGlass != nil && s.BreakGlass.MaxDuration != nil {
		return s.BreakGlass.MaxDuration.Duration
	}
	return DefaultMaxGrantDuration
}

// Grant is a break-glass grant: users the plan does not freeze from the
// grant until its expiry, for a reason.
// +kubebuilder:object:generate=true
type Grant struct {
	// ID names the grant in the plan: <plan>-g<n>.
	ID string `json:"id"`
	// Users are the user names the grant exempts.
	// +listType=atomic
	Users []string `json:"users"`
	// Reason says why, for people (the incident).
	Reason string `json:"reason"`
	// Duration is how long the grant lasts once granted (less when the
	// window ends first).
	Duration metav1.Duration `json:"duration"`
	// RequestedBy and RequestedAt say who asked, and when.
	RequestedBy string      `json:"requestedBy"`
	RequestedAt metav1.Time `json:"requestedAt"`
	// GrantedBy and GrantedAt say who granted it, and when; ExpiresAt is
	// when it ends by itself (exclusive).
	// +optional
	GrantedBy string `json:"grantedBy,omitempty"`
	// +optional
	GrantedAt *metav1.Time `json:"grantedAt,omitempty"`
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`
	// SelfGranted is set when the requester granted his own request, as a
	// member of spec.breakGlass.selfGrantGroups.
	// +optional
	SelfGranted bool `json:"selfGranted,omitempty"`
	// RevokedBy and RevokedAt say who ended it early (or withdrew the
	// request), and when.
	// +optional
	RevokedBy string `json:"revokedBy,omitempty"`
	// +optional
	RevokedAt *metav1.Time `json:"revokedAt,omitempty"`
}

// GrantState is where a grant stands at an instant.
type GrantState string

const (
	// GrantRequested: asked for, not granted yet.
	GrantRequested GrantState = "requested"
	// GrantInForce: granted, before its expiry, not revoked.
	GrantInForce GrantState = "in_force"
	// GrantExpired: granted and past its expiry.
	GrantExpired GrantState = "expired"
	// GrantRevoked: revoked (granted or not) before its expiry.
	GrantRevoked GrantState = "revoked"
)

// State is where the grant stands at now, as its record tells: before
// its grant it is requested; the expiry is exclusive (at ExpiresAt the
// grant is expired); a revoke counts from its instant. A grant granted
// without an expiry (a status edited by hand: ApproveGrant always sets
// one) is expired: it exempts no one.
func (g Grant) State(now time.Time) GrantState {
	switch {
	case g.RevokedAt != nil && !now.Before(g.RevokedAt.Time) && (g.ExpiresAt == nil || g.RevokedAt.Before(g.ExpiresAt)):
		return GrantRevoked
	case g.GrantedAt == nil || now.Before(g.GrantedAt.Time):
		return GrantRequested
	case g.ExpiresAt != nil && now.Before(g.ExpiresAt.Time):
		return GrantInForce
	}
	return GrantExpired
}

// End is when the grant stops (or stopped) being in force: its expiry,
// or its revoke when that came first; zero while it has neither (a
// request not granted nor withdrawn).
func (g Grant) End() time.Time {
	var end time.Time
	if g.ExpiresAt != nil {
		end = g.ExpiresAt.Time
	}
	if g.RevokedAt != nil && (end.IsZero() || g.RevokedAt.Time.Before(end)) {
		end = g.RevokedAt.Time
	}
	return end
}

// GrantsInForce are the plan's grants in force at now.
func GrantsInForce(p *ProtectionPlan, now time.Time) []Grant {
	var out []Grant
	for _, g := range p.Status.Grants {
		if g.State(now) == GrantInForce {
			out = append(out, g)
		}
	}
	return out
}

// GrantedUsers are the users the grants in force at now exempt, sorted,
// each once.
func GrantedUsers(p *ProtectionPlan, now time.Time) []string {
	var users []string
	for _, g := range GrantsInForce(p, now) {
		users = append(users, g.Users...)
	}
	slices.Sort(users)
	return slices.Compact(users)
}

// NextGrantEnd is the earliest expiry after now of a grant in force: an
// edge, when what the plan's policies exempt changes by itself.
func NextGrantEnd(p *ProtectionPlan, now time.Time) (time.Time, bool) {
	var next time.Time
	for _, g := range GrantsInForce(p, now) {
		if next.IsZero() || g.ExpiresAt.Before(&metav1.Time{Time: next}) {
			next = g.ExpiresAt.Time
		}
	}
	return next, !next.IsZero()
}

// WithGrants is the plan as its policies must render at now: the users of
// the grants in force added to spec.requesters.exclude.users, so that
// they are admitted and their writes recorded as exempt ones are. p is
// not changed; without a grant in force it is returned as is.
//
// The exemption then lasts as long as the policies rendered from it: until
// a pass renders them again after the grant's end. render.Input.Grants
// does the same without this copy and, on a target whose engine reads the
// clock (render.Input.Clock), bounds each grant by its instants in the
// policies themselves: the reconcile pass renders that way.
func WithGrants(p *ProtectionPlan, now time.Time) *ProtectionPlan {
	users := GrantedUsers(p, now)
	if len(users) == 0 {
		return p
	}
	c := p.DeepCopy()
	if c.Spec.Requesters == nil {
		c.Spec.Requesters = &Requesters{}
	}
	ex := &c.Spec.Requesters.Exclude
	for _, u := range users {
		if !slices.Contains(ex.Users, u) {
			ex.Users = append(ex.Users, u)
		}
	}
	return c
}

// GrantedBy says which grant in force at now exempts user; false when none
// does.
func GrantedBy(p *ProtectionPlan, user string, now time.Time) (Grant, bool) {
	for _, g := range GrantsInForce(p, now) {
		if slices.Contains(g.Users, user) {
			return g, true
		}
	}
	return Grant{}, false
}

// ValidateBreakGlass checks spec.breakGlass (nil is valid: the defaults).
func ValidateBreakGlass(b *BreakGlass, fld *field.Path) field.ErrorList {
	if b == nil {
		return nil
	}
	var errs field.ErrorList
	if d := b.MaxDuration; d != nil && (d.Duration < time.Minute || d.Duration > MaxMaxGrantDuration) {
		errs = append(errs, field.Invalid(fld.Child("maxDuration"), d.Duration.String(),
			fmt.Sprintf("must be from 1m to %s", MaxMaxGrantDuration)))
	}
	p := fld.Child("selfGrantGroups")
	if len(b.SelfGrantGroups) > MaxRequesters {
		return append(errs, field.TooMany(p, len(b.SelfGrantGroups), MaxRequesters))
	}
	for i, g := range b.SelfGrantGroups {
		if e := validateGroupName(g, p.Index(i)); len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		if j := slices.Index(b.SelfGrantGroups[:i], g); j >= 0 {
			errs = append(errs, listedTwice(p.Index(i), g, p.Index(j)))
		}
	}
	return errs
}

// ValidateGrantRequest checks what a grant request gives: its users (user
// names, as spec.requesters' users), its reason (required, at most
// MaxGrantReasonLength characters, no template delimiters or control
// characters but line breaks) and its duration (from 1m to the plan's
// MaxGrantDuration). Fields are named under fld (users[1], reason,
// duration).
func ValidateGrantRequest(users []string, reason string, d time.Duration, max time.Duration, fld *field.Path) field.ErrorList {
	errs := ValidateGrantUsers(users, fld.Child("users"))
	switch {
	case strings.TrimSpace(reason) == "":
		errs = append(errs, field.Required(fld.Child("reason"), "say why: the incident, the change it needs"))
	default:
		if hasControlBut(reason, "\n\t") {
			errs = append(errs, field.Invalid(fld.Child("reason"), Shorten(reason, 200), "must not contain control characters other than line breaks and tabs"))
		}
		errs = append(errs, validateText(reason, MaxGrantReasonLength, fld.Child("reason"))...)
	}
	if d < time.Minute || d > max {
		errs = append(errs, field.Invalid(fld.Child("duration"), d.String(),
			fmt.Sprintf("must be from 1m to %s (the plan's spec.breakGlass.maxDuration)", max)))
	}
	return errs
}

// ValidateGrantUsers checks a grant's users (at fld): at least one, at
// most MaxGrantUsers, each a user name as spec.requesters' users are
// (no wildcard, no template delimiters, no service account), each once.
// Render checks a grant's users again with it, since its names reach
// policies.
func ValidateGrantUsers(users []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case len(users) == 0:
		errs = append(errs, field.Required(fld, "name at least one user"))
	case len(users) > MaxGrantUsers:
		errs = append(errs, field.TooMany(fld, len(users), MaxGrantUsers))
	default:
		for i, u := range users {
			p := fld.Index(i)
			if e := validateUserName(u, p); len(e) > 0 {
				errs = append(errs, e...)
				continue
			}
			if j := slices.Index(users[:i], u); j >= 0 {
				errs = append(errs, listedTwice(p, u, fld.Index(j)))
			}
		}
	}
	return errs
}

// hasControlBut reports a control character other than those in allowed.
func hasControlBut(s, allowed string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && !strings.ContainsRune(allowed, r) }) >= 0
}
