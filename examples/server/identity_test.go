package main

import (
	"net/http/httptest"
	"testing"
)

func TestIdentity(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"the proxy's user with the secret", map[string]string{HeaderSecret: testSecret, HeaderUser: "victor"}, 200},
		{"a user header without the secret is not believed", map[string]string{HeaderUser: "alice"}, 401},
		{"a wrong secret", map[string]string{HeaderSecret: testSecret + "x", HeaderUser: "alice"}, 401},
		{"the secret without a user", map[string]string{HeaderSecret: testSecret}, 401},
		{"a blank user", map[string]string{HeaderSecret: testSecret, HeaderUser: "  "}, 401},
		{"groups in one header, comma-separated", map[string]string{HeaderSecret: testSecret, HeaderUser: "zoe", HeaderGroup: "staff, auditors"}, 200},
		{"a user bound to nothing", map[string]string{HeaderSecret: testSecret, HeaderUser: "zoe", HeaderGroup: "staff"}, 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := e.do(request{method: "GET", path: "/api/v1/plans", header: c.header})
			if w.Code != c.want {
				t.Errorf("%d, want %d: %s", w.Code, c.want, w.Body)
			}
		})
	}
}

func TestTrustedListener(t *testing.T) {
	id := Identity{Mode: TrustedListener}
	for addr, ok := range map[string]bool{"127.0.0.1:8080": true, "[::1]:8080": true, "localhost:80": true, "0.0.0.0:8080": false, ":8080": false, "10.0.0.5:80": false} {
		if err := id.checkListener("tcp", addr); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := id.checkListener("unix", "/run/pp.sock"); err != nil {
		t.Error(err)
	}
	if err := (Identity{Mode: SharedSecret, Secret: []byte("short")}).Validate(); err == nil {
		t.Error("a short secret was accepted")
	}
	if err := (Identity{Mode: "anonymous"}).Validate(); err == nil {
		t.Error("an unknown mode was accepted")
	}
	// On a trusted listener the headers are believed without a secret.
	e := newEnv(t)
	e.server.Identity = Identity{Mode: TrustedListener}
	r := httptest.NewRequest("GET", "/api/v1/plans", nil)
	r.Header.Set(HeaderUser, "victor")
	w := httptest.NewRecorder()
	e.server.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Errorf("%d %s", w.Code, w.Body)
	}
}

// A browser's cross-site write is refused whatever identity the proxy
// adds (the proxy's session cookie would ride along); same-origin and
// non-browser writes pass.
func TestCrossOriginWritesRefused(t *testing.T) {
	for _, c := range []struct {
		site string
		want int
	}{{"cross-site", 403}, {"same-origin", 303}, {"", 303}} {
		e := newEnv(t)
		rq := form("/plans/black-friday/cancel", "carol")(e)
		if c.site != "" {
			rq.header = map[string]string{"Sec-Fetch-Site": c.site}
		}
		if w := e.do(rq); w.Code != c.want {
			t.Errorf("Sec-Fetch-Site %q: %d, want %d: %s", c.site, w.Code, c.want, w.Body)
		}
	}
}
