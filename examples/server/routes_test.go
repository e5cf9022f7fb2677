package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/overview"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/problem"
)

// publicOrDocument are the only routes without a permission action: the
// liveness probe and the style sheet (no identity at all), and the API's
// own description (any authenticated caller). A new route missing from
// here must name its action, or TestRouteTable fails.
var publicOrDocument = []string{"GET /healthz", "GET /static/", "GET /openapi.json"}

func routes(t *testing.T) []route {
	t.Helper()
	return newEnv(t).server.routes
}

func TestRouteTable(t *testing.T) {
	seen := map[string]bool{}
	for _, rt := range routes(t) {
		k := rt.key()
		if seen[k] {
			t.Errorf("%s is in the table twice", k)
		}
		seen[k] = true
		switch {
		case slices.Contains(publicOrDocument, k):
			if rt.Action != "" {
				t.Errorf("%s: expected no action, has %q", k, rt.Action)
			}
		case rt.Public:
			t.Errorf("%s is public: only %v may be", k, publicOrDocument)
		case !rt.Action.Valid():
			t.Errorf("%s has no permission action (%q): every route checks the permission of its action (R-A7)", k, rt.Action)
		}
		if rt.handle == nil || rt.Summary == "" || len(rt.Codes) == 0 {
			t.Errorf("%s: a route needs a handler, a summary and its codes", k)
		}
	}
	// Every action of the library is used by some route.
	for _, a := range approval.Actions() {
		if !slices.ContainsFunc(routes(t), func(rt route) bool { return rt.Action == a }) {
			t.Errorf("no route checks action %q", a)
		}
	}
}

// pathOf fills a route pattern's wildcards with names of the fixture.
func pathOf(pattern string) string {
	return strings.NewReplacer("{id}", "black-friday", "{report}", "black-friday-manual-20261117T080000Z",
		"{kind}", "tag", "{name}", "Payments", "{$}", "").Replace(pattern)
}

// TestEveryRouteChecksItsPermission walks the route table: for every
// route with an action, a caller whose roles withhold that action (an
// Owner with protection-plans.<action>.deny) gets 403, a caller without
// roles gets 403, and a caller without identity gets 401.
func TestEveryRouteChecksItsPermission(t *testing.T) {
	for _, rt := range routes(t) {
		if rt.Action == "" {
			continue
		}
		t.Run(rt.key(), func(t *testing.T) {
			e := newEnv(t)
			roles, err := approval.ParseRoleBindings([]byte(fmt.Sprintf(`
roles:
- name: deny
  permissions: [%s]
bindings:
- {role: Owner, users: [mallory, dave-owner]}
- {role: deny, users: [mallory]}
`, rt.Action.DenyPermission())))
			if err != nil {
				t.Fatal(err)
			}
			e.server.Roles = roles
			for _, c := range []struct {
				user string
				want int
			}{{"mallory", 403}, {"dave", 403}, {"", 401}} {
				rq := request{method: rt.Method, path: pathOf(rt.Pattern), user: c.user, body: "{}"}
				if !rt.API && rt.Method == "POST" {
					rq.body = "token=" + e.server.formToken(c.user)
				}
				w := e.do(rq)
				if w.Code != c.want {
					t.Fatalf("%s by %q: %d, want %d: %s", rt.key(), c.user, w.Code, c.want, w.Body)
				}
				if c.user == "mallory" && !strings.Contains(w.Body.String(), rt.Action.DenyPermission()) {
					t.Errorf("the 403 does not name the deny %s: %s", rt.Action.DenyPermission(), w.Body)
				}
			}
			// The owner without the deny gets past the permission check.
			rq := request{method: rt.Method, path: pathOf(rt.Pattern), user: "dave-owner", body: "{}"}
			if w := e.do(rq); w.Code == 401 || w.Code == 403 && strings.Contains(w.Body.String(), "withholds") {
				t.Errorf("an Owner was refused: %d %s", w.Code, w.Body)
			}
		})
	}
}

// --- Every route x its codes ---

type codeCase struct {
	name  string
	route string // the route key the request must reach
	req   func(e *env) request
	opts  []envOption
	setup func(e *env)
	want  int
	check func(t *testing.T, e *env, w *httptest.ResponseRecorder)
}

func get(path, user string) func(*env) request {
	return func(*env) request { return request{method: "GET", path: path, user: user} }
}

func send(method, path, user, body string) func(*env) request {
	return func(*env) request { return request{method: method, path: path, user: user, body: body} }
}

// form posts a dashboard form with the user's token.
func form(path, user string, fields ...string) func(*env) request {
	return func(e *env) request {
		v := url.Values{"token": {e.server.formToken(user)}}
		for i := 0; i+1 < len(fields); i += 2 {
			v.Set(fields[i], fields[i+1])
		}
		return request{method: "POST", path: path, user: user, body: v.Encode()}
	}
}

// planBody is the JSON of a plan as read, changed by mutate, with its
// metadata (name, resourceVersion) and spec.
func planBody(id, user string, mutate func(*plan.ProtectionPlan)) func(*env) request {
	return func(e *env) request {
		p := e.plan(id)
		mutate(p)
		b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": p.Name, "resourceVersion": p.ResourceVersion}, "spec": p.Spec})
		return request{method: "PUT", path: "/api/v1/plans/" + id, user: user, body: string(b)}
	}
}

const newPlanJSON = `{"apiVersion":"telark.io/v1alpha1","kind":"ProtectionPlan","metadata":{"name":"checkout-audit"},
"spec":{"name":"Checkout audit","scope":{"namespaces":["checkout"]},"templates":[{"name":"delete"}],
"window":{"type":"time_range","startAt":"2026-11-20T00:00:00Z","endAt":"2026-11-21T00:00:00Z"},"mode":"audit"}}`

var huge = `{"spec":{"description":"` + strings.Repeat("a", 1<<20) + `"}}`

func openRequestID(e *env, id string) string {
	p := e.plan(id)
	if p.Status.ApprovalRequest == nil {
		e.t.Fatalf("plan %s has no open request", id)
	}
	return p.Status.ApprovalRequest.ID
}

func decision(id, user, comment string, staleID bool) func(*env) request {
	return func(e *env) request {
		rid := openRequestID(e, id)
		if staleID {
			rid += "-old"
		}
		b, _ := json.Marshal(decisionRequest{RequestID: rid, Comment: comment})
		return request{method: "POST", path: "/api/v1/plans/" + id + "/" + map[bool]string{true: "reject", false: "approve"}[comment != ""], user: user, body: string(b)}
	}
}

