package main

import (
	"net/http"

	"strconv"
	"strings"

	"github.com/telark/protectionplans/problem"
)

// The OpenAPI 3 document of the API, served at /openapi.json. It is
// written by hand, operation by operation, and not derived from the route
// table: TestOpenAPIMatchesRoutes holds the two together (every API route
// documented with exactly its codes, no documented operation without a
// route).

type obj = map[string]any

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func arr(items any) obj { return obj{"type": "array", "items": items} }

func str(desc string) obj { return obj{"type": "string", "description": desc} }

// param is a path or query parameter.
func param(in, name, desc string, required bool) obj {
	return obj{"name": name, "in": in, "description": desc, "required": required, "schema": obj{"type": "string"}}
}

// pageSize is a ?limit= query parameter: a whole number from 1.
func pageSize(desc string) obj {
	return obj{"name": "limit", "in": "query", "description": desc, "required": false,
		"schema": obj{"type": "integer", "minimum": 1}}
}

var (
	pID     = param("path", "id", "the plan ID (metadata.name)", true)
	pIfM    = obj{"name": "If-Match", "in": "header", "required": false, "description": "the resourceVersion the client read (the ETag); 412 if the plan changed since", "schema": obj{"type": "string"}}
	pKind   = param("path", "kind", "environment or tag", true)
	pName   = param("path", "name", "the category's name", true)
	pReport = param("path", "report", "the report ID", true)
	pGrant  = param("path", "grant", "the grant ID, e.g. <plan>-g1", true)
)

// op is one operation: its parameters, its request body schema ("" for
// none) and its responses, code -> schema ("" for no body).
type op struct {
	id, summary string
	params      []obj
	body        string
	responses   map[int]string
}

var descriptions = map[int]string{
	200: "OK", 201: "Created", 204: "No Content", 400: "Bad request: the fields at fault are listed with their paths",
	401: "No authenticated user (the proxy's identity headers are missing or not trusted)",
	403: "The caller's roles do not allow the action (a deny wins), or the action needs Owner",
	404: "Not found", 409: "Conflict: the body's resourceVersion is not the stored one, a name is taken, the plan's phase does not allow the action, or a decision is stale",
	412: "Precondition failed: the plan changed since the If-Match read; re-read it and try again",
	413: "The body is over 1 MiB", 415: "The body is neither application/json nor application/yaml (Content-Type)", 429: "Two reports are being rendered; retry after the Retry-After header's seconds",
	503: "A lookup the answer depends on failed (e.g. the excluded-namespace list for a namespace-scoped plan); retry later",
}

