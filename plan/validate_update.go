package plan

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/edge"
)

// ValidateUpdate checks newPlan as a replacement of oldPlan. It runs every
// check of Validate, with these differences, and returns every problem at
// once as a *ValidationError:
//
//   - the plan's own display name is not "taken" (other plans' are);
//   - a window that already ended is refused only when the window changed
//     (a terminated plan's description may still be edited);
//   - an environment or tag the old plan carried is accepted even if the
//     category was deleted since;
//   - the plan ID cannot change (field.Forbidden on metadata.name);
//   - the scope type cannot change (field.Forbidden on spec.scope);
//   - approvalMode cannot change (field.Forbidden on spec.approvalMode; an
//     empty approvalMode in newPlan means "unchanged", see Edit);
//   - an automatic plan cannot move into Production (field.Forbidden on
//     spec.environment);
//   - the spec cannot change while the plan holds edge.Finalizer (its
//     edge actions' restores are pending; field.Forbidden on spec).
//
// R-A6 (no material edit once approved) depends on the plan's status and is
// checked by Edit.
func ValidateUpdate(oldPlan, newPlan *ProtectionPlan, env ValidationEnv) error {
	r := rules{
		self:               oldPlan.Name,
		checkEnded:         !equality.Semantic.DeepEqual(oldPlan.Spec.Window, newPlan.Spec.Window),
		carriedEnvironment: oldPlan.Spec.Environment,
		carriedTags:        oldPlan.Spec.Tags,
	}
	errs := validatePlan(newPlan, env, r)
	errs = append(errs, validateTransition(oldPlan, newPlan)...)
	return NewValidationError(errs)
}

func validateTransition(oldPlan, newPlan *ProtectionPlan) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if newPlan.Name != "" && newPlan.Name != oldPlan.Name {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"),
			fmt.Sprintf("the plan ID cannot change (it is %q)", oldPlan.Name)))
	}
	if e := scopeTypeChange(oldPlan.Spec.Scope, newPlan.Spec.Scope, spec.Child("scope")); e != nil {
		errs = append(errs, e)
	}
	if e := approvalModeChange(oldPlan.Spec.ApprovalMode, newPlan.Spec.ApprovalMode, spec.Child("approvalMode")); e != nil {
		errs = append(errs, e)
	}
	if e := automaticIntoProduction(oldPlan.Spec, newPlan.Spec, spec.Child("environment")); e != nil {
		errs = append(errs, e)
	}
	if slices.Contains(oldPlan.Finalizers, edge.Finalizer) && !equality.Semantic.DeepEqual(oldPlan.Spec, newPlan.Spec) {
		// Seed 004: "Spec edits are rejected while the restoration
		// finalizer is present": the restores use what the journal
		// captured under this spec.
		errs = append(errs, field.Forbidden(spec, "the plan's edge actions have restores pending (finalizer "+edge.Finalizer+"): its spec cannot change until they are done or abandoned"))
	}
	return errs
}

func scopeTypeChange(oldScope, newScope Scope, fld *field.Path) *field.Error {
	from, to := oldScope.Type(), newScope.Type()
	if from == "" || to == "" || from == to {
		return nil
	}
	return field.Forbidden(fld, fmt.Sprintf(
		"the scope type cannot change after creation (from %s to %s); create a new plan with %s scope instead",
		from, to, withArticle(to)))
}

func approvalModeChange(from, to ApprovalMode, fld *field.Path) *field.Error {
	if to == "" || from == "" || to == from {
		return nil
	}
	return field.Forbidden(fld, fmt.Sprintf(
		"the approval mode is fixed when the plan is created (it is %s); duplicate the plan to get a new one", from))
}

func automaticIntoProduction(oldSpec, newSpec Spec, fld *field.Path) *field.Error {
	if oldSpec.ApprovalMode == ApprovalRequired || !IsProduction(newSpec.Environment) {
		return nil
	}
	return field.Forbidden(fld,
		"an automatic plan cannot move into Production, where every plan requires approval; duplicate it into Production instead")
}

// withArticle writes "an applications" or "a namespaces".
func withArticle(s ScopeType) string {
	if s == ScopeApplications {
		return "an " + string(s)
	}
	return "a " + string(s)
}
