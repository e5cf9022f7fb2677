package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/problem"
)

// TestUnservedRequests: a path no route serves is 404 and a served path
// asked with another method is 405 with Allow, each answered as its side
// answers (a problem for the API, a page for the dashboard), never the
// mux's text/plain.
func TestUnservedRequests(t *testing.T) {
	e := newEnv(t)
	cases := map[string]struct {
		method, path string
		want         int
		api          bool
		allow        string
	}{
		"an unknown API path is a 404 problem":        {method: "GET", path: "/api/v1/nothing", want: 404, api: true},
		"an unknown API version is a 404 problem":     {method: "GET", path: "/api/v2/plans", want: 404, api: true},
		"PATCH of a plan is a 405 problem naming PUT": {method: "PATCH", path: "/api/v1/plans/holiday-freeze", want: 405, api: true, allow: "GET, PUT, DELETE, HEAD"},
		"GET of an action is 405: it answers POST":    {method: "GET", path: "/api/v1/plans/holiday-freeze/cancel", want: 405, api: true, allow: "POST"},
		"DELETE of the plan list is 405":              {method: "DELETE", path: "/api/v1/plans", want: 405, api: true, allow: "GET, POST, HEAD"},
		"POST to the OpenAPI document is 405":         {method: "POST", path: "/openapi.json", want: 405, api: true, allow: "GET, HEAD"},
		"an unknown page is a 404 page":               {method: "GET", path: "/nothing/here", want: 404},
		"GET of a dashboard form is a 405 page":       {method: "GET", path: "/plans/holiday-freeze/cancel", want: 405, allow: "POST"},
		"POST to the plans page is a 405 page":        {method: "POST", path: "/", want: 405, allow: "GET, HEAD"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := e.do(request{method: tc.method, path: tc.path, user: "alice"})
			if w.Code != tc.want {
				t.Fatalf("%s %s: %d, want %d\n%s", tc.method, tc.path, w.Code, tc.want, w.Body)
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			ct := w.Header().Get("Content-Type")
			if !tc.api {
				if !strings.HasPrefix(ct, "text/html") {
					t.Errorf("Content-Type %q, want a page", ct)
				}
				return
			}
			if ct != problem.ContentType {
				t.Fatalf("Content-Type %q, want %s", ct, problem.ContentType)
			}
			var doc problem.Document
			if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Code != tc.want || doc.Message == "" {
				t.Errorf("problem %+v", doc)
			}
		})
	}
}

// TestPlanListPages walks the plan list page by page, as kubectl and
// client-go's pager do, and finds every plan once, in the order of the
// unpaged list.
func TestPlanListPages(t *testing.T) {
	e := newEnv(t)
	list := func(query string) plan.ProtectionPlanList {
		t.Helper()
		w := e.do(request{method: "GET", path: "/api/v1/plans" + query, user: "alice"})
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", query, w.Code, w.Body)
		}
		var l plan.ProtectionPlanList
		if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	ids := func(items []plan.ProtectionPlan) (out []string) {
		for _, p := range items {
			out = append(out, p.Name)
		}
		return out
	}
	all := list("")
	if len(all.Items) < 3 || all.Continue != "" || all.RemainingItemCount != nil {
		t.Fatalf("the unpaged list: %d items, continue %q", len(all.Items), all.Continue)
	}
	var walked []string
	query, pages := "?limit=2", 0
	for {
		l := list(query)
		pages++
		walked = append(walked, ids(l.Items)...)
		if l.Continue == "" {
			if l.RemainingItemCount != nil {
				t.Errorf("the last page counts %d remaining", *l.RemainingItemCount)
			}
			break
		}
		if l.RemainingItemCount == nil || int(*l.RemainingItemCount) != len(all.Items)-len(walked) {
			t.Errorf("page %d: remainingItemCount %v, want %d", pages, l.RemainingItemCount, len(all.Items)-len(walked))
		}
		query = "?limit=2&continue=" + l.Continue
		if pages > len(all.Items) {
			t.Fatal("the pages do not end")
		}
	}
	if !slices.Equal(walked, ids(all.Items)) {
		t.Errorf("walked %v\nthe list is %v", walked, ids(all.Items))
	}
	if want := (len(all.Items) + 1) / 2; pages != want {
		t.Errorf("%d pages, want %d", pages, want)
	}

	// A limit over plan.MaxPageLimit is lowered, as a Kubernetes list may
	// answer fewer than asked.
	if l := list("?limit=100000"); len(l.Items) != len(all.Items) || l.Continue != "" {
		t.Errorf("limit=100000: %d items, continue %q", len(l.Items), l.Continue)
	}
	for name, q := range map[string]string{
		"a limit of 0 is refused":         "?limit=0",
		"a limit that is not a number":    "?limit=ten",
		"a continue token that is forged": "?limit=2&continue=not-a-token",
	} {
		t.Run(name, func(t *testing.T) {
			w := e.do(request{method: "GET", path: "/api/v1/plans" + q, user: "alice"})
			if w.Code != http.StatusBadRequest {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			var doc problem.Document
			json.Unmarshal(w.Body.Bytes(), &doc)
			if len(doc.Errors) != 1 || (doc.Errors[0].Field != "limit" && doc.Errors[0].Field != "continue") {
				t.Errorf("errors %+v, want one naming limit or continue", doc.Errors)
			}
		})
	}
}
