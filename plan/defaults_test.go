package plan

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/window"
)

func TestDefaults(t *testing.T) {
	now := at("Tue Dec 1 2026 10:00 UTC").Add(2500 * time.Millisecond)
	cases := map[string]struct {
		in, want func() *ProtectionPlan
	}{
		"a permanent window without a start begins now, to the second": {
			in: func() *ProtectionPlan {
				p := holiday()
				p.Spec.Window = window.Spec{Type: window.Permanent}
				return p
			},
			want: func() *ProtectionPlan {
				p := holiday()
				p.Spec.Window = window.Spec{Type: window.Permanent, StartAt: mt("Tue Dec 1 2026 10:00 UTC")}
				p.Spec.Window.StartAt.Time = p.Spec.Window.StartAt.Add(2 * time.Second)
				return p
			},
		},
		"a recurring window without a zone is read in UTC": {
			in: func() *ProtectionPlan {
				p := nightly()
				p.Spec.Window.TimeZone = ""
				return p
			},
			want: func() *ProtectionPlan {
				p := nightly()
				p.Spec.Window.TimeZone = "UTC"
				return p
			},
		},
		"user text, mode, approval mode and parameters are left alone": {
			in: func() *ProtectionPlan {
				p := nightly()
				p.Spec.Name, p.Spec.Mode, p.Spec.ApprovalMode = "  spaced  ", "", ""
				return p
			},
			want: func() *ProtectionPlan {
				p := nightly()
				p.Spec.Name, p.Spec.Mode, p.Spec.ApprovalMode = "  spaced  ", "", ""
				return p
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := tc.in()
			Defaults(p, now)
			if diff := cmp.Diff(tc.want(), p); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			again := p.DeepCopy()
			Defaults(again, now.Add(time.Hour))
			if diff := cmp.Diff(p, again); diff != "" {
				t.Errorf("Defaults is not idempotent:\n%s", diff)
			}
		})
	}
}