func conflictOn(what string) envOption {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: plan.Group, Resource: plan.Resource}, "x", fmt.Errorf("the object has been modified"))
	f := interceptor.Funcs{}
	switch what {
	case "status":
		f.SubResourceUpdate = func(context.Context, client.Client, string, client.Object, ...client.SubResourceUpdateOption) error {
			return conflict
		}
	case "delete":
		f.Delete = func(context.Context, client.WithWatch, client.Object, ...client.DeleteOption) error { return conflict }
	case "update":
		f.Update = func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error { return conflict }
	}
	return withInterceptor(f)
}

// grantStillRequested: nothing was written by the write that lost.
func grantStillRequested(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
	t.Helper()
	gs := e.plan("black-friday").Status.Grants
	if len(gs) != 1 || gs[0].GrantedAt != nil || gs[0].RevokedAt != nil {
		t.Errorf("grants after the lost write: %+v", gs)
	}
}

// conflictOnStatusAfter lets the first n status writes through (a test's
// setup) and answers the next ones as a write that lost a race.
func conflictOnStatusAfter(n int) envOption {
	conflict := apierrors.NewConflict(schema.GroupResource{Group: plan.Group, Resource: plan.Resource}, "x", fmt.Errorf("the object has been modified"))
	var mu sync.Mutex
	return withInterceptor(interceptor.Funcs{
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			mu.Lock()
			n--
			pass := n >= 0
			mu.Unlock()
			if pass {
				return c.SubResource(sub).Update(ctx, obj, opts...)
			}
			return conflict
		},
	})
}

func seedCategories(e *env) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "telark-system", Name: CategoriesConfigMap},
		Data: map[string]string{categoriesKey: `[{"kind":"tag","name":"Payments","description":"Payment systems."}]`}}
	if err := e.client.Create(context.Background(), cm); err != nil {
		e.t.Fatal(err)
	}
}

func bodyHas(parts ...string) func(*testing.T, *env, *httptest.ResponseRecorder) {
	return func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
		for _, p := range parts {
			if !strings.Contains(w.Body.String(), p) {
				t.Errorf("the answer lacks %q:\n%.2000s", p, w.Body)
			}
		}
	}
}

func phaseIs(id string, want plan.Phase) func(*testing.T, *env, *httptest.ResponseRecorder) {
	return func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
		if got := e.plan(id).Status.Phase; got != want {
			t.Errorf("plan %s is %s, want %s", id, got, want)
		}
	}
}

// requestGrant: by asks for a grant on the Black Friday lockdown
// (black-friday-g1).
func requestGrant(by string) func(*env) {
	return func(e *env) {
		w := e.do(request{method: "POST", path: "/api/v1/plans/black-friday/grants", user: by, body: `{"reason": "INC-4711: checkout is down"}`})
		if w.Code != http.StatusCreated {
			e.t.Fatalf("requesting a grant: %d %s", w.Code, w.Body)
		}
	}
}

// grantedTo: by's request, granted by granter.
func grantedTo(by, granter string) func(*env) {
	return func(e *env) {
		requestGrant(by)(e)
		if w := e.do(request{method: "POST", path: "/api/v1/plans/black-friday/grants/black-friday-g1/grant", user: granter}); w.Code != http.StatusOK {
			e.t.Fatalf("granting: %d %s", w.Code, w.Body)
		}
	}
}

// revokedGrant: by's request, withdrawn.
func revokedGrant(by string) func(*env) {
	return func(e *env) {
		requestGrant(by)(e)
		if w := e.do(request{method: "POST", path: "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", user: by}); w.Code != http.StatusOK {
			e.t.Fatalf("revoking: %d %s", w.Code, w.Body)
		}
	}
}

