package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/telark/protectionplans/render"
)

// Health refresh renders for the target the operator runs with (--target)
// and lists that target's policy kinds; with the wrong target every policy
// would read as missing.
func TestHealthFollowsTheTarget(t *testing.T) {
	tests := map[string]struct {
		fixture, server               render.Target
		fixtureCompact, serverCompact bool
		want                          []string
	}{
		"compact vap policies are healthy for a server told the operator runs --compact": {
			fixture: render.TargetVAP, server: render.TargetVAP, fixtureCompact: true, serverCompact: true,
			want: []string{`"healthy": true`, `"ok": 1`, `"template": "compact"`},
		},
		"compact kyverno policies are healthy for a server told the operator runs --compact": {
			fixture: render.TargetKyverno, server: render.TargetKyverno, fixtureCompact: true, serverCompact: true,
			want: []string{`"healthy": true`, `"ok": 1`, `"template": "compact"`},
		},
		"compact kyverno-cel policies read as missing, and as unexpected, for a server left per template": {
			fixture: render.TargetKyvernoCEL, server: render.TargetKyvernoCEL, fixtureCompact: true,
			want: []string{`"healthy": false`, `"missing": 3`, `"unexpected": 1`},
		},
		"vap policies are healthy for a server told the target is vap": {
			fixture: render.TargetVAP, server: render.TargetVAP,
			want: []string{`"healthy": true`, `"ok": 3`, `"target": "vap"`},
		},
		"kyverno-cel policies are healthy for a server told the target is kyverno-cel": {
			fixture: render.TargetKyvernoCEL, server: render.TargetKyvernoCEL,
			want: []string{`"healthy": true`, `"ok": 3`, `"target": "kyverno-cel"`},
		},
		"vap policies read as missing for a server left on the default target": {
			fixture: render.TargetVAP, server: "",
			want: []string{`"healthy": false`, `"missing": 3`},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, withTargets(tc.fixture, tc.server), withCompact(tc.fixtureCompact, tc.serverCompact))
			w := e.do(get("/api/v1/plans/black-friday/health", "victor")(e))
			if w.Code != http.StatusOK {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			for _, part := range tc.want {
				if !strings.Contains(w.Body.String(), part) {
					t.Errorf("the answer lacks %s:\n%s", part, w.Body)
				}
			}
		})
	}
}

func TestTargetFlag(t *testing.T) {
	var stderr strings.Builder
	if code := run([]string{"--target", "opa", "--roles", "x"}, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if got, want := stderr.String(), "protectionplans-server: --target \"opa\": not a render target (auto, kyverno, kyverno-cel, vap)\n"; got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
}
