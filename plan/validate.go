package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/edge"
	"github.com/telark/protectionplans/window"
)

// Text limits, in characters (runes), not bytes.
const (
	// MaxNameLength is the longest display name.
	MaxNameLength = 64
	// MaxDescriptionLength is the longest description.
	MaxDescriptionLength = 512
)

// Validate checks a plan that is about to be created. It returns nil or a
// *ValidationError holding every problem at once, each with its field
// path and a field error type that sets the code (see ValidationError):
//
//   - spec.name taken by another plan, ignoring case and surrounding
//     spaces: field.Duplicate (409 when it is the only problem);
//   - a lookup that failed (the excluded-namespace list, an application,
//     the names of other plans): field.InternalError (503);
//   - everything else the caller got wrong: 400.
//
// Validate never changes p. It does not default anything; call Defaults
// first when the plan should be validated as it will be stored.
func Validate(p *ProtectionPlan, env ValidationEnv) error {
	return NewValidationError(validatePlan(p, env, createRules()))
}

// rules are the differences between validating a new plan and an update.
type rules struct {
	// self is the ID of the plan being updated; its own name is not taken.
	self string
	// checkEnded refuses a window that already ended. An update checks it
	// only when the window changed: a terminated plan's window has ended,
	// and its description may still be edited.
	checkEnded bool
	// productionNeedsApproval refuses approvalMode automatic in
	// Production. An update reports it on spec.environment instead.
	productionNeedsApproval bool
	// carried are categories the plan already carried (an update accepts
	// them even if they were deleted since).
	carriedEnvironment string
	carriedTags        []string
}

func createRules() rules {
	return rules{checkEnded: true, productionNeedsApproval: true}
}

func validatePlan(p *ProtectionPlan, env ValidationEnv, r rules) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateID(p.Name, field.NewPath("metadata", "name"))
	errs = append(errs, validateName(p.Spec.Name, env.Names, r.self, spec.Child("name"))...)
	errs = append(errs, validateDescription(p.Spec.Description, spec.Child("description"))...)
	scopeErrs, apps := validateScope(p.Spec.Scope, env, spec.Child("scope"))
	errs = append(errs, scopeErrs...)
	errs = append(errs, validateExclusions(p.Spec.Exclusions, p.Spec.Scope.Type(), apps, spec.Child("exclusions"))...)
	errs = append(errs, ValidateRequesters(p.Spec.Requesters, spec.Child("requesters"))...)
	errs = append(errs, ValidateBreakGlass(p.Spec.BreakGlass, spec.Child("breakGlass"))...)
	errs = append(errs, edge.Validate(p.Spec.EdgeActions, spec.Child("edgeActions"))...)
	errs = append(errs, ValidateWarnings(p.Spec.Warnings, spec.Child("warnings"))...)
	errs = append(errs, validateTemplates(p.Spec.Templates, p.Spec.Scope.Type(), env.Catalog, spec.Child("templates"))...)
	errs = append(errs, validateCustomKinds(p, env, spec)...)
	errs = append(errs, validateWindow(p.Spec.Window, env.Now, r.checkEnded, spec.Child("window"))...)
	errs = append(errs, validateModes(p.Spec, r, spec)...)
	errs = append(errs, validateCategories(p.Spec, env.Categories, r, spec)...)
	return errs
}

// validateID checks metadata.name when it is set (a server may assign it
// later). It becomes a label value, so it must be a DNS-1123 label.
func validateID(id string, fld *field.Path) field.ErrorList {
	if id == "" {
		return nil
	}
	if msgs := validation.IsDNS1123Label(id); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(fld, id, strings.Join(msgs, "; "))}
	}
	return nil
}

func validateName(name string, names PlanNames, self string, fld *field.Path) field.ErrorList {
	if strings.TrimSpace(name) == "" {
		return field.ErrorList{field.Required(fld, "a plan needs a display name")}
	}
	errs := validateText(name, MaxNameLength, fld)
	if hasControl(name) {
		errs = append(errs, field.Invalid(fld, name, "must be one line without control characters"))
	}
	if names == nil {
		return errs
	}
	ids, err := names.PlansNamed(name)
	if err != nil {
		return append(errs, field.InternalError(fld, fmt.Errorf("cannot read the names of other plans: %w", err)))
	}
	for _, id := range ids {
		if id != self {
			return append(errs, duplicateName(fld, name,
				fmt.Sprintf("plan %q already has this name (names ignore case and surrounding spaces)", id)))
		}
	}
	return errs
}