// apiOperations is the API, path by path, method by method.
func apiOperations() map[string]map[string]op {
	std := func(cs map[int]string, more ...int) map[int]string {
		for _, c := range append([]int{401, 403}, more...) {
			if _, ok := cs[c]; !ok {
				cs[c] = "Problem"
			}
		}
		return cs
	}
	return map[string]map[string]op{
		"/api/v1/plans": {
			"get": {id: "listPlans", summary: "List plans", params: []obj{
				param("query", "phase", "pending_approval, scheduled, active, terminated, canceled or failed", false),
				param("query", "environment", "an environment (ignoring case)", false),
				param("query", "tag", "a tag (ignoring case)", false),
				param("query", "text", "text in the ID, name or description (ignoring case)", false),
				pageSize("page size: every plan when left out; a limit over 500 answers 500"),
				param("query", "continue", "metadata.continue of the previous page", false)},
				responses: std(map[int]string{200: "ProtectionPlanList"}, 400)},
			"post": {id: "createPlan", summary: "Create a plan", body: "ProtectionPlan",
				responses: std(map[int]string{201: "ProtectionPlan"}, 400, 409, 413, 415, 503)},
		},
		"/api/v1/plans/{id}": {
			"get": {id: "getPlan", summary: "Get a plan", params: []obj{pID}, responses: std(map[int]string{200: "ProtectionPlan"}, 404)},
			"put": {id: "editPlan", summary: "Edit a plan: replace its spec", params: []obj{pID, pIfM}, body: "ProtectionPlan",
				responses: std(map[int]string{200: "ProtectionPlan"}, 400, 404, 409, 412, 413, 415, 503)},
			"delete": {id: "deletePlan", summary: "Delete a plan and its reports", params: []obj{pID, pIfM},
				responses: std(map[int]string{204: ""}, 404, 409, 412)},
		},
		"/api/v1/plans/{id}/cancel": {"post": {id: "cancelPlan", summary: "Cancel a plan", params: []obj{pID, pIfM},
			responses: std(map[int]string{200: "ProtectionPlan"}, 404, 409, 412)}},
		"/api/v1/plans/{id}/reactivate": {"post": {id: "reactivatePlan", summary: "Reactivate a terminated, canceled or failed plan", params: []obj{pID, pIfM},
			responses: std(map[int]string{200: "ProtectionPlan"}, 400, 404, 409, 412)}},
		"/api/v1/plans/{id}/duplicate": {"post": {id: "duplicatePlan", summary: "Duplicate a plan into a new one", params: []obj{pID}, body: "DuplicateRequest",
			responses: std(map[int]string{201: "ProtectionPlan"}, 400, 404, 409, 413, 415, 503)}},
		"/api/v1/plans/{id}/approval": {"get": {id: "getApproval", summary: "The open approval request and who may decide it", params: []obj{pID},
			responses: std(map[int]string{200: "Approval"}, 404)}},
		"/api/v1/plans/{id}/approve": {"post": {id: "approvePlan", summary: "Approve the open approval request", params: []obj{pID}, body: "DecisionRequest",
			responses: std(map[int]string{200: "ProtectionPlan"}, 400, 404, 409, 413, 415)}},
		"/api/v1/plans/{id}/reject": {"post": {id: "rejectPlan", summary: "Reject the open approval request; comment is mandatory", params: []obj{pID}, body: "DecisionRequest",
			responses: std(map[int]string{200: "ProtectionPlan"}, 400, 404, 409, 413, 415)}},
		"/api/v1/plans/{id}/grants": {
			"get": {id: "listGrants", summary: "The plan's break-glass grants, each with its state now", params: []obj{pID},
				responses: std(map[int]string{200: "GrantList"}, 404)},
			"post": {id: "requestGrant", summary: "Request a break-glass grant: users exempt for a duration, with a reason", params: []obj{pID, pIfM}, body: "GrantRequest",
				responses: std(map[int]string{201: "Grant"}, 400, 404, 409, 412, 413, 415)},
		},
		"/api/v1/plans/{id}/grants/{grant}/grant": {"post": {id: "approveGrant", summary: "Grant a break-glass request of someone else (a self-grant group may grant its own)", params: []obj{pID, pGrant, pIfM},
			responses: std(map[int]string{200: "Grant"}, 404, 409, 412)}},
		"/api/v1/plans/{id}/grants/{grant}/revoke": {"post": {id: "revokeGrant", summary: "Revoke a grant, or withdraw one's own request", params: []obj{pID, pGrant, pIfM},
			responses: std(map[int]string{200: "Grant"}, 404, 409, 412)}},
		"/api/v1/plans/{id}/health": {"get": {id: "refreshHealth", summary: "Refresh health: computed now, not stored, nothing repaired", params: []obj{pID},
			responses: std(map[int]string{200: "Health"}, 404)}},
		"/api/v1/plans/{id}/violations": {"get": {id: "listViolations", summary: "The violations feed, newest first", params: []obj{pID,
			pageSize("page size: 50 by default; a limit over 200 answers 200"),
			param("query", "cursor", "nextCursor of the previous page", false),
			param("query", "result", "keep these results (pass, fail, warn, error, skip); repeatable", false)},
			responses: std(map[int]string{200: "ViolationsPage"}, 400, 404)}},
		"/api/v1/reports": {"get": {id: "listReports", summary: "List reports", params: reportFilterParams(true),
			responses: std(map[int]string{200: "ReportList"}, 400)}},
		"/api/v1/plans/{id}/reports": {
			"get": {id: "listPlanReports", summary: "List a plan's reports", params: append([]obj{pID}, reportFilterParams(false)...),
				responses: std(map[int]string{200: "ReportList"}, 400, 404)},
			"post": {id: "generateReport", summary: "Generate a report now (once the plan has started)", params: []obj{pID},
				responses: std(map[int]string{201: "StoredReport"}, 404, 409, 429)},
		},
		"/api/v1/plans/{id}/reports/{report}": {"get": {id: "downloadReport", summary: "Download a report", params: []obj{pID, pReport,
			param("query", "format", "html, markdown (md), json (default) or csv", false),
			param("query", "download", "any value: serve HTML as an attachment too", false)},
			responses: std(map[int]string{200: "ReportFile"}, 400, 404)}},
		"/api/v1/templates": {"get": {id: "listTemplates", summary: "The template catalog", responses: std(map[int]string{200: "TemplateList"})}},
		"/api/v1/categories": {
			"get":  {id: "listCategories", summary: "List environments and tags", responses: std(map[int]string{200: "CategoryList"})},
			"post": {id: "createCategory", summary: "Add an environment or a tag", body: "Category", responses: std(map[int]string{201: "Category"}, 400, 409, 413, 415)},
		},
		"/api/v1/categories/{kind}/{name}": {
			"put": {id: "updateCategory", summary: "Rename or describe a category", params: []obj{pKind, pName}, body: "Category",
				responses: std(map[int]string{200: "Category"}, 400, 404, 409, 413, 415)},
			"delete": {id: "deleteCategory", summary: "Delete a category", params: []obj{pKind, pName},
				responses: std(map[int]string{204: ""}, 400, 404, 409)},
		},
		"/openapi.json": {"get": {id: "openAPI", summary: "This document", responses: map[int]string{200: "", 401: "Problem"}}},
	}
}

