package overview

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/report"
)

// TemplateRow is one of a plan's templates: its catalog name, its title
// ("" when the catalog does not know it) and its parameters as
// "k=v, k=v", sorted.
type TemplateRow struct {
	Name, Title, Params string
}

// Templates are p's templates as its page lists them.
func Templates(p *plan.ProtectionPlan) []TemplateRow {
	var out []TemplateRow
	for _, t := range p.Spec.Templates {
		row := TemplateRow{Name: t.Name}
		if tpl, ok := render.Lookup(t.Name); ok {
			row.Title = tpl.Info().Title
		}
		var params []string
		for k, v := range t.Parameters {
			params = append(params, k+"="+v)
		}
		slices.Sort(params)
		row.Params = strings.Join(params, ", ")
		out = append(out, row)
	}
	return out
}

// Exclusions are p's exclusions in lines: "kinds: a, b", then one
// "Kind namespace/name" per resource.
func Exclusions(p *plan.ProtectionPlan) []string {
	e := p.Spec.Exclusions
	var out []string
	if len(e.Kinds) > 0 {
		out = append(out, "kinds: "+strings.Join(e.Kinds, ", "))
	}
	for _, res := range e.Resources {
		out = append(out, res.Kind+" "+res.Namespace+"/"+res.Name)
	}
	return out
}

// Timeline is p's timeline newest first (a copy).
func Timeline(p *plan.ProtectionPlan) []plan.TimelineEvent {
	out := slices.Clone(p.Status.Timeline)
	slices.Reverse(out)
	return out
}

// Offers are the actions a plan's page offers its caller.
type Offers struct {
	// Cancel: the caller may cancel the plan and its phase allows it.
	Cancel bool
	// Health, Violations and Reports: the caller may refresh its health,
	// read its violations, read its reports.
	Health, Violations, Reports bool
	// Generate: the caller may make a report now; when not (and Reports),
	// GenerateWhy says why.
	Generate    bool
	GenerateWhy string
}

// OffersFor decides what p's page offers caller at now. keepsReports says
// whether the embedder keeps reports at all. Cancel is offered exactly
// when reconcile.Cancel would accept it.
func OffersFor(caller approval.Caller, p *plan.ProtectionPlan, keepsReports bool, now time.Time) Offers {
	allowed := func(a approval.Action) bool { return approval.Check(caller, a, p).Allowed }
	_, err := reconcile.Cancel(reconcile.ActionInput{Plan: p, Caller: caller, Now: now})
	o := Offers{Cancel: err == nil, Health: allowed(approval.ActionHealth),
		Violations: allowed(approval.ActionViolations), Reports: allowed(approval.ActionReports)}
	if !o.Reports {
		return o
	}
	var ns *report.NotStartedError
	switch {
	case errors.As(report.CheckManual(p), &ns):
		o.GenerateWhy = ns.Reason
	case !keepsReports:
		o.GenerateWhy = "this server keeps no reports"
	default:
		o.Generate = true
	}
	return o
}
