package overview

import (
	"fmt"
	"time"

	"github.com/telark/protectionplans/plan"
)

// PhaseLabel is a phase in words: "pending approval"; the other phases
// read as they are spelled.
func PhaseLabel(p plan.Phase) string {
	if p == plan.PhasePendingApproval {
		return "pending approval"
	}
	return string(p)
}

// EventLabel is a timeline event's type in words where its name is not
// ("Approval requested", "Phase changed", "Health changed").
func EventLabel(t plan.EventType) string {
	switch t {
	case plan.EventApprovalRequired:
		return "Approval requested"
	case plan.EventPhaseChanged:
		return "Phase changed"
	case plan.EventHealthChanged:
		return "Health changed"
	}
	return string(t)
}

// Done is an action a page confirms after it was carried out.
type Done string

// Actions a page confirms.
const (
	DoneApproved Done = "approved"
	DoneRejected Done = "rejected"
	DoneCanceled Done = "canceled"
	DoneReport   Done = "report"
)

// Notice is what a page says after an action was carried out; "" for an
// action it does not know.
func Notice(d Done) string {
	switch d {
	case DoneApproved:
		return "Approved. The plan follows its window now."
	case DoneRejected:
		return "Rejected. The plan is canceled."
	case DoneCanceled:
		return "Canceled. Its policies are withdrawn on the operator's next tick."
	case DoneReport:
		return "Report generated."
	}
	return ""
}

// When is an instant as pages show it: Abs in UTC to the minute
// ("Mon 2 Jan 2006 15:04 UTC"), Rel from now ("in 2h 5m", "3d 1h ago",
// "now"), and ISO (RFC 3339, UTC) for machines. The zero When is the
// zero instant: nothing to show.
type When struct {
	Abs, Rel string
	ISO      string
}

// At is t as pages show it at now.
func At(t, now time.Time) When {
	if t.IsZero() {
		return When{}
	}
	return When{Abs: t.UTC().Format("Mon 2 Jan 2006 15:04 UTC"), Rel: Relative(t, now), ISO: t.UTC().Format(time.RFC3339)}
}

// Relative is how far t is from now, to the minute under two days and to
// the hour beyond: "now" within a minute, "in 5m", "in 3h 20m",
// "2d 4h ago".
func Relative(t, now time.Time) string {
	d := t.Sub(now)
	past := d < 0
	if past {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		s = fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
	default:
		s = fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
	}
	if past {
		return s + " ago"
	}
	return "in " + s
}