func codeCases() []codeCase {
	const (
		plans    = "GET /api/v1/plans"
		create   = "POST /api/v1/plans"
		getOne   = "GET /api/v1/plans/{id}"
		edit     = "PUT /api/v1/plans/{id}"
		del      = "DELETE /api/v1/plans/{id}"
		cancel   = "POST /api/v1/plans/{id}/cancel"
		react    = "POST /api/v1/plans/{id}/reactivate"
		dup      = "POST /api/v1/plans/{id}/duplicate"
		appr     = "GET /api/v1/plans/{id}/approval"
		approve  = "POST /api/v1/plans/{id}/approve"
		reject   = "POST /api/v1/plans/{id}/reject"
		hlth     = "GET /api/v1/plans/{id}/health"
		viol     = "GET /api/v1/plans/{id}/violations"
		reports  = "GET /api/v1/reports"
		preports = "GET /api/v1/plans/{id}/reports"
		gen      = "POST /api/v1/plans/{id}/reports"
		download = "GET /api/v1/plans/{id}/reports/{report}"
		tmpl     = "GET /api/v1/templates"
		cats     = "GET /api/v1/categories"
		catNew   = "POST /api/v1/categories"
		catPut   = "PUT /api/v1/categories/{kind}/{name}"
		catDel   = "DELETE /api/v1/categories/{kind}/{name}"
		oapi     = "GET /openapi.json"
		home     = "GET /{$}"
		page     = "GET /plans/{id}"
		fApprove = "POST /plans/{id}/approve"
		fReject  = "POST /plans/{id}/reject"
		fCancel  = "POST /plans/{id}/cancel"
		fReport  = "POST /plans/{id}/reports"
		grants   = "GET /api/v1/plans/{id}/grants"
		grantReq = "POST /api/v1/plans/{id}/grants"
		grantOK  = "POST /api/v1/plans/{id}/grants/{grant}/grant"
		grantEnd = "POST /api/v1/plans/{id}/grants/{grant}/revoke"
		healthz  = "GET /healthz"
		static   = "GET /static/"
	)
	edited := func(f func(*plan.ProtectionPlan)) func(*plan.ProtectionPlan) { return f }
	holdTwoRenders := func(e *env) { e.limiter.Acquire(); e.limiter.Acquire() }
	return []codeCase{
		// Plans: list.
		{name: "every plan", route: plans, req: get("/api/v1/plans", "victor"), want: 200, check: bodyHas("black-friday", "october-audit", "production-release")},
		{name: "filtered by environment, ignoring case", route: plans, req: get("/api/v1/plans?environment=production", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				var l plan.ProtectionPlanList
				json.Unmarshal(w.Body.Bytes(), &l)
				if len(l.Items) != 2 || l.Items[0].Name != "black-friday" || l.Items[1].Name != "production-release" {
					t.Errorf("got %d plans: %+v", len(l.Items), l.Items)
				}
			}},
		{name: "filtered by tag and text", route: plans, req: get("/api/v1/plans?tag=Baseline&text=NIGHTLY", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				var l plan.ProtectionPlanList
				json.Unmarshal(w.Body.Bytes(), &l)
				if len(l.Items) != 1 || l.Items[0].Name != "nightly-image-freeze" {
					t.Errorf("got %+v", l.Items)
				}
			}},
		{name: "an unknown phase filter", route: plans, req: get("/api/v1/plans?phase=frozen", "victor"), want: 400, check: bodyHas(`"field": "phase"`)},

		// Plans: create.
		{name: "a Contributor creates an audit plan on a namespace", route: create, req: send("POST", "/api/v1/plans", "carol", newPlanJSON), want: 201,
			check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
				p := e.plan("checkout-audit")
				if p.Status.Phase != plan.PhaseScheduled || p.Spec.ApprovalMode != plan.ApprovalAutomatic || p.Annotations[plan.CreatedByAnnotation] != "carol" {
					t.Errorf("stored: phase %s, approval %s, annotations %v", p.Status.Phase, p.Spec.ApprovalMode, p.Annotations)
				}
				if w.Header().Get("Location") != "/api/v1/plans/checkout-audit" || len(p.Status.Timeline) == 0 || p.Status.Timeline[0].Actor != "carol" {
					t.Errorf("Location %q, timeline %+v", w.Header().Get("Location"), p.Status.Timeline)
				}
			}},
		{name: "YAML body, no ID: one is made from the name", route: create, want: 201,
			req: func(*env) request {
				return request{method: "POST", path: "/api/v1/plans", user: "alice", header: map[string]string{"Content-Type": "application/yaml"},
					body: "spec:\n  name: Weekend freeze\n  scope: {applications: [checkout]}\n  templates: [{name: image-change}]\n  window: {type: permanent}\n  mode: enforce\n  environment: Production\n"}
			},
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				var p plan.ProtectionPlan
				json.Unmarshal(w.Body.Bytes(), &p)
				if !strings.HasPrefix(p.Name, "weekend-freeze-") || p.Status.Phase != plan.PhasePendingApproval || p.Spec.ApprovalMode != plan.ApprovalRequired {
					t.Errorf("got %s %s %s", p.Name, p.Status.Phase, p.Spec.ApprovalMode)
				}
			}},
		{name: "a Contributor's request for automatic is ignored, with a Warning", route: create, want: 201,
			req: send("POST", "/api/v1/plans", "carol", strings.Replace(newPlanJSON, `"mode":"audit"`, `"mode":"audit","approvalMode":"automatic"`, 1)),
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if !strings.Contains(w.Header().Get("Warning"), "counts only from an Owner") {
					t.Errorf("Warning: %q", w.Header().Get("Warning"))
				}
			}},
		{name: "unknown fields, with their paths", route: create, req: send("POST", "/api/v1/plans", "alice", `{"spec":{"name":"x","scope":{"namespace":["shop"]},"colour":"red"}}`), want: 400,
			check: bodyHas(`"field": "spec.scope.namespace"`, `"field": "spec.colour"`, `"type": "UnknownField"`)},
		{name: "every validation problem with its field path", route: create, want: 400,
			req: send("POST", "/api/v1/plans", "alice", `{"metadata":{"name":"bad"},"spec":{"name":"{{ x }}","scope":{"namespaces":["telark-system","kube-system","ghost"]},
				"templates":[{"name":"teleport"}],"window":{"type":"time_range","startAt":"2026-01-01T00:00:00Z","endAt":"2026-02-01T00:00:00Z"},"mode":"audit"}}`),
			check: bodyHas(`"field": "spec.name"`, `"field": "spec.scope.namespaces[0]"`, `"field": "spec.scope.namespaces[1]"`, `"field": "spec.scope.namespaces[2]"`,
				`"field": "spec.templates[0].name"`, `"field": "spec.window.endAt"`, `"type": "FieldValueInvalid"`)},
		{name: "a Contributor may not enforce a namespace scope", route: create, req: send("POST", "/api/v1/plans", "carol", strings.Replace(newPlanJSON, `"audit"`, `"enforce"`, 1)), want: 403,
			check: bodyHas("enforcing a namespace scope needs Owner")},
		{name: "a display name taken, ignoring case and spaces", route: create, req: send("POST", "/api/v1/plans", "alice", strings.Replace(newPlanJSON, "Checkout audit", " black friday LOCKDOWN ", 1)), want: 409,
			check: bodyHas(`"type": "FieldValueDuplicate"`, `"field": "spec.name"`)},
		{name: "an ID taken", route: create, req: send("POST", "/api/v1/plans", "alice", strings.Replace(newPlanJSON, "checkout-audit", "holiday-freeze", 1)), want: 409,
			check: bodyHas("already exists")},
		{name: "a body over 1 MiB", route: create, req: send("POST", "/api/v1/plans", "alice", huge), want: 413},
		{name: "the excluded-namespace list cannot be read", route: create, opts: []envOption{withExcludedConfigMap()},
			req: send("POST", "/api/v1/plans", "alice", newPlanJSON), want: 503, check: bodyHas("excluded-namespace list")},

		// Plans: get.
		{name: "a plan, with its resourceVersion as ETag", route: getOne, req: get("/api/v1/plans/holiday-freeze", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if w.Header().Get("ETag") == "" || !strings.Contains(w.Body.String(), `"kind": "ProtectionPlan"`) {
					t.Errorf("ETag %q body %.300s", w.Header().Get("ETag"), w.Body)
				}
			}},

		// Plans: edit.
		{name: "a description edited", route: edit, req: planBody("holiday-freeze", "carol", edited(func(p *plan.ProtectionPlan) { p.Spec.Description = "Also Boxing Day." })), want: 200,
			check: func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				p := e.plan("holiday-freeze")
				last := p.Status.Timeline[len(p.Status.Timeline)-1]
				if p.Spec.Description != "Also Boxing Day." || last.Type != plan.EventEdited || last.Actor != "carol" {
					t.Errorf("description %q, last event %+v", p.Spec.Description, last)
				}
			}},
		{name: "a material edit of a pending plan opens a new request", route: edit, want: 200,
			req: planBody("production-release", "bob", edited(func(p *plan.ProtectionPlan) { p.Spec.Mode = plan.ModeAudit })),
			check: func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				p := e.plan("production-release")
				if r := p.Status.ApprovalRequest; r == nil || r.Reason != "edited" || !slices.Contains(p.Status.Proposers, "bob") {
					t.Errorf("request %+v proposers %v", r, p.Status.Proposers)
				}
			}},
		{name: "the scope type cannot change", route: edit, want: 400,
			req:   planBody("holiday-freeze", "alice", edited(func(p *plan.ProtectionPlan) { p.Spec.Scope = plan.Scope{Applications: []string{"checkout"}} })),
			check: bodyHas(`"field": "spec.scope"`)},
		{name: "a Viewer may not edit", route: edit, req: planBody("holiday-freeze", "victor", edited(func(*plan.ProtectionPlan) {})), want: 403},
		{name: "an edit based on an old read", route: edit, want: 409,
			req: func(e *env) request {
				r := planBody("holiday-freeze", "alice", edited(func(p *plan.ProtectionPlan) { p.ResourceVersion = "1" }))(e)
				r.body = strings.Replace(r.body, `"resourceVersion":"`+e.plan("holiday-freeze").ResourceVersion+`"`, `"resourceVersion":"1"`, 1)
				return r
			}, check: bodyHas("changed by someone else")},
		{name: "If-Match that is not the stored resourceVersion is 412", route: edit, want: 412,
			req: func(e *env) request {
				r := planBody("holiday-freeze", "alice", edited(func(p *plan.ProtectionPlan) { p.Spec.Description = "x" }))(e)
				r.header = map[string]string{"If-Match": `"1"`}
				return r
			}},
		{name: "a material edit of an approved plan (R-A6)", route: edit, want: 409,
			req:   planBody("black-friday", "alice", edited(func(p *plan.ProtectionPlan) { p.Spec.Mode = plan.ModeAudit })),
			check: bodyHas("duplicate the plan, or cancel and reactivate it")},
		{name: "a write that lost the race to the API server", route: edit, opts: []envOption{conflictOn("update")}, want: 409,
			req: planBody("holiday-freeze", "alice", edited(func(p *plan.ProtectionPlan) { p.Spec.Description = "x" }))},
		{name: "an edit over 1 MiB", route: edit, req: send("PUT", "/api/v1/plans/holiday-freeze", "alice", huge), want: 413},
		{name: "an edit while the excluded list cannot be read", route: edit, opts: []envOption{withExcludedConfigMap()}, want: 503,
			req: planBody("holiday-freeze", "alice", edited(func(p *plan.ProtectionPlan) { p.Spec.Description = "x" }))},

		// Plans: delete.
		{name: "a plan deleted with its reports", route: del, req: send("DELETE", "/api/v1/plans/october-audit", "alice", ""), want: 204,
			check: func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				var p plan.ProtectionPlan
				if err := e.client.Get(context.Background(), client.ObjectKey{Name: "october-audit"}, &p); !apierrors.IsNotFound(err) {
					t.Errorf("still there: %v", err)
				}
				if ms, _ := e.server.files.ListReports("october-audit"); len(ms) != 0 {
					t.Errorf("reports left: %v", ms)
				}
			}},
		{name: "an Owner whose role withholds delete", route: del, req: send("DELETE", "/api/v1/plans/october-audit", "erin", ""), want: 403, check: bodyHas("protection-plans.delete.deny")},
		{name: "a delete based on an old read (If-Match) is 412", route: del, want: 412,
			req: func(*env) request {
				return request{method: "DELETE", path: "/api/v1/plans/october-audit", user: "alice", header: map[string]string{"If-Match": `"1"`}}
			}},
		{name: "a delete that lost the race", route: del, opts: []envOption{conflictOn("delete")}, req: send("DELETE", "/api/v1/plans/october-audit", "alice", ""), want: 409},

		// Break-glass grants, on the active Black Friday lockdown.
		{name: "the grants of a plan, with their state", route: grants, setup: requestGrant("carol"), req: get("/api/v1/plans/black-friday/grants", "victor"), want: 200,
			check: bodyHas(`"id": "black-friday-g1"`, `"state": "requested"`, `"requestedBy": "carol"`)},
		{name: "a Contributor asks for a grant with a reason", route: grantReq, want: 201,
			req:   send("POST", "/api/v1/plans/black-friday/grants", "carol", `{"reason": "INC-4711: checkout is down", "duration": "30m"}`),
			check: bodyHas(`"state": "requested"`, `"users": [`, `"carol"`, `"duration": "30m0s"`)},
		{name: "a grant request without a reason", route: grantReq, want: 400,
			req: send("POST", "/api/v1/plans/black-friday/grants", "carol", `{"users": ["dave"]}`), check: bodyHas(`"field": "reason"`)},
		{name: "a grant request longer than the plan allows", route: grantReq, want: 400,
			req: send("POST", "/api/v1/plans/black-friday/grants", "carol", `{"reason": "INC-1", "duration": "5h"}`), check: bodyHas(`"field": "duration"`)},
		{name: "a grant on a plan that is not active", route: grantReq, want: 409,
			req: send("POST", "/api/v1/plans/payments-secrets/grants", "carol", `{"reason": "INC-1"}`), check: bodyHas("freezes nothing now")},
		{name: "a grant request based on an old read (If-Match) is 412", route: grantReq, want: 412,
			req: func(*env) request {
				return request{method: "POST", path: "/api/v1/plans/black-friday/grants", user: "carol", body: `{"reason": "INC-1"}`, header: map[string]string{"If-Match": `"1"`}}
			}},
		{name: "a grant request over 1 MiB", route: grantReq, req: send("POST", "/api/v1/plans/black-friday/grants", "carol", huge), want: 413},
		{name: "another Owner grants carol's request", route: grantOK, setup: requestGrant("carol"), want: 200,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/grant", "alice", ""), check: bodyHas(`"state": "in_force"`, `"grantedBy": "alice"`)},
		{name: "the requester may not grant his own", route: grantOK, setup: requestGrant("alice"), want: 403,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/grant", "alice", ""), check: bodyHas("second person")},
		{name: "an unknown grant", route: grantOK, want: 404, req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g9/grant", "alice", "")},
		{name: "a grant granted twice", route: grantOK, setup: grantedTo("carol", "alice"), want: 409,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/grant", "bob", ""), check: bodyHas("in force: it cannot be granted")},
		{name: "a grant that lost the race to a concurrent revoke", route: grantOK, setup: requestGrant("carol"), opts: []envOption{conflictOnStatusAfter(1)}, want: 409,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/grant", "alice", ""), check: grantStillRequested},
		{name: "a revoke that lost the race to a concurrent grant", route: grantEnd, setup: requestGrant("carol"), opts: []envOption{conflictOnStatusAfter(1)}, want: 409,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", "carol", ""), check: grantStillRequested},
		{name: "a grant based on an old read (If-Match) is 412", route: grantOK, setup: requestGrant("carol"), want: 412,
			req: func(*env) request {
				return request{method: "POST", path: "/api/v1/plans/black-friday/grants/black-friday-g1/grant", user: "alice", header: map[string]string{"If-Match": `"1"`}}
			}},
		{name: "the requester withdraws his request", route: grantEnd, setup: requestGrant("carol"), want: 200,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", "carol", ""), check: bodyHas(`"state": "revoked"`, `"revokedBy": "carol"`)},
		{name: "an Owner revokes a grant in force", route: grantEnd, setup: grantedTo("carol", "alice"), want: 200,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", "bob", ""), check: bodyHas(`"state": "revoked"`)},
		{name: "a Viewer may not revoke another's grant", route: grantEnd, setup: grantedTo("carol", "alice"), want: 403,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", "victor", "")},
		{name: "a grant revoked twice", route: grantEnd, setup: revokedGrant("carol"), want: 409,
			req: send("POST", "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", "alice", ""), check: bodyHas("it cannot be revoked")},
		{name: "a revoke based on an old read (If-Match) is 412", route: grantEnd, setup: requestGrant("carol"), want: 412,
			req: func(*env) request {
				return request{method: "POST", path: "/api/v1/plans/black-friday/grants/black-friday-g1/revoke", user: "carol", header: map[string]string{"If-Match": `"1"`}}
			}},

		// Lifecycle actions.
		{name: "an active plan canceled", route: cancel, req: send("POST", "/api/v1/plans/black-friday/cancel", "carol", ""), want: 200, check: phaseIs("black-friday", plan.PhaseCanceled)},
		{name: "a canceled plan cannot be canceled", route: cancel, req: send("POST", "/api/v1/plans/payments-secrets/cancel", "carol", ""), want: 409, check: bodyHas("already canceled")},
		{name: "a cancel that lost the race", route: cancel, opts: []envOption{conflictOn("status")}, req: send("POST", "/api/v1/plans/black-friday/cancel", "carol", ""), want: 409,
			check: phaseIs("black-friday", plan.PhaseActive)},
		{name: "a cancel based on an old read (If-Match) is 412", route: cancel, want: 412, check: phaseIs("black-friday", plan.PhaseActive),
			req: func(*env) request {
				return request{method: "POST", path: "/api/v1/plans/black-friday/cancel", user: "carol", header: map[string]string{"If-Match": `"1"`}}
			}},
		{name: "a reactivation based on an old read (If-Match) is 412", route: react, want: 412, check: phaseIs("payments-secrets", plan.PhaseCanceled),
			req: func(*env) request {
				return request{method: "POST", path: "/api/v1/plans/payments-secrets/reactivate", user: "carol", header: map[string]string{"If-Match": `"1"`}}
			}},
		{name: "a canceled plan reactivated", route: react, req: send("POST", "/api/v1/plans/payments-secrets/reactivate", "carol", ""), want: 200, check: phaseIs("payments-secrets", plan.PhaseActive)},
		{name: "a plan whose window ended", route: react, req: send("POST", "/api/v1/plans/october-audit/reactivate", "carol", ""), want: 400, check: bodyHas(`"field": "spec.window"`)},
		{name: "an active plan cannot be reactivated", route: react, req: send("POST", "/api/v1/plans/black-friday/reactivate", "alice", ""), want: 409},
		{name: "a plan duplicated", route: dup, req: send("POST", "/api/v1/plans/holiday-freeze/duplicate", "carol", `{"id":"holiday-freeze-2027","name":"Holiday freeze 2027"}`), want: 201,
			check: func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				p := e.plan("holiday-freeze-2027")
				if p.Spec.Name != "Holiday freeze 2027" || p.Annotations[plan.DuplicatedFromAnnotation] != "holiday-freeze" || p.Status.Phase != plan.PhaseScheduled {
					t.Errorf("copy: %s %v %s", p.Spec.Name, p.Annotations, p.Status.Phase)
				}
			}},
		{name: "a terminated plan duplicated with a new window", route: dup, want: 201,
			req: send("POST", "/api/v1/plans/october-audit/duplicate", "alice", `{"window":{"type":"time_range","startAt":"2026-12-01T00:00:00Z","endAt":"2027-01-01T00:00:00Z"}}`)},
		{name: "an invalid new ID", route: dup, req: send("POST", "/api/v1/plans/holiday-freeze/duplicate", "carol", `{"id":"Not_An_ID"}`), want: 400, check: bodyHas(`"field": "metadata.name"`)},
		{name: "a Contributor may not duplicate an enforcing namespace plan", route: dup, req: send("POST", "/api/v1/plans/black-friday/duplicate", "carol", ""), want: 403},
		{name: "a copy's ID taken", route: dup, req: send("POST", "/api/v1/plans/holiday-freeze/duplicate", "alice", `{"id":"nightly-image-freeze"}`), want: 409},
		{name: "a duplicate body over 1 MiB", route: dup, req: send("POST", "/api/v1/plans/holiday-freeze/duplicate", "alice", huge), want: 413},
		{name: "a duplicate while the excluded list cannot be read", route: dup, opts: []envOption{withExcludedConfigMap()},
			req: send("POST", "/api/v1/plans/holiday-freeze/duplicate", "alice", ""), want: 503},

		// Approval.
		{name: "who may decide", route: appr, req: get("/api/v1/plans/production-release/approval", "alice"), want: 200,
			check: bodyHas(`"deciders": [`, `"alice"`, `"bob"`, `"erin"`, `"mayDecide": true`, `"proposers": [`)},
		{name: "the creator may not decide", route: appr, req: get("/api/v1/plans/production-release/approval", "carol"), want: 200, check: bodyHas(`"mayDecide": false`)},
		{name: "an Owner approves", route: approve, req: decision("production-release", "alice", "", false), want: 200,
			check: func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				p := e.plan("production-release")
				if p.Status.Phase != plan.PhaseActive || p.Status.LastDecision == nil || p.Status.LastDecision.DecidedBy != "alice" {
					t.Errorf("phase %s decision %+v", p.Status.Phase, p.Status.LastDecision)
				}
			}},
		{name: "a decision without a request ID", route: approve, req: send("POST", "/api/v1/plans/production-release/approve", "alice", `{}`), want: 400, check: bodyHas(`"field": "requestID"`)},
		{name: "a Contributor may not approve", route: approve, req: decision("production-release", "carol", "", false), want: 403},
		{name: "a stale request ID", route: approve, req: decision("production-release", "alice", "", true), want: 409, check: bodyHas("stale decision")},
		{name: "a decision on a plan edited since it was read", route: approve, want: 409,
			req: func(e *env) request {
				b, _ := json.Marshal(decisionRequest{RequestID: openRequestID(e, "production-release"), Generation: 7})
				return request{method: "POST", path: "/api/v1/plans/production-release/approve", user: "alice", body: string(b)}
			}, check: bodyHas("edited since you read it")},
		{name: "two approvers at once: the second write loses", route: approve, opts: []envOption{conflictOn("status")}, req: decision("production-release", "alice", "", false), want: 409,
			check: phaseIs("production-release", plan.PhasePendingApproval)},
		{name: "a decision over 1 MiB", route: approve, req: send("POST", "/api/v1/plans/production-release/approve", "alice", huge), want: 413},
		{name: "an Owner rejects with a comment", route: reject, req: decision("production-release", "bob", "not during the audit", false), want: 200, check: phaseIs("production-release", plan.PhaseCanceled)},
		{name: "a rejection without a comment", route: reject, want: 400, check: bodyHas(`"field": "comment"`),
			req: func(e *env) request {
				return request{method: "POST", path: "/api/v1/plans/production-release/reject", user: "bob", body: `{"requestID":"` + openRequestID(e, "production-release") + `"}`}
			}},
		{name: "a Viewer may not reject", route: reject, req: decision("production-release", "victor", "no", false), want: 403},
		{name: "no request is open", route: reject, req: send("POST", "/api/v1/plans/black-friday/reject", "bob", `{"requestID":"x","comment":"no"}`), want: 409},
		{name: "a rejection over 1 MiB", route: reject, req: send("POST", "/api/v1/plans/production-release/reject", "bob", huge), want: 413},

		// Health, violations, reports.
		{name: "health refreshed", route: hlth, req: get("/api/v1/plans/black-friday/health", "victor"), want: 200, check: bodyHas(`"healthy": true`, `"ok": 3`)},
		{name: "a missing policy is reported, not repaired", route: hlth, want: 200,
			setup: func(e *env) {
				u := policyObject("shop", "black-friday-scaling")
				if err := e.client.Delete(context.Background(), u); err != nil {
					e.t.Fatal(err)
				}
			},
			req: get("/api/v1/plans/black-friday/health", "victor"), check: bodyHas(`"healthy": false`, `"missing": 1`, `"state": "missing"`)},
		{name: "the feed, newest first: the live event, then the ledger", route: viol, req: get("/api/v1/plans/black-friday/violations", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				var f overview.Feed
				json.Unmarshal(w.Body.Bytes(), &f)
				if len(f.Items) != 4 || f.Items[0].Source != "event" || f.Items[0].Resource.Name != "storefront" || f.Items[3].Key != "k1" || f.NextCursor != "" {
					t.Errorf("feed: %+v", f)
				}
			}},
		{name: "the feed in pages of two", route: viol, req: get("/api/v1/plans/black-friday/violations?limit=2", "alice"), want: 200,
			check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
				var f overview.Feed
				json.Unmarshal(w.Body.Bytes(), &f)
				if len(f.Items) != 2 || f.NextCursor == "" {
					t.Fatalf("first page: %+v", f)
				}
				w2 := e.do(request{method: "GET", path: "/api/v1/plans/black-friday/violations?limit=2&cursor=" + f.NextCursor, user: "alice"})
				var f2 overview.Feed
				json.Unmarshal(w2.Body.Bytes(), &f2)
				if len(f2.Items) != 2 || f2.NextCursor != "" || f2.Items[1].Key != "k1" {
					t.Errorf("second page: %+v", f2)
				}
			}},
		{name: "a custom role by group reads the feed", route: viol, want: 200,
			req: func(*env) request {
				return request{method: "GET", path: "/api/v1/plans/black-friday/violations", user: "zoe", groups: []string{"auditors"}}
			}},
		{name: "a bad page size", route: viol, req: get("/api/v1/plans/black-friday/violations?limit=lots", "victor"), want: 400, check: bodyHas(`"field": "limit"`)},
		{name: "a cursor this feed did not write", route: viol, req: get("/api/v1/plans/black-friday/violations?cursor=bogus", "victor"), want: 400},
		{name: "every report", route: reports, req: get("/api/v1/reports", "victor"), want: 200, check: bodyHas("october-audit-end-20261101T000031Z", "payments-secrets-cancel-", "black-friday-manual-")},
		{name: "reports filtered by trigger and environment", route: reports, req: get("/api/v1/reports?trigger=end&environment=development", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				var l reportList
				json.Unmarshal(w.Body.Bytes(), &l)
				if len(l.Items) != 1 || l.Items[0].Plan != "october-audit" || !l.Items[0].Final {
					t.Errorf("got %+v", l.Items)
				}
			}},
		{name: "reports filtered by date", route: reports, req: get("/api/v1/reports?from=2026-11-14&to=2026-11-18T00:00:00Z", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				var l reportList
				json.Unmarshal(w.Body.Bytes(), &l)
				if len(l.Items) != 2 {
					t.Errorf("got %+v", l.Items)
				}
			}},
		{name: "an unknown trigger", route: reports, req: get("/api/v1/reports?trigger=weekly", "victor"), want: 400, check: bodyHas(`"field": "trigger"`)},
		{name: "a plan's reports", route: preports, req: get("/api/v1/plans/black-friday/reports", "victor"), want: 200, check: bodyHas("black-friday-manual-20261117T080000Z")},
		{name: "a bad date", route: preports, req: get("/api/v1/plans/black-friday/reports?from=yesterday", "victor"), want: 400},
		{name: "a report generated on demand", route: gen, req: send("POST", "/api/v1/plans/black-friday/reports", "victor", ""), want: 201,
			check: func(t *testing.T, e *env, w *httptest.ResponseRecorder) {
				var v reportView
				json.Unmarshal(w.Body.Bytes(), &v)
				if v.ID != "black-friday-manual-20261118T120000Z" {
					t.Fatalf("report %+v", v)
				}
				d := e.do(request{method: "GET", path: v.Downloads["csv"], user: "victor"})
				if d.Code != 200 || !strings.Contains(d.Body.String(), "storefront") || strings.Count(d.Body.String(), "\r\n") != 5 {
					t.Errorf("CSV %d:\n%s", d.Code, d.Body)
				}
			}},
		{name: "a report of a plan that has not started", route: gen, req: send("POST", "/api/v1/plans/holiday-freeze/reports", "victor", ""), want: 409, check: bodyHas("waiting for its window")},
		{name: "a third render at a time", route: gen, setup: holdTwoRenders, req: send("POST", "/api/v1/plans/black-friday/reports", "victor", ""), want: 429,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if w.Header().Get("Retry-After") != "5" {
					t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
				}
			}},
		{name: "a report as HTML", route: download, req: get("/api/v1/plans/october-audit/reports/october-audit-end-20261101T000031Z?format=html", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") || !strings.Contains(w.Body.String(), "October baseline audit") {
					t.Errorf("%s %.200s", w.Header().Get("Content-Type"), w.Body)
				}
			}},
		{name: "a report as JSON by default", route: download, req: get("/api/v1/plans/october-audit/reports/october-audit-end-20261101T000031Z", "victor"), want: 200, check: bodyHas(`"schemaVersion": 1`)},
		{name: "an unknown format", route: download, req: get("/api/v1/plans/october-audit/reports/october-audit-end-20261101T000031Z?format=pdf", "victor"), want: 400, check: bodyHas(`"field": "format"`)},
		{name: "a report of another plan", route: download, req: get("/api/v1/plans/black-friday/reports/october-audit-end-20261101T000031Z", "victor"), want: 404},
		{name: "a path in the report ID", route: download, req: get("/api/v1/plans/black-friday/reports/..%2F..%2Fetc%2Fpasswd", "victor"), want: 404},

		// Catalog and categories.
		{name: "the template catalog", route: tmpl, req: get("/api/v1/templates", "victor"), want: 200, check: bodyHas(`"name": "image-change"`, `"name": "all-writes"`)},
		{name: "the categories", route: cats, req: get("/api/v1/categories", "victor"), want: 200, check: bodyHas(`"name": "Production"`, `"name": "Baseline"`)},
		{name: "a tag added", route: catNew, req: send("POST", "/api/v1/categories", "alice", `{"kind":"tag","name":"Payments"}`), want: 201,
			check: func(t *testing.T, e *env, _ *httptest.ResponseRecorder) {
				if w := e.do(request{method: "GET", path: "/api/v1/categories", user: "victor"}); !strings.Contains(w.Body.String(), "Payments") {
					t.Errorf("not listed: %s", w.Body)
				}
			}},
		{name: "a bad category name", route: catNew, req: send("POST", "/api/v1/categories", "alice", `{"kind":"tag","name":"a<b>"}`), want: 400, check: bodyHas(`"field": "category.name"`)},
		{name: "a Contributor may not add categories", route: catNew, req: send("POST", "/api/v1/categories", "carol", `{"kind":"tag","name":"x"}`), want: 403},
		{name: "a name taken, ignoring case", route: catNew, req: send("POST", "/api/v1/categories", "alice", `{"kind":"tag","name":"compliance"}`), want: 409},
		{name: "two writers of the categories at once", route: catNew, setup: seedCategories, opts: []envOption{conflictOn("update")}, req: send("POST", "/api/v1/categories", "alice", `{"kind":"tag","name":"Retail"}`), want: 409},
		{name: "a category body over 1 MiB", route: catNew, req: send("POST", "/api/v1/categories", "alice", huge), want: 413},
		{name: "a tag renamed", route: catPut, setup: seedCategories, req: send("PUT", "/api/v1/categories/tag/Payments", "alice", `{"name":"Payments team","description":"Payments."}`), want: 200, check: bodyHas("Payments team")},
		{name: "a built-in cannot change", route: catPut, req: send("PUT", "/api/v1/categories/environment/Production", "alice", `{"name":"Prod"}`), want: 400},
		{name: "an unknown tag", route: catPut, req: send("PUT", "/api/v1/categories/tag/Nope", "alice", `{"name":"x"}`), want: 404},
		{name: "a rename onto another tag", route: catPut, setup: seedCategories, req: send("PUT", "/api/v1/categories/tag/Payments", "alice", `{"name":"Security"}`), want: 409},
		{name: "a rename over 1 MiB", route: catPut, req: send("PUT", "/api/v1/categories/tag/Payments", "alice", huge), want: 413},
		{name: "a tag deleted", route: catDel, setup: seedCategories, req: send("DELETE", "/api/v1/categories/tag/Payments", "alice", ""), want: 204},
		{name: "a built-in cannot be deleted", route: catDel, req: send("DELETE", "/api/v1/categories/tag/Compliance", "alice", ""), want: 400},
		{name: "an unknown kind", route: catDel, req: send("DELETE", "/api/v1/categories/colour/Red", "alice", ""), want: 404},
		{name: "a delete of the categories that lost the race", route: catDel, setup: seedCategories, opts: []envOption{conflictOn("update")}, req: send("DELETE", "/api/v1/categories/tag/Payments", "alice", ""), want: 409},
		{name: "the OpenAPI document", route: oapi, req: get("/openapi.json", "dave"), want: 200, check: bodyHas(`"openapi": "3.0.3"`)},

		// Dashboard.
		{name: "the plans page", route: home, req: get("/", "victor"), want: 200, check: bodyHas("Black Friday lockdown", "Business-hours freeze (payments)", "pending approval")},
		{name: "the plans page filtered", route: home, req: get("/?environment=Staging&tag=Security", "victor"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if !strings.Contains(w.Body.String(), "Payment secrets rotation freeze") || strings.Contains(w.Body.String(), "Nightly image freeze</a>") {
					t.Errorf("filter not applied")
				}
			}},
		{name: "the plans page with a bad filter", route: home, req: get("/?phase=frozen", "victor"), want: 400, check: bodyHas("unknown phase")},
		{name: "a grant in force shows as a banner on the plan's page", route: page, setup: grantedTo("carol", "alice"), req: get("/plans/black-friday", "victor"), want: 200,
			check: bodyHas("Break-glass in force:", "carol exempt from this plan until", "granted by alice", "INC-4711: checkout is down")},
		{name: "a request waiting for a second person shows, its reason escaped", route: page, want: 200,
			setup: func(e *env) {
				if w := e.do(request{method: "POST", path: "/api/v1/plans/black-friday/grants", user: "carol", body: `{"reason": "<script>alert(1)</script> INC-9"}`}); w.Code != http.StatusCreated {
					e.t.Fatalf("%d %s", w.Code, w.Body)
				}
			},
			req: get("/plans/black-friday", "victor"), check: bodyHas("Waiting for a second person:", "&lt;script&gt;alert(1)&lt;/script&gt; INC-9")},
		{name: "a pending plan shows the buttons to an approver", route: page, req: get("/plans/production-release", "alice"), want: 200,
			check: bodyHas(`action="/plans/production-release/approve"`, `action="/plans/production-release/reject"`, `name="token"`)},
		{name: "no buttons for the creator", route: page, req: get("/plans/production-release", "carol"), want: 200,
			check: func(t *testing.T, _ *env, w *httptest.ResponseRecorder) {
				if strings.Contains(w.Body.String(), "/approve") {
					t.Error("the creator is shown the approve button")
				}
				bodyHas("You cannot decide it")(t, nil, w)
			}},
		{name: "the active plan's page: timeline, violations, reports", route: page, req: get("/plans/black-friday?health=refresh", "alice"), want: 200,
			check: bodyHas("Timeline", "Blocked", "storefront", "black-friday-manual-20261117T080000Z", "Health, refreshed", "Generate a report now")},
		{name: "approve form", route: fApprove, want: 303,
			req: func(e *env) request {
				return form("/plans/production-release/approve", "alice", "requestID", openRequestID(e, "production-release"), "generation", "1")(e)
			}, check: phaseIs("production-release", plan.PhaseActive)},
		{name: "approve form without a request ID", route: fApprove, req: form("/plans/production-release/approve", "alice"), want: 400},
		{name: "approve form with a forged token", route: fApprove, want: 403,
			req: func(e *env) request {
				return request{method: "POST", path: "/plans/production-release/approve", user: "alice", body: "token=" + e.server.formToken("mallory") + "&requestID=" + openRequestID(e, "production-release")}
			}, check: phaseIs("production-release", plan.PhasePendingApproval)},
		{name: "approve form for an older version", route: fApprove, want: 409,
			req: func(e *env) request {
				return form("/plans/production-release/approve", "alice", "requestID", openRequestID(e, "production-release"), "generation", "9")(e)
			}},
		{name: "reject form", route: fReject, want: 303,
			req: func(e *env) request {
				return form("/plans/production-release/reject", "bob", "requestID", openRequestID(e, "production-release"), "comment", "Too wide")(e)
			}, check: phaseIs("production-release", plan.PhaseCanceled)},
		{name: "reject form without a comment", route: fReject, want: 400,
			req: func(e *env) request {
				return form("/plans/production-release/reject", "bob", "requestID", openRequestID(e, "production-release"))(e)
			}},
		{name: "reject form on a stale request", route: fReject, req: form("/plans/production-release/reject", "bob", "requestID", "old", "comment", "x"), want: 409},
		{name: "cancel form", route: fCancel, req: form("/plans/black-friday/cancel", "carol"), want: 303, check: phaseIs("black-friday", plan.PhaseCanceled)},
		{name: "cancel form on a canceled plan", route: fCancel, req: form("/plans/payments-secrets/cancel", "carol"), want: 409},
		{name: "report form", route: fReport, req: form("/plans/black-friday/reports", "victor"), want: 303},
		{name: "report form before the plan started", route: fReport, req: form("/plans/holiday-freeze/reports", "victor"), want: 409},
		{name: "report form, third render", route: fReport, setup: holdTwoRenders, req: form("/plans/black-friday/reports", "victor"), want: 429},
		{name: "liveness without identity", route: healthz, req: get("/healthz", ""), want: 200},
		{name: "the style sheet without identity", route: static, req: get("/static/style.css", ""), want: 200},
		{name: "no such asset", route: static, req: get("/static/nope.js", ""), want: 404},
	}
}

func policyObject(ns, name string) client.Object {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "kyverno.io", Version: "v1", Kind: "Policy"})
	u.SetNamespace(ns)
	u.SetName(name)
	return u
}

