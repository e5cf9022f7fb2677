package approval

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// at parses a readable time such as "Thu Dec 24 2026 22:00 Europe/Berlin".
func at(s string) time.Time {
	i := strings.LastIndexByte(s, ' ')
	loc, err := time.LoadLocation(s[i+1:])
	if err != nil {
		panic(err)
	}
	t, err := time.ParseInLocation("Mon Jan 2 2006 15:04", s[:i], loc)
	if err != nil {
		panic(err)
	}
	return t
}

func mt(s string) *metav1.Time { return &metav1.Time{Time: at(s)} }

var (
	carol  = owner("carol") // creates plans
	olivia = owner("olivia")
	oscar  = owner("oscar")
	rita   = owner("rita") // reactivates plans
	dave   = owner("dave") // edits plans
	carl   = Caller{Username: "carl", Roles: []Role{Contributor()}}

	created = at("Tue Dec 1 2026 10:00 UTC")
)

// holidayFreeze is a Production plan freezing checkout's images from
// Thu Dec 24 2026 18:00 to Sun Dec 27 2026 06:00 Berlin, as a client sends
// it (no approval mode, no status).
func holidayFreeze() *plan.ProtectionPlan {
	return &plan.ProtectionPlan{
		ObjectMeta: metav1.ObjectMeta{Name: "holiday"},
		Spec: plan.Spec{
			Name:      "Holiday freeze",
			Scope:     plan.Scope{Applications: []string{"checkout"}},
			Templates: []plan.TemplateRef{{Name: "image-change"}},
			Window: window.Spec{Type: window.TimeRange,
				StartAt: mt("Thu Dec 24 2026 18:00 Europe/Berlin"),
				EndAt:   mt("Sun Dec 27 2026 06:00 Europe/Berlin")},
			Mode:        plan.ModeEnforce,
			Environment: "Production",
		},
	}
}

// createRequired derives the mode of holidayFreeze for by and creates it
// at created: it waits for approval with by as its proposer.
func createRequired(t *testing.T, by Caller) *plan.ProtectionPlan {
	t.Helper()
	p := holidayFreeze()
	md, err := DeriveMode("", p.Spec.Environment, by, Config{})
	require.NoError(t, err)
	p.Spec.ApprovalMode = md.Mode
	res, err := plan.Create(p, by.Username, created)
	require.NoError(t, err)
	require.Equal(t, plan.PhasePendingApproval, res.Plan.Status.Phase)
	return res.Plan
}

func requestID(p *plan.ProtectionPlan) string {
	if p.Status.ApprovalRequest == nil {
		return ""
	}
	return p.Status.ApprovalRequest.ID
}

func eventTypes(evs []plan.TimelineEvent) []plan.EventType {
	var out []plan.EventType
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}
