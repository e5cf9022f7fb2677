package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/examples/internal/kube"
	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
)

// Config is everything the server needs. main fills it from flags; tests
// fill it with a fake client and a fixed clock.
type Config struct {
	// Client reads and writes the cluster: plans, their status, the
	// categories ConfigMap, namespaces, workloads, policies and events.
	Client client.Client
	// Now is the clock (time.Now in main). The library never reads a
	// clock; the server passes this instant into it.
	Now func() time.Time
	// Identity says when the proxy's identity headers are believed.
	Identity Identity
	// Roles maps users and groups to roles.
	Roles *approval.RoleBindings
	// ReleaseNamespace is where the product runs: plans may not freeze
	// it, and the categories ConfigMap lives there.
	ReleaseNamespace string
	// Excluded are the namespaces plans may not target.
	Excluded ExcludedNamespaces
	// ReportsDir is the reports directory shared with the operator (each
	// plan's ledger, health samples and reports; see internal/store).
	// Empty: no reports, and the feed shows live events only.
	ReportsDir string
	// Approval is the approval configuration (the default mode).
	Approval approval.Config
	// Target is the render target the operator runs with (its --target):
	// health refresh renders for it and lists its policy kinds. Empty
	// means render's default; render.TargetAuto is chosen at New from
	// what the cluster serves, as the operator chooses (the command's
	// default).
	Target render.Target
	// Compact is the operator's --compact: health refresh renders the
	// compact layout.
	Compact bool
	// Limiter bounds concurrent report renders (report.NewLimiter()).
	Limiter *report.Limiter
	// TrustedOrigins are origins (scheme://host[:port]) allowed to send
	// cross-origin writes, e.g. the proxy's public origin when it does not
	// forward the Sec-Fetch-Site header.
	TrustedOrigins []string
	// Log receives what the server cannot show its callers.
	Log *slog.Logger
}

// CategoriesConfigMap is the ConfigMap, in the release namespace, that
// stores the custom categories (key categoriesKey, a JSON list).
const (
	CategoriesConfigMap = kube.DefaultCategoriesConfigMap
	categoriesKey       = kube.CategoriesKey
)

// Server is the Protection plans API and its dashboard.
type Server struct {
	Config
	// cluster reads the facts validation, render and the feed depend on.
	cluster    *kube.Reader
	categories types.NamespacedName
	// files is the reports directory; nil without one.
	files *store.FS
	// formKey signs the dashboard's form tokens (per process).
	formKey []byte
	routes  []route
	handler http.Handler
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	switch {
	case cfg.Client == nil:
		return nil, errors.New("server: no client")
	case cfg.Roles == nil:
		return nil, errors.New("server: no roles")
	case cfg.ReleaseNamespace == "":
		return nil, errors.New("server: no release namespace")
	}
	if err := cfg.Identity.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Limiter == nil {
		cfg.Limiter = report.NewLimiter()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Target == render.TargetAuto {
		// Resolved here, not in the command, so that an embedder (and the
		// end-to-end tests) passing no target choose as --target=auto does.
		choice, err := kube.ResolveTarget(cfg.Client.RESTMapper(), cfg.Target)
		if err != nil {
			return nil, fmt.Errorf("server: target auto: %w", err)
		}
		cfg.Target = choice.Target
		cfg.Log.Info("render target chosen", "target", choice.Target, "reason", choice.Reason)
	}
	facts := kube.Facts{ReleaseNamespace: cfg.ReleaseNamespace, Excluded: cfg.Excluded}
	s := &Server{
		Config:     cfg,
		cluster:    kube.New(cfg.Client, facts),
		categories: facts.CategoriesRef(),
		formKey:    make([]byte, 32),
	}
	rand.Read(s.formKey)
	if cfg.ReportsDir != "" {
		s.files = store.New(cfg.ReportsDir, store.OnRecovered(func(planID, file string, cause error) {
			s.Log.Error("a plan file was unreadable; its previous generation replaces it", "plan", planID, "file", file, "err", cause)
		}))
	}
	s.routes = s.routeTable()
	h, err := s.buildHandler()
	if err != nil {
		return nil, err
	}
	s.handler = h
	return s, nil
}

// ServeHTTP serves the API, the dashboard and the OpenAPI document.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// buildHandler registers every route of the table on one mux, each behind
// the identity and permission checks, and wraps the mux in the
// cross-origin protection (CSRF) of net/http: a browser's cross-site
// write is refused with 403 whatever its cookies or proxy session.
func (s *Server) buildHandler() (http.Handler, error) {
	mux := http.NewServeMux()
	methods := map[string][]string{}
	for _, rt := range s.routes {
		mux.Handle(rt.Method+" "+rt.Pattern, s.guard(rt))
		methods[rt.Pattern] = append(methods[rt.Pattern], rt.Method)
	}
	// A path the table serves, asked with another method, is 405 with
	// Allow; any other path is 404; both as the route's kind answers
	// (a problem for the API, a page for the dashboard).
	for pattern, ms := range methods {
		if slices.Contains(ms, "GET") {
			ms = append(ms, "HEAD")
		}
		allow := strings.Join(ms, ", ")
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			s.failFor(r)(w, r, errorf(http.StatusMethodNotAllowed, "%s is not served at %s; it answers %s", r.Method, r.URL.Path, allow))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.failFor(r)(w, r, errorf(http.StatusNotFound, "nothing is served at %s", r.URL.Path))
	})
	cop := http.NewCrossOriginProtection()
	for _, o := range s.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, err
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, errorf(http.StatusForbidden,
			"cross-origin write refused: this server accepts writes from its own pages and from non-browser clients only"))
	}))
	return cop.Handler(mux), nil
}

// guard runs before every handler: it caps the body at 1 MiB, and for a
// route that is not public it authenticates the caller (401) and checks
// the route's action without a target (403). Handlers that act on a plan
// check the action again with the plan (approval.Authorize), which adds
// the rules that depend on it (enforcing a namespace scope needs Owner).
func (s *Server) guard(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, plan.DefaultMaxBodyBytes)
		}
		fail := s.failFor(r)
		if rt.Public {
			rt.handle(w, r)
			return
		}
		user, groups, err := s.Identity.authenticate(r)
		if err != nil {
			fail(w, r, err)
			return
		}
		caller := s.Roles.Caller(user, groups)
		r = r.WithContext(withCaller(r.Context(), caller))
		if rt.Action != "" {
			if err := approval.Authorize(caller, rt.Action, nil); err != nil {
				fail(w, r, err)
				return
			}
		}
		rt.handle(w, r)
	})
}

// failFor is how a request's errors are answered: a problem for the API
// (and its document), a page for the dashboard.
func (s *Server) failFor(r *http.Request) func(http.ResponseWriter, *http.Request, error) {
	if p := r.URL.Path; strings.HasPrefix(p, "/api/") || p == "/openapi.json" {
		return s.writeError
	}
	return s.dashboardError
}

// now is the instant of this request, to the second (the times the
// library records are stored to the second by Kubernetes anyway).
func (s *Server) now() time.Time { return s.Now().UTC().Truncate(time.Second) }
