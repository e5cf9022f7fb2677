package render

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/plan"
)

// EdgeExtraKey is the user-info extra the operator sends (Impersonate-Extra)
// when it carries out a plan's edge actions as the executor: its value is
// the plan's UID. A plan's policies admit the executor's writes only with
// that extra naming the plan itself (seed 004: "The authenticated executor
// marker bypasses only its own ChangeWindow; using the same service account
// directly is insufficient. Other policies still apply.").
const EdgeExtraKey = "protectionplans.telark.io/plan"

// edgeExemption is the one requester a plan's freeze admits for its edge
// actions: the executor's user name, the extra naming the plan, the edge
// field manager, an UPDATE (a server-side apply of an existing object),
// and only the resources and subresources the plan's actions touch.
type edgeExemption struct {
	username, planUID string
	// touches are "group/resource/subresource" (subresource "" for the
	// object itself), sorted.
	touches []edgeTouch
}

type edgeTouch struct{ group, resource, sub string }

func (e *edgeExemption) on() bool { return e != nil && e.username != "" }

// compileEdge reduces Input.EdgeExecutor and the plan's edge actions. No
// executor, no actions or no UID (a plan never stored) exempt nothing.
func compileEdge(in Input, p *plan.ProtectionPlan) (*edgeExemption, field.ErrorList) {
	if in.EdgeExecutor == "" || len(p.Spec.EdgeActions) == 0 || p.UID == "" {
		return nil, nil
	}
	fld := field.NewPath("edgeExecutor")
	ns, name, ok := strings.Cut(in.EdgeExecutor, ":")
	if !ok || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return nil, field.ErrorList{field.Invalid(fld, in.EdgeExecutor, "must be a service account as namespace:name")}
	}
	if msgs := validation.IsDNS1123Subdomain(strings.ToLower(string(p.UID))); len(msgs) > 0 || len(p.UID) > 63 {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata", "uid"), p.UID, "must be a UID")}
	}
	e := &edgeExemption{username: plan.ServiceAccountUser(in.EdgeExecutor), planUID: string(p.UID)}
	for _, a := range p.Spec.EdgeActions {
		d, ok := edge.Lookup(a.Name)
		if !ok {
			continue // plan validation refuses it; it exempts nothing
		}
		for _, t := range d.Touches {
			et := edgeTouch{t.GVK.Group, t.Resource, t.Subresource}
			if !slices.Contains(e.touches, et) {
				e.touches = append(e.touches, et)
			}
		}
	}
	slices.SortFunc(e.touches, func(a, b edgeTouch) int {
		return strings.Compare(a.group+"/"+a.resource+"/"+a.sub, b.group+"/"+b.resource+"/"+b.sub)
	})
	return e, nil
}

// admits says whether a request is the plan's own edge action.
func (e *edgeExemption) admits(req Request, resource string) bool {
	if !e.on() || req.UserInfo.Username != e.username || req.Operation != "UPDATE" || req.FieldManager != edge.DefaultFieldManager {
		return false
	}
	if !slices.Contains(req.UserInfo.Extra[EdgeExtraKey], e.planUID) {
		return false
	}
	return slices.Contains(e.touches, edgeTouch{req.Kind.Group, resource, req.Subresource})
}

// celTest is a CEL expression true for the plan's own edge actions. Every
// value reaches it as a string literal.
func (e *edgeExemption) celTest() string {
	var kinds []string
	for _, t := range e.touches {
		kinds = append(kinds, fmt.Sprintf("(request.resource.group == %s && request.resource.resource == %s && request.?subResource.orValue(\"\") == %s)",
			celString(t.group), celString(t.resource), celString(t.sub)))
	}
	return "(" + strings.Join([]string{
		celUsername + " == " + celString(e.username),
		celString(e.planUID) + " in request.userInfo.?extra[?" + celString(EdgeExtraKey) + "].orValue([])",
		`request.operation == "UPDATE"`,
		`request.?options.?fieldManager.orValue("") == ` + celString(edge.DefaultFieldManager),
		"(" + strings.Join(kinds, " || ") + ")",
	}, " && ") + ")"
}

// kindResource is a known kind's resource name, "" for another kind.
func kindResource(kind string) string {
	k, _ := kindByName(kind)
	return k.Resource
}

// kyvernoPrecondition adds to a rule the precondition that leaves the
// plan's own edge actions out: Kyverno subjects cannot match a user-info
// extra or a field manager, so the test is one JMESPath expression, true
// for every other request. Every value reaches it as a raw string literal
// of validated characters (a service account, a UID, constants), and the
// expression defaults every field a request may lack.
func (e *edgeExemption) kyvernoPrecondition(r *kyRule) {
	if !e.on() {
		return
	}
	raw := func(s string) string { return "'" + s + "'" }
	var kinds []string
	for _, t := range e.touches {
		kinds = append(kinds, fmt.Sprintf("(request.resource.group == %s && request.resource.resource == %s && (request.subResource || '') == %s)",
			raw(t.group), raw(t.resource), raw(t.sub)))
	}
	expr := strings.Join([]string{
		"(request.userInfo.username || '') != " + raw(e.username),
		"!contains(request.userInfo.extra.\"" + EdgeExtraKey + "\" || `[]`, " + raw(e.planUID) + ")",
		"request.operation != 'UPDATE'",
		"(request.options.fieldManager || '') != " + raw(edge.DefaultFieldManager),
		"!(" + strings.Join(kinds, " || ") + ")",
	}, " || ")
	if r.Preconditions == nil {
		r.Preconditions = &kyConditions{}
	}
	r.Preconditions.All = append(r.Preconditions.All, isTrue("not_null("+expr+")"))
}