// TestRouteCodes runs every case, then proves that every code of every
// route in the table was answered by some case (401, 403 and 404 are
// proved for every route by generated cases).
func TestRouteCodes(t *testing.T) {
	table := routes(t)
	mux := http.NewServeMux()
	for _, rt := range table {
		mux.Handle(rt.key(), http.NotFoundHandler())
	}
	covered := map[string]map[int]bool{}
	run := func(c codeCase) {
		t.Run(c.route+"/"+c.name, func(t *testing.T) {
			e := newEnv(t, c.opts...)
			if c.setup != nil {
				c.setup(e)
			}
			rq := c.req(e)
			probe := httptest.NewRequest(rq.method, rq.path, nil)
			if _, pattern := mux.Handler(probe); pattern != c.route {
				t.Fatalf("%s %s reaches %q, not %q", rq.method, rq.path, pattern, c.route)
			}
			w := e.do(rq)
			if w.Code != c.want {
				t.Fatalf("%s %s as %q: %d, want %d\n%.3000s\n%s", rq.method, rq.path, rq.user, w.Code, c.want, w.Body, e.log)
			}
			if w.Code >= 400 && strings.Contains(c.route, " /api/") {
				if ct := w.Header().Get("Content-Type"); ct != problem.ContentType {
					t.Errorf("Content-Type %q, want %q", ct, problem.ContentType)
				}
				if w.Code == 401 && w.Header().Get("WWW-Authenticate") == "" {
					t.Error("a 401 without WWW-Authenticate")
				}
				var p problem.Document
				if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Code != w.Code || p.Message == "" {
					t.Errorf("not a problem body: %s", w.Body)
				}
			}
			if c.check != nil {
				c.check(t, e, w)
			}
			if covered[c.route] == nil {
				covered[c.route] = map[int]bool{}
			}
			covered[c.route][c.want] = true
		})
	}
	for _, c := range codeCases() {
		run(c)
	}
	// Generated: no identity (401), no role (403), no such plan (404).
	for _, rt := range table {
		if rt.Public {
			continue
		}
		method, path := rt.Method, pathOf(rt.Pattern)
		body := "{}"
		if !rt.API && method == "POST" {
			body = "token=x"
		}
		run(codeCase{name: "no identity", route: rt.key(), req: send(method, path, "", body), want: 401})
		if rt.Action != "" {
			run(codeCase{name: "no role", route: rt.key(), req: send(method, path, "dave", body), want: 403})
		}
		if slices.Contains(rt.Codes, 415) {
			run(codeCase{name: "a body that is neither JSON nor YAML", route: rt.key(), want: 415, check: bodyHas("application/json or application/yaml"),
				req: func(*env) request {
					return request{method: method, path: path, user: "alice", body: "{}", header: map[string]string{"Content-Type": "text/plain"}}
				}})
		}
		if slices.Contains(rt.Codes, 404) && strings.Contains(rt.Pattern, "{id}") {
			run(codeCase{name: "no such plan", route: rt.key(), want: 404,
				req: func(e *env) request {
					rq := request{method: method, path: strings.Replace(path, "black-friday", "ghost", 1), user: "alice", body: "{}"}
					if strings.HasSuffix(path, "/approve") || strings.HasSuffix(path, "/reject") {
						rq.body = `{"requestID":"x","comment":"x"}`
					}
					if !rt.API && method == "POST" {
						rq.body = "token=" + e.server.formToken("alice") + "&requestID=x&comment=x"
					}
					return rq
				}})
		}
	}
	if t.Failed() {
		return
	}
	for _, rt := range table {
		for _, code := range rt.Codes {
			if !covered[rt.key()][code] {
				t.Errorf("%s declares %d, but no test case answered it", rt.key(), code)
			}
		}
		for code := range covered[rt.key()] {
			if !slices.Contains(rt.Codes, code) {
				t.Errorf("%s answered %d, which its codes do not list", rt.key(), code)
			}
		}
	}
}
