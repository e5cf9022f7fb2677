package reconcile

import (
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// RefreshSettings are the settings of a health refresh of p: the target
// and layout p was put in place with (its status's enforcement) when it
// records them, else set's; never repairs. The embedder lists the live
// policies of the returned target.
func RefreshSettings(p *plan.ProtectionPlan, set Settings) Settings {
	if e := p.Status.Enforcement; e != nil {
		set.Target, set.Compact = render.Target(e.Target), e.Compact
	}
	set.Repair = false
	return set
}

// Refresh is a health refresh on demand (R-H3): Decide with
// RefreshSettings. Nothing it returns is to be written: the embedder
// shows Output.Health (nil when none ran) and Output.Failure, and
// answers Output.Retry as a lookup that failed.
func Refresh(in Input) Output {
	in.Settings = RefreshSettings(in.Plan, in.Settings)
	in.Carried = nil
	return Decide(in)
}