// tagOf groups a path's operations (the tags of the document).
func tagOf(path string) string {
	switch {
	case path == "/openapi.json":
		return "meta"
	case strings.HasSuffix(path, "/approval"), strings.HasSuffix(path, "/approve"), strings.HasSuffix(path, "/reject"):
		return "approval"
	case strings.Contains(path, "/grants"):
		return "break-glass"
	case strings.Contains(path, "/health"), strings.Contains(path, "/violations"), strings.Contains(path, "/reports"):
		return "enforcement"
	case strings.HasPrefix(path, "/api/v1/templates"), strings.HasPrefix(path, "/api/v1/categories"):
		return "catalog"
	}
	return "plans"
}

func reportFilterParams(withPlan bool) []obj {
	ps := []obj{
		param("query", "environment", "the plan's environment when the report was made", false),
		param("query", "trigger", "manual, cancel or end", false),
		param("query", "from", "made at or after (RFC 3339 or YYYY-MM-DD)", false),
		param("query", "to", "made before (RFC 3339 or YYYY-MM-DD)", false),
	}
	if withPlan {
		ps = append([]obj{param("query", "plan", "a plan ID", false)}, ps...)
	}
	return ps
}

// openAPIDocument builds the document.
func openAPIDocument() obj {
	paths := obj{}
	for path, methods := range apiOperations() {
		item := obj{}
		for method, o := range methods {
			resps := obj{}
			for code, schema := range o.responses {
				r := obj{"description": descriptions[code]}
				switch {
				case schema == "ReportFile":
					r["content"] = obj{"text/html": obj{}, "text/markdown": obj{}, "application/json": obj{}, "text/csv": obj{}}
				case schema == "Problem":
					r["content"] = obj{problem.ContentType: obj{"schema": ref(schema)}}
				case schema != "":
					r["content"] = obj{"application/json": obj{"schema": ref(schema)}}
				}
				switch code {
				case 429:
					r["headers"] = obj{"Retry-After": obj{"schema": obj{"type": "integer"}, "description": "seconds to wait before retrying"}}
				case 401:
					r["headers"] = obj{"WWW-Authenticate": obj{"schema": obj{"type": "string"}, "description": "the scheme the proxy must use: Proxy realm=\"protectionplans\", header=\"X-Remote-User\""}}
				}
				resps[strconv.Itoa(code)] = r
			}
			operation := obj{"operationId": o.id, "summary": o.summary, "responses": resps, "tags": []string{tagOf(path)}}
			if len(o.params) > 0 {
				operation["parameters"] = o.params
			}
			if o.body != "" {
				operation["requestBody"] = obj{"required": true, "content": obj{
					"application/json": obj{"schema": ref(o.body)}, "application/yaml": obj{"schema": ref(o.body)}}}
			}
			operation["security"] = []obj{{"proxy": []string{}}}
			item[method] = operation
		}
		paths[path] = item
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{"title": "Protection plans API", "version": "v1",
			"license": obj{"name": "Apache-2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"},
			"description": "Change freezes for Kubernetes (ProtectionPlan, telark.io/v1alpha1). Every action is its own permission (protection-plans.<action>). " +
				"Errors are RFC 9457 problem details (application/problem+json: type, title, status, detail) with the fields at fault in errors[{field, type, detail}]. " +
				"Bodies are JSON or YAML (Content-Type), at most 1 MiB; unknown fields are refused. Lists of plans are paged with limit and continue, as the Kubernetes API pages."},
		"servers": []obj{{"url": "/", "description": "this server"}},
		"tags": []obj{
			{"name": "plans", "description": "Protection plans and their lifecycle"},
			{"name": "approval", "description": "Approval requests and decisions"},
			{"name": "enforcement", "description": "Health, violations and reports of a plan's enforcement"},
			{"name": "break-glass", "description": "Time-limited exemptions of named users during a freeze, granted by a second person"},
			{"name": "catalog", "description": "The template catalog, environments and tags"},
			{"name": "meta", "description": "This document"},
		},
		"paths": paths,
		"components": obj{
			"securitySchemes": obj{"proxy": obj{"type": "apiKey", "in": "header", "name": HeaderUser,
				"description": "The authenticating proxy's X-Remote-User (and X-Remote-Group) headers, trusted on a trusted listener or with X-Proxy-Secret."}},
			"schemas": schemas(),
		},
	}
}

