package plan

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

// DefaultTimeZone is the zone a recurring window is read in when it names
// none.
const DefaultTimeZone = "UTC"

// Defaults fills in, in place, what a plan may leave out, so that the
// stored plan says what it means. It is idempotent, and Create calls it.
//
//   - A permanent window without startAt starts at now, to the second
//     (otherwise it would be active since the beginning of time).
//   - A recurring window without timeZone is read in UTC; Defaults writes
//     "UTC" so that a reader of the stored plan need not know the default.
//
// Defaults deliberately leaves alone: user text (names and descriptions
// are stored as written; uniqueness ignores case and surrounding spaces),
// the mode (audit or enforce is a choice the author must make), the
// approval mode (derived by the approval package, which needs the
// caller's identity), and template parameters (a parameter left out takes
// the catalog's default when rendering, so a plan follows the catalog).
func Defaults(p *ProtectionPlan, now time.Time) {
	w := &p.Spec.Window
	switch w.Type {
	case window.Permanent:
		if w.StartAt == nil {
			w.StartAt = &metav1.Time{Time: now.Truncate(time.Second)}
		}
	case window.Recurring:
		if w.TimeZone == "" {
			w.TimeZone = DefaultTimeZone
		}
	}
}
