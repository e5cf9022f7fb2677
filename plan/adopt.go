package plan

import "strings"

// CreatedByAnnotation names who created a plan. A server sets it from its
// authenticated caller; on a plan that reached the cluster another way
// (kubectl apply) the cluster's admission guard
// (config/admission/created-by.yaml) holds it to the requester. The
// creator is the plan's first proposer, who may not approve it.
const CreatedByAnnotation = "telark.io/created-by"

// DefaultActor is the creator of a plan stored without CreatedByAnnotation.
const DefaultActor = "kubectl"

// CreatorOf returns the creator CreatedByAnnotation names, or
// DefaultActor.
func CreatorOf(p *ProtectionPlan) string {
	if a := strings.TrimSpace(p.Annotations[CreatedByAnnotation]); a != "" {
		return a
	}
	return DefaultActor
}

// ValidateExisting checks a plan that is already stored in the cluster
// but was never validated (applied with kubectl, not through a server),
// with the rules of Validate except two that describe the moment of
// creation rather than the plan:
//
//   - a window that has already ended is accepted: such a plan is created
//     terminated, not failed;
//   - approvalMode automatic in Production is accepted: the caller derives
//     the mode first (approval.DeriveMode makes it required).
//
// A display name another plan uses is a problem only when env.Names
// returns that plan: give it the plans created before this one, so that of
// two plans whose names clash the later one fails.
//
// A plan that already has a status (its generation changed with kubectl)
// keeps the environment and tags it carries even if their categories
// were deleted since, as ValidateUpdate does.
func ValidateExisting(p *ProtectionPlan, env ValidationEnv) error {
	r := rules{self: p.Name}
	if p.Status.Phase != "" {
		r.carriedEnvironment, r.carriedTags = p.Spec.Environment, p.Spec.Tags
	}
	return NewValidationError(validatePlan(p, env, r))
}
