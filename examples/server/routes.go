package main

import (
	"net/http"

	"github.com/telark/protectionplans/approval"
)

// route is one entry of the route table: the single list that registers
// the handlers (buildHandler), sets the permission every request is
// checked against (guard), and that the tests compare with the OpenAPI
// document and walk to prove every route checks its permission.
type route struct {
	Method  string
	Pattern string // a net/http pattern path, e.g. /api/v1/plans/{id}
	// Action is the permission the route needs (R-A7). Only Public routes
	// and the OpenAPI document have none.
	Action approval.Action
	// Public routes need no identity: /healthz and the static assets.
	Public bool
	// API routes answer JSON and are in the OpenAPI document; the others
	// are the dashboard's pages and forms.
	API     bool
	Summary string
	// Codes are the status codes the route answers (besides 405 to
	// another method and 500 on a bug); the tests prove each one.
	Codes  []int
	handle http.HandlerFunc
}

// key names a route in tests and logs: "GET /api/v1/plans/{id}".
func (rt route) key() string { return rt.Method + " " + rt.Pattern }

// Status codes, short.
const (
	c200 = http.StatusOK
	c201 = http.StatusCreated
	c204 = http.StatusNoContent
	c303 = http.StatusSeeOther
	c400 = http.StatusBadRequest
	c401 = http.StatusUnauthorized
	c403 = http.StatusForbidden
	c404 = http.StatusNotFound
	c409 = http.StatusConflict
	c412 = http.StatusPreconditionFailed
	c413 = http.StatusRequestEntityTooLarge
	c415 = http.StatusUnsupportedMediaType
	c429 = http.StatusTooManyRequests
	c503 = http.StatusServiceUnavailable
)

func codes(cs ...int) []int { return cs }

