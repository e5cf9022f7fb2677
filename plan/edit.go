package plan

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/telark/protectionplans/window"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Edit replaces the plan's spec with newSpec, in any phase. The caller has
// validated the new plan (ValidateUpdate). An empty newSpec.ApprovalMode
// keeps the plan's approval mode.
//
// Refused (a *ActionError):
//   - a change of scope type (400 on spec.scope), of approval mode (400 on
//     spec.approvalMode), or an automatic plan moving into Production (400
//     on spec.environment);
//   - R-A6: a material edit (see IsMaterialEdit) of a plan that requires
//     approval and was approved for its current run (409): duplicate the
//     plan, or cancel and reactivate it, to ask for a new approval.
//
// Effects by phase:
//   - pending_approval: a material edit opens a new request (reason
//     "edited", a new ID, actor joins the proposers); a decision on the old
//     request is then stale.
//   - scheduled, active, failed: a window change recomputes the phase (an
//     active plan given a future start goes back to scheduled, which
//     withdraws its policies until then).
//   - canceled, terminated: the spec is stored and takes effect when the
//     plan is reactivated.
//
// An edit that changes nothing (reordering list entries, say) stores the
// spec without events.
// Otherwise the timeline gets Edited, naming the fields that changed.
// opts reach window.Parse, as Create's do.
func Edit(p *ProtectionPlan, newSpec Spec, actor string, now time.Time, opts ...window.Option) (Result, error) {
	if p.Status.Phase == "" {
		return Result{}, refuse("edit", p, http.StatusConflict, nil, "the plan has not been created yet")
	}
	spec := *newSpec.DeepCopy()
	if spec.ApprovalMode == "" {
		spec.ApprovalMode = p.Spec.ApprovalMode
	}
	if err := editAllowed(p, spec); err != nil {
		return Result{}, err
	}
	changed := ChangedFields(p.Spec, spec)
	c := begin(p, now)
	c.p.Spec = spec
	if len(changed) == 0 {
		return c.result(), nil
	}
	w, err := parseWindow(c.p, "edit", opts...)
	if err != nil {
		return Result{}, err
	}
	c.p.Status.Window = w.Describe()
	c.record(EventEdited, actor, "changed "+strings.Join(changed, ", ")+editNote(c.p.Status.Phase))
	switch st := &c.p.Status; {
	case st.Phase == PhaseCanceled || st.Phase == PhaseTerminated:
		// The edit waits for a reactivation, which asks for approval
		// again; its author must not be the one who decides it.
		if IsMaterialEdit(p.Spec, spec) && spec.ApprovalMode == ApprovalRequired {
			c.addProposer(actor)
		}
	case st.Phase == PhasePendingApproval || st.ApprovalRequest != nil:
		if IsMaterialEdit(p.Spec, spec) && spec.ApprovalMode == ApprovalRequired {
			c.openRequest("edited", actor)
		}
	case !equality.Semantic.DeepEqual(p.Spec.Window, spec.Window):
		c.follow(targetOf(w, now), actor)
	}
	return c.result(), nil
}

func editNote(phase Phase) string {
	if phase == PhaseCanceled || phase == PhaseTerminated {
		return "; the changes take effect when the plan is reactivated"
	}
	return ""
}

// editAllowed applies the rules of an edit that do not depend on what
// changed in the window.
func editAllowed(p *ProtectionPlan, spec Spec) error {
	specPath := field.NewPath("spec")
	if e := scopeTypeChange(p.Spec.Scope, spec.Scope, specPath.Child("scope")); e != nil {
		return refuse("edit", p, http.StatusBadRequest, specPath.Child("scope"), e.Detail)
	}
	if e := approvalModeChange(p.Spec.ApprovalMode, spec.ApprovalMode, specPath.Child("approvalMode")); e != nil {
		return refuse("edit", p, http.StatusBadRequest, specPath.Child("approvalMode"), e.Detail)
	}
	if e := automaticIntoProduction(p.Spec, spec, specPath.Child("environment")); e != nil {
		return refuse("edit", p, http.StatusBadRequest, specPath.Child("environment"), e.Detail)
	}
	if spec.ApprovalMode == ApprovalRequired && approvedForRun(p) && IsMaterialEdit(p.Spec, spec) {
		d := p.Status.LastDecision
		return refuse("edit", p, http.StatusConflict, nil, fmt.Sprintf(
			"the plan was approved by %s (request %s) and %s would be a material change; "+
				"duplicate the plan, or cancel and reactivate it, to ask for a new approval",
			d.DecidedBy, d.RequestID, strings.Join(materialFields(p.Spec, spec), ", ")))
	}
	return nil
}

