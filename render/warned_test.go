package render

import "testing"

// TestDecision_Warned: only vap answers the requester a warning, for what
// it records ([Audit, Warn]) and never with a refusal.
func TestDecision_Warned(t *testing.T) {
	cases := map[string]struct {
		d    Decision
		want map[Target]bool
	}{
		"an audited request warns on vap only": {d: Decision{Audited: true},
			want: map[Target]bool{TargetVAP: true, TargetKyverno: false, TargetKyvernoCEL: false}},
		"an exempt request warns on vap only (its record policy audits)": {d: Decision{Exempt: true},
			want: map[Target]bool{TargetVAP: true, TargetKyverno: false, TargetKyvernoCEL: false}},
		"a refused request warns nowhere": {d: Decision{Blocked: true},
			want: map[Target]bool{TargetVAP: false, TargetKyverno: false, TargetKyvernoCEL: false}},
		"an admitted request warns nowhere": {d: Decision{},
			want: map[Target]bool{TargetVAP: false, TargetKyverno: false, TargetKyvernoCEL: false}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for target, want := range tc.want {
				if got := tc.d.Warned(target); got != want {
					t.Errorf("%s: Warned %t, want %t", target, got, want)
				}
			}
		})
	}
}
