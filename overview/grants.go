package overview

import (
	"strings"
	"time"

	"github.com/telark/protectionplans/plan"
)

// BreakGlass is what a page shows of a plan's break-glass grants at an
// instant: those in force (a banner: who is exempt, until when, granted by
// whom, why) and the requests waiting for a second person.
type BreakGlass struct {
	InForce []GrantLine
	Waiting []GrantLine
}

// Any reports whether there is anything to show.
func (b BreakGlass) Any() bool { return len(b.InForce) > 0 || len(b.Waiting) > 0 }

// GrantLine is one grant in words.
type GrantLine struct {
	ID     string
	Users  string // "carol, dave"
	Reason string
	// RequestedBy asked; GrantedBy granted (empty while waiting).
	RequestedBy, GrantedBy string
	SelfGranted            bool
	// Until is the expiry of a grant in force; Duration what a waiting
	// request asks for.
	Until    *time.Time
	Duration time.Duration
}

// BreakGlassOf is p's grants in force and waiting at now, oldest first.
func BreakGlassOf(p *plan.ProtectionPlan, now time.Time) BreakGlass {
	var b BreakGlass
	for _, g := range p.Status.Grants {
		line := GrantLine{ID: g.ID, Users: strings.Join(g.Users, ", "), Reason: g.Reason, RequestedBy: g.RequestedBy,
			GrantedBy: g.GrantedBy, SelfGranted: g.SelfGranted, Duration: g.Duration.Duration}
		switch g.State(now) {
		case plan.GrantInForce:
			t := g.ExpiresAt.Time
			line.Until = &t
			b.InForce = append(b.InForce, line)
		case plan.GrantRequested:
			b.Waiting = append(b.Waiting, line)
		}
	}
	return b
}