// approvedForRun reports whether the plan's current run was approved: it
// is scheduled, active or failed, no request is open, and the last
// decision approved it.
func approvedForRun(p *ProtectionPlan) bool {
	st := p.Status
	switch st.Phase {
	case PhaseScheduled, PhaseActive, PhaseFailed:
	default:
		return false
	}
	return st.ApprovalRequest == nil && st.LastDecision != nil && st.LastDecision.Decision == DecisionApproved
}

// IsMaterialEdit reports whether going from oldSpec to newSpec changes what
// the plan freezes or when: the scope, exclusions, requesters (who is
// exempt, and whom the plan is limited to), break-glass settings (who may
// grant himself, and for how long), templates (including
// parameters), mode or window. The order of list entries does not matter.
// Name, description, environment and tags are not material.
func IsMaterialEdit(oldSpec, newSpec Spec) bool {
	return len(materialFields(oldSpec, newSpec)) > 0
}

var materialSet = map[string]bool{"scope": true, "exclusions": true, "requesters": true, "breakGlass": true, "templates": true, "mode": true, "window": true}

func materialFields(oldSpec, newSpec Spec) []string {
	var out []string
	for _, f := range ChangedFields(oldSpec, newSpec) {
		if materialSet[f] {
			out = append(out, f)
		}
	}
	return out
}

// ChangedFields names the spec fields (by JSON name) that differ between
// oldSpec and newSpec, in the order of Spec. The order of scope,
// exclusion, requester, template and tag entries does not matter, and
// requesters naming nobody are the same as none.
func ChangedFields(oldSpec, newSpec Spec) []string {
	a, b := normalizeSpec(oldSpec), normalizeSpec(newSpec)
	pairs := []struct {
		name     string
		old, new any
	}{
		{"name", a.Name, b.Name},
		{"description", a.Description, b.Description},
		{"scope", a.Scope, b.Scope},
		{"exclusions", a.Exclusions, b.Exclusions},
		{"requesters", a.Requesters, b.Requesters},
		{"breakGlass", a.BreakGlass, b.BreakGlass},
		{"templates", a.Templates, b.Templates},
		{"window", a.Window, b.Window},
		{"mode", a.Mode, b.Mode},
		{"approvalMode", a.ApprovalMode, b.ApprovalMode},
		{"environment", a.Environment, b.Environment},
		{"tags", a.Tags, b.Tags},
	}
	var out []string
	for _, p := range pairs {
		if !equality.Semantic.DeepEqual(p.old, p.new) {
			out = append(out, p.name)
		}
	}
	return out
}

// normalizeSpec returns a copy of s with order-insensitive lists sorted.
func normalizeSpec(s Spec) Spec {
	n := *s.DeepCopy()
	sort.Strings(n.Scope.Applications)
	sort.Strings(n.Scope.Namespaces)
	sort.Strings(n.Exclusions.Kinds)
	sort.Strings(n.Tags)
	sort.Slice(n.Exclusions.Resources, func(i, j int) bool {
		return refString(n.Exclusions.Resources[i]) < refString(n.Exclusions.Resources[j])
	})
	sort.Slice(n.Templates, func(i, j int) bool { return n.Templates[i].Name < n.Templates[j].Name })
	if r := n.Requesters; r != nil {
		for _, set := range []*RequesterSet{&r.Include, &r.Exclude} {
			sort.Strings(set.Users)
			sort.Strings(set.Groups)
			sort.Strings(set.ServiceAccounts)
			if set.IsEmpty() {
				*set = RequesterSet{} // nil and empty lists alike
			}
		}
		if r.Include.IsEmpty() && r.Exclude.IsEmpty() {
			n.Requesters = nil
		}
	}
	return n
}
