package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/telark/protectionplans/approval"
)

// Identity headers of the Kubernetes front-proxy convention (the names
// kube-apiserver's --requestheader-username-headers and
// --requestheader-group-headers usually get), and the header that carries
// the shared secret.
const (
	HeaderUser   = "X-Remote-User"
	HeaderGroup  = "X-Remote-Group"
	HeaderSecret = "X-Proxy-Secret"
)

// IdentityMode says when the identity headers are believed.
type IdentityMode string

const (
	// TrustedListener believes the headers of every request: the server
	// listens only where the authenticating proxy can reach it (a unix
	// socket, or a loopback address on the proxy's host). main refuses to
	// start in this mode on any other address.
	TrustedListener IdentityMode = "trusted-listener"
	// SharedSecret believes the headers only of a request whose
	// X-Proxy-Secret equals the secret (compared in constant time). The
	// proxy adds the header; it must strip the identity headers and the
	// secret header of the requests it forwards.
	SharedSecret IdentityMode = "shared-secret"
)

// Identity authenticates requests from the headers an authenticating proxy
// sets. There are no anonymous requests: a request without a believable
// user gets 401 everywhere except /healthz and the static assets.
type Identity struct {
	Mode IdentityMode
	// Secret is the shared secret (SharedSecret mode only).
	Secret []byte
}

// errUnauthenticated is the 401 of a request without a believable user.
var errUnauthenticated = errorf(http.StatusUnauthorized,
	"no authenticated user: this server trusts the "+HeaderUser+" header of its authenticating proxy only")

// Validate checks the configuration.
func (id Identity) Validate() error {
	switch id.Mode {
	case TrustedListener:
		if len(id.Secret) > 0 {
			return errors.New("identity: a shared secret is set but the mode is " + string(TrustedListener))
		}
	case SharedSecret:
		if len(id.Secret) < 16 {
			return fmt.Errorf("identity: the shared secret is %d bytes; use at least 16 (e.g. openssl rand -hex 32)", len(id.Secret))
		}
	default:
		return fmt.Errorf("identity: unknown mode %q (use %q or %q)", id.Mode, TrustedListener, SharedSecret)
	}
	return nil
}

// authenticate returns the user and groups of r, or errUnauthenticated.
func (id Identity) authenticate(r *http.Request) (user string, groups []string, err error) {
	if id.Mode == SharedSecret {
		got := r.Header.Get(HeaderSecret)
		if subtle.ConstantTimeCompare([]byte(got), id.Secret) != 1 {
			return "", nil, errUnauthenticated
		}
	}
	user = strings.TrimSpace(r.Header.Get(HeaderUser))
	if user == "" {
		return "", nil, errUnauthenticated
	}
	for _, v := range r.Header.Values(HeaderGroup) {
		// A proxy may send one header per group or a comma-separated list.
		for _, g := range strings.Split(v, ",") {
			if g = strings.TrimSpace(g); g != "" {
				groups = append(groups, g)
			}
		}
	}
	return user, groups, nil
}

// checkListener refuses, in TrustedListener mode, an address anyone but a
// local proxy could reach.
func (id Identity) checkListener(network, addr string) error {
	if id.Mode != TrustedListener || network == "unix" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return nil
	}
	return fmt.Errorf("identity mode %s trusts every request's %s header, so the server must listen on a unix socket or a loopback address, not %q; use --identity=%s to listen elsewhere",
		TrustedListener, HeaderUser, addr, SharedSecret)
}

type callerKey struct{}

// withCaller stores the caller in the request's context.
func withCaller(ctx context.Context, c approval.Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf returns the caller stored by the identity middleware.
func callerOf(r *http.Request) approval.Caller {
	c, _ := r.Context().Value(callerKey{}).(approval.Caller)
	return c
}