func validateDescription(desc string, fld *field.Path) field.ErrorList {
	return validateText(desc, MaxDescriptionLength, fld)
}

// validateText refuses template delimiters and over-long text. The
// delimiters are refused because display text ends up in policy messages,
// and nothing a user writes may look like a Kyverno variable.
func validateText(s string, max int, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.Contains(s, "{{") || strings.Contains(s, "}}") {
		errs = append(errs, field.Invalid(fld, s, "must not contain {{ or }}"))
	}
	if utf8.RuneCountInString(s) > max {
		errs = append(errs, field.TooLongCharacters(fld, s, max))
	}
	return errs
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

func validateWindow(spec window.Spec, now time.Time, checkEnded bool, fld *field.Path) field.ErrorList {
	if errs := window.Validate(spec, fld); len(errs) > 0 {
		return errs
	}
	w, err := window.Parse(spec, window.WithFieldPath(fld))
	if err != nil {
		return windowErrors(err, fld)
	}
	if !checkEnded || !w.Ended(now) {
		return nil
	}
	if spec.EndAt != nil {
		end := spec.EndAt.UTC().Format(time.RFC3339)
		return field.ErrorList{field.Invalid(fld.Child("endAt"), end,
			"the window has already ended; give it an end in the future")}
	}
	return field.ErrorList{field.Invalid(fld, window.Describe(spec),
		"the window has already ended; give it an end in the future")}
}

func validateModes(spec Spec, r rules, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch spec.Mode {
	case ModeAudit, ModeEnforce:
	case "":
		errs = append(errs, field.Required(fld.Child("mode"), "must be audit or enforce"))
	default:
		errs = append(errs, field.NotSupported(fld.Child("mode"), spec.Mode, []Mode{ModeAudit, ModeEnforce}))
	}
	switch spec.ApprovalMode {
	case "", ApprovalRequired:
	case ApprovalAutomatic:
		if r.productionNeedsApproval && IsProduction(spec.Environment) {
			errs = append(errs, field.Invalid(fld.Child("approvalMode"), spec.ApprovalMode,
				"a plan in the Production environment always requires approval"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("approvalMode"), spec.ApprovalMode,
			[]ApprovalMode{ApprovalAutomatic, ApprovalRequired}))
	}
	return errs
}

func validateCategories(spec Spec, cats Categories, r rules, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if env := spec.Environment; env != "" && env != r.carriedEnvironment && !cats.Has(KindEnvironment, env) {
		errs = append(errs, field.NotSupported(fld.Child("environment"), env, cats.Names(KindEnvironment)))
	}
	if len(spec.Tags) > MaxTags {
		errs = append(errs, field.TooMany(fld.Child("tags"), len(spec.Tags), MaxTags))
	}
	for i, tag := range spec.Tags {
		p := fld.Child("tags").Index(i)
		switch {
		case tag == "":
			errs = append(errs, field.Required(p, "a tag needs a name"))
		case firstSame(spec.Tags[:i], tag) >= 0:
			errs = append(errs, listedTwice(p, tag, fld.Child("tags").Index(firstSame(spec.Tags[:i], tag))))
		case !cats.Has(KindTag, tag) && !slices.Contains(r.carriedTags, tag):
			errs = append(errs, field.NotSupported(p, tag, cats.Names(KindTag)))
		}
	}
	return errs
}

// firstSame returns the index of the first of list that is the same name
// as s (ignoring case and surrounding spaces), or -1.
func firstSame(list []string, s string) int {
	return slices.IndexFunc(list, func(x string) bool { return SameName(x, s) })
}

func listedTwice(fld *field.Path, value any, first *field.Path) *field.Error {
	return field.Invalid(fld, value, fmt.Sprintf("listed twice (first at %s)", first))
}
