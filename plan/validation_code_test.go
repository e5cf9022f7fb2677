package plan

import "testing"

func TestValidationError_CodeFollowsTheKindsOfProblem(t *testing.T) {
	cases := map[string]struct {
		change func(*ProtectionPlan, *ValidationEnv)
		code   int
	}{
		"a taken name alone is a conflict": {
			change: func(p *ProtectionPlan, _ *ValidationEnv) { p.Spec.Name = "Christmas freeze" }, code: 409,
		},
		"a taken name with a bad namespace is a bad request": {
			change: func(p *ProtectionPlan, _ *ValidationEnv) {
				p.Spec.Name = "Christmas freeze"
				p.Spec.Scope.Namespaces = []string{"ghost"}
			}, code: 400,
		},
		"anything with an unreadable dependency is unavailable": {
			change: func(p *ProtectionPlan, env *ValidationEnv) {
				p.Spec.Name = "Christmas freeze"
				p.Spec.Scope.Namespaces = []string{"ghost"}
				snap := testSnapshot()
				snap.ExcludedUnreadable = true
				env.Cluster = snap
			}, code: 503,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, env := holiday(), testEnv(at("Tue Dec 1 2026 10:00 UTC"))
			tc.change(p, &env)
			if got := CodeOf(Validate(p, env)); got != tc.code {
				t.Errorf("code = %d, want %d", got, tc.code)
			}
		})
	}
}