// routeTable is every route the server serves.
func (s *Server) routeTable() []route {
	api := func(method, pattern string, action approval.Action, summary string, h http.HandlerFunc, cs ...int) route {
		return route{Method: method, Pattern: pattern, Action: action, API: true, Summary: summary, Codes: cs, handle: h}
	}
	page := func(method, pattern string, action approval.Action, summary string, h http.HandlerFunc, cs ...int) route {
		return route{Method: method, Pattern: pattern, Action: action, Summary: summary, Codes: cs, handle: h}
	}
	const plans = "/api/v1/plans"
	const onePlan = plans + "/{id}"
	return []route{
		// Plans.
		api("GET", plans, approval.ActionList, "List plans, filtered by phase, environment, tag and text", s.listPlans, c200, c400, c401, c403),
		api("POST", plans, approval.ActionCreate, "Create a plan", s.createPlan, c201, c400, c401, c403, c409, c413, c415, c503),
		api("GET", onePlan, approval.ActionGet, "Get a plan", s.getPlan, c200, c401, c403, c404),
		api("PUT", onePlan, approval.ActionUpdate, "Edit a plan (replace its spec)", s.editPlan, c200, c400, c401, c403, c404, c409, c412, c413, c415, c503),
		api("DELETE", onePlan, approval.ActionDelete, "Delete a plan and its reports", s.deletePlan, c204, c401, c403, c404, c409, c412),
		// Lifecycle actions.
		api("POST", onePlan+"/cancel", approval.ActionCancel, "Cancel a plan", s.cancelPlan, c200, c401, c403, c404, c409, c412),
		api("POST", onePlan+"/reactivate", approval.ActionReactivate, "Reactivate a terminated, canceled or failed plan", s.reactivatePlan, c200, c400, c401, c403, c404, c409, c412),
		api("POST", onePlan+"/duplicate", approval.ActionDuplicate, "Duplicate a plan into a new one", s.duplicatePlan, c201, c400, c401, c403, c404, c409, c413, c415, c503),
		// Approval.
		api("GET", onePlan+"/approval", approval.ActionGet, "The open approval request and who may decide it", s.getApproval, c200, c401, c403, c404),
		api("POST", onePlan+"/approve", approval.ActionApprove, "Approve the open approval request", s.approvePlan, c200, c400, c401, c403, c404, c409, c413, c415),
		api("POST", onePlan+"/reject", approval.ActionApprove, "Reject the open approval request (comment mandatory)", s.rejectPlan, c200, c400, c401, c403, c404, c409, c413, c415),
		// Break-glass grants.
		api("GET", onePlan+"/grants", approval.ActionGet, "The plan's break-glass grants, each with its state now", s.listGrants, c200, c401, c403, c404),
		api("POST", onePlan+"/grants", approval.ActionBreakGlassRequest, "Request a break-glass grant (reason mandatory)", s.requestGrant, c201, c400, c401, c403, c404, c409, c412, c413, c415),
		api("POST", onePlan+"/grants/{grant}/grant", approval.ActionBreakGlassGrant, "Grant a break-glass request of someone else", s.approveGrant, c200, c401, c403, c404, c409, c412),
		api("POST", onePlan+"/grants/{grant}/revoke", approval.ActionGet, "Revoke a grant, or withdraw one's own request", s.revokeGrant, c200, c401, c403, c404, c409, c412),
		// Health, violations, reports.
		api("GET", onePlan+"/health", approval.ActionHealth, "Refresh health: computed now, not stored, nothing repaired", s.planHealth, c200, c401, c403, c404),
		api("GET", onePlan+"/violations", approval.ActionViolations, "The plan's violations feed, newest first", s.planViolations, c200, c400, c401, c403, c404),
		api("GET", "/api/v1/reports", approval.ActionReports, "List reports, filtered by plan, environment, trigger and date", s.listReports, c200, c400, c401, c403),
		api("GET", onePlan+"/reports", approval.ActionReports, "List a plan's reports", s.listPlanReports, c200, c400, c401, c403, c404),
		api("POST", onePlan+"/reports", approval.ActionReports, "Generate a report now (on demand)", s.generateReport, c201, c401, c403, c404, c409, c429),
		api("GET", onePlan+"/reports/{report}", approval.ActionReports, "Download a report in a format", s.downloadReport, c200, c400, c401, c403, c404),
		// Catalog and categories.
		api("GET", "/api/v1/templates", approval.ActionList, "The template catalog", s.listTemplates, c200, c401, c403),
		api("GET", "/api/v1/categories", approval.ActionList, "List environments and tags", s.listCategories, c200, c401, c403),
		api("POST", "/api/v1/categories", approval.ActionCategoriesCreate, "Add an environment or a tag", s.createCategory, c201, c400, c401, c403, c409, c413, c415),
		api("PUT", "/api/v1/categories/{kind}/{name}", approval.ActionCategoriesUpdate, "Rename or describe an environment or a tag", s.updateCategory, c200, c400, c401, c403, c404, c409, c413, c415),
		api("DELETE", "/api/v1/categories/{kind}/{name}", approval.ActionCategoriesDelete, "Delete an environment or a tag", s.deleteCategory, c204, c400, c401, c403, c404, c409),
		// The API's own description: any authenticated caller may read it.
		{Method: "GET", Pattern: "/openapi.json", API: true, Summary: "This document", Codes: codes(c200, c401), handle: s.serveOpenAPI},

		// Dashboard.
		page("GET", "/{$}", approval.ActionList, "Plans page", s.pagePlans, c200, c400, c401, c403),
		page("GET", "/plans/{id}", approval.ActionGet, "A plan's page", s.pagePlan, c200, c401, c403, c404),
		page("POST", "/plans/{id}/approve", approval.ActionApprove, "Approve form", s.formApprove, c303, c400, c401, c403, c404, c409),
		page("POST", "/plans/{id}/reject", approval.ActionApprove, "Reject form", s.formReject, c303, c400, c401, c403, c404, c409),
		page("POST", "/plans/{id}/cancel", approval.ActionCancel, "Cancel form", s.formCancel, c303, c401, c403, c404, c409),
		page("POST", "/plans/{id}/reports", approval.ActionReports, "Generate report form", s.formGenerateReport, c303, c401, c403, c404, c409, c429),

		// Infrastructure.
		{Method: "GET", Pattern: "/healthz", Public: true, Summary: "Liveness", Codes: codes(c200), handle: serveHealthz},
		{Method: "GET", Pattern: "/static/", Public: true, Summary: "Style sheet", Codes: codes(c200, c404), handle: serveStatic},
	}
}

func serveHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok\n"))
}