func schemas() obj {
	object := func(props obj, required ...string) obj {
		o := obj{"type": "object", "properties": props}
		if len(required) > 0 {
			o["required"] = required
		}
		return o
	}
	strs := arr(obj{"type": "string"})
	return obj{
		"Problem": object(obj{"type": str("about:blank: the status code says what went wrong"), "title": str("the status code's text, e.g. Bad Request"),
			"status": obj{"type": "integer", "description": "the HTTP status code"}, "detail": str("what went wrong and what to do, for a person"),
			"errors": arr(object(obj{"field": str("field path, e.g. spec.scope.namespaces[1]"), "type": str("FieldValueInvalid, FieldValueRequired, FieldValueDuplicate, UnknownField, ..."), "detail": obj{"type": "string"}}))},
			"type", "title", "status", "detail"),
		"ProtectionPlan": object(obj{
			"apiVersion": str("telark.io/v1alpha1"), "kind": str("ProtectionPlan"),
			"metadata": object(obj{"name": str("the plan ID, a DNS label; assigned when left out"), "resourceVersion": str("send back on edit (409 if the plan changed), or as If-Match (412)"), "generation": obj{"type": "integer"}}),
			"spec": object(obj{
				"name": str("display name, at most 64 characters, unique ignoring case"), "description": str("at most 512 characters"),
				"scope": object(obj{"applications": strs, "namespaces": strs,
					"namespaceSelectors": obj{"type": "array", "maxItems": 16, "description": "namespaces by label, ORed, as Kubernetes writes label selectors; " +
						"one empty selector ({}) is the whole cluster. The release namespace, the excluded namespaces, kube-system, kube-public and " +
						"kube-node-lease are never in scope; relabelling a namespace out is frozen while the plan is active. Exactly one of " +
						"applications, namespaces and namespaceSelectors; the scope type cannot change.",
						"items": object(obj{"matchLabels": obj{"type": "object", "additionalProperties": obj{"type": "string"}},
							"matchExpressions": arr(object(obj{"key": obj{"type": "string"},
								"operator": obj{"type": "string", "enum": []string{"In", "NotIn", "Exists", "DoesNotExist"}}, "values": strs}, "key", "operator"))})}}),
				"exclusions": object(obj{"kinds": arr(obj{"type": "string", "description": "a catalog kind (ConfigMap) or a custom kind the cluster serves (Rollout.argoproj.io)"}), "resources": arr(object(obj{"kind": obj{"type": "string"}, "name": obj{"type": "string"}, "namespace": obj{"type": "string"}}))}),
				"templates":  arr(object(obj{"name": obj{"type": "string"}, "parameters": obj{"type": "object", "additionalProperties": obj{"type": "string"}}}, "name")),
				"window": object(obj{"type": obj{"type": "string", "enum": []string{"permanent", "time_range", "recurring"}},
					"startAt": obj{"type": "string", "format": "date-time"}, "endAt": obj{"type": "string", "format": "date-time"},
					"timeZone": obj{"type": "string"}, "schedules": arr(object(obj{"cron": obj{"type": "string"}, "duration": obj{"type": "string"}}))}, "type"),
				"mode":         obj{"type": "string", "enum": []string{"audit", "enforce"}},
				"approvalMode": obj{"type": "string", "enum": []string{"automatic", "required"}, "description": "derived by the server on create and duplicate"},
				"environment":  obj{"type": "string"}, "tags": strs,
			}, "name", "scope", "templates", "window", "mode"),
			"status": object(obj{"phase": obj{"type": "string", "enum": []string{"pending_approval", "scheduled", "active", "terminated", "canceled", "failed"}},
				"window": obj{"type": "string"}, "nextEdge": obj{"type": "string", "format": "date-time"},
				"conditions": arr(obj{"type": "object"}), "approvalRequest": obj{"type": "object"}, "timeline": arr(obj{"type": "object"})}),
		}, "spec"),
		"ProtectionPlanList": object(obj{"items": arr(ref("ProtectionPlan")),
			"metadata": object(obj{"continue": str("pass as ?continue= for the next page; absent on the last"),
				"remainingItemCount": obj{"type": "integer", "description": "plans after this page, when there is a next page"}})}, "items"),
		"DuplicateRequest": object(obj{"id": str("the copy's ID; generated when left out"), "name": str("the copy's display name; \"Copy of <name>\" when left out"),
			"approvalMode": obj{"type": "string", "enum": []string{"automatic", "required"}}, "window": obj{"type": "object", "description": "a new window for the copy"}}),
		"DecisionRequest": object(obj{"requestID": str("status.approvalRequest.id as read"), "comment": str("mandatory to reject"),
			"generation": obj{"type": "integer", "description": "metadata.generation as read: 409 if the plan was edited since"}}, "requestID"),
		"Approval": object(obj{"plan": obj{"type": "string"}, "generation": obj{"type": "integer"}, "approvalMode": obj{"type": "string"},
			"request": obj{"type": "object", "nullable": true}, "lastDecision": obj{"type": "object", "nullable": true},
			"proposers": strs, "deciders": strs, "mayDecide": obj{"type": "boolean"}, "reason": obj{"type": "string"}}),
		"Health": object(obj{"plan": obj{"type": "string"}, "phase": obj{"type": "string"}, "checkedAt": obj{"type": "string", "format": "date-time"},
			"healthy": obj{"type": "boolean"}, "summary": obj{"type": "object"}, "renderError": obj{"type": "string"},
			"policies":   arr(object(obj{"namespace": obj{"type": "string"}, "name": obj{"type": "string"}, "template": obj{"type": "string"}, "target": obj{"type": "string"}, "state": obj{"type": "string", "enum": []string{"ok", "missing", "outdated", "action_changed", "unexpected"}}, "detail": obj{"type": "string"}})),
			"conditions": arr(obj{"type": "object"})}),
		"ViolationsPage": object(obj{"items": arr(ref("Violation")), "nextCursor": obj{"type": "string"},
			"ledger": object(obj{"violations": obj{"type": "integer"}, "truncated": obj{"type": "boolean"}, "dropped": obj{"type": "integer"}})}, "items"),
		"Violation": object(obj{"key": obj{"type": "string"}, "plan": obj{"type": "string"}, "template": obj{"type": "string"},
			"policy": obj{"type": "string"}, "policyNamespace": obj{"type": "string"}, "rule": obj{"type": "string"},
			"resource": object(obj{"apiVersion": obj{"type": "string"}, "kind": obj{"type": "string"}, "namespace": obj{"type": "string"}, "name": obj{"type": "string"}, "subresource": obj{"type": "string"}}),
			"result":   obj{"type": "string", "enum": []string{"pass", "fail", "warn", "error", "skip"}}, "blocked": obj{"type": "boolean"},
			"message": obj{"type": "string"}, "timestamp": obj{"type": "string", "format": "date-time"}, "count": obj{"type": "integer"}, "source": obj{"type": "string"},
			"requester": str("for a write an exemption or a break-glass grant admitted (template exempt): the requester the record names")}),
		"StoredReport": object(obj{"id": obj{"type": "string"}, "plan": obj{"type": "string"}, "environment": obj{"type": "string"},
			"trigger": obj{"type": "string", "enum": []string{"manual", "cancel", "end"}}, "createdAt": obj{"type": "string", "format": "date-time"},
			"final": obj{"type": "boolean"}, "downloads": obj{"type": "object", "additionalProperties": obj{"type": "string"}}}),
		"ReportList":   object(obj{"items": arr(ref("StoredReport"))}, "items"),
		"Template":     object(obj{"name": obj{"type": "string"}, "title": obj{"type": "string"}, "description": obj{"type": "string"}, "scopes": strs, "parameters": arr(obj{"type": "object"})}),
		"TemplateList": object(obj{"items": arr(ref("Template"))}, "items"),
		"Category": object(obj{"kind": obj{"type": "string", "enum": []string{"environment", "tag"}}, "name": obj{"type": "string"},
			"description": obj{"type": "string"}, "builtIn": obj{"type": "boolean"}}, "name"),
		"CategoryList": object(obj{"items": arr(ref("Category"))}, "items"),
		"GrantRequest": object(obj{"users": obj{"type": "array", "items": obj{"type": "string"}, "description": "user names to exempt; the caller when left out"},
			"reason":   str("why: the incident, the change it needs (at most 512 characters)"),
			"duration": str("e.g. 30m; 1h by default, at most the plan's spec.breakGlass.maxDuration (4h by default)")}, "reason"),
		"Grant": object(obj{"id": obj{"type": "string"}, "users": strs, "reason": obj{"type": "string"}, "duration": obj{"type": "string"},
			"requestedBy": obj{"type": "string"}, "requestedAt": obj{"type": "string", "format": "date-time"},
			"grantedBy": obj{"type": "string"}, "grantedAt": obj{"type": "string", "format": "date-time"},
			"expiresAt":   obj{"type": "string", "format": "date-time", "description": "the grant ends at this instant (exclusive), or at the end of the window interval it was granted in"},
			"selfGranted": obj{"type": "boolean"}, "revokedBy": obj{"type": "string"}, "revokedAt": obj{"type": "string", "format": "date-time"},
			"state": obj{"type": "string", "enum": []string{"requested", "in_force", "expired", "revoked"}}}, "id", "users", "reason", "state"),
		"GrantList": object(obj{"items": arr(ref("Grant"))}, "items"),
	}
}

// openAPIPath turns a net/http pattern path into an OpenAPI path (they
// agree but for the "{$}" and trailing-slash forms the API does not use).
func openAPIPath(pattern string) string { return strings.TrimSuffix(pattern, "{$}") }

func (s *Server) serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, openAPIDocument())
}
