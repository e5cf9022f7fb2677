package plan

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// CategoryKind says whether a category is an environment or a tag.
type CategoryKind string

const (
	// KindEnvironment categories go in spec.environment (at most one).
	KindEnvironment CategoryKind = "environment"
	// KindTag categories go in spec.tags (up to MaxTags).
	KindTag CategoryKind = "tag"
)

// Category limits.
const (
	// MaxTags is how many tags one plan may carry.
	MaxTags = 20
	// MaxCategoryName is the longest category name, in characters.
	MaxCategoryName = 40
	// MaxCategoryDescription is the longest category description.
	MaxCategoryDescription = 256
	// MaxCustomEnvironments is how many environments may be added.
	MaxCustomEnvironments = 50
	// MaxCustomTags is how many tags may be added.
	MaxCustomTags = 200
)

// Built-in category names. They cannot be deleted or renamed.
const (
	EnvironmentProduction  = "Production"
	EnvironmentStaging     = "Staging"
	EnvironmentDevelopment = "Development"
	TagCompliance          = "Compliance"
	TagSecurity            = "Security"
	TagBaseline            = "Baseline"
)

// Category is one environment or tag.
type Category struct {
	// Kind is environment or tag.
	Kind CategoryKind `json:"kind"`
	// Name is unique within its kind, ignoring case.
	Name string `json:"name"`
	// Description says what the category is for.
	Description string `json:"description,omitempty"`
	// BuiltIn categories ship with the library.
	BuiltIn bool `json:"builtIn,omitempty"`
}

var builtInCategories = []Category{
	{Kind: KindEnvironment, Name: EnvironmentProduction, Description: "Production workloads; plans here always require approval.", BuiltIn: true},
	{Kind: KindEnvironment, Name: EnvironmentStaging, Description: "Pre-production workloads.", BuiltIn: true},
	{Kind: KindEnvironment, Name: EnvironmentDevelopment, Description: "Development workloads.", BuiltIn: true},
	{Kind: KindTag, Name: TagCompliance, Description: "Freezes required by a compliance control.", BuiltIn: true},
	{Kind: KindTag, Name: TagSecurity, Description: "Freezes that protect security-sensitive resources.", BuiltIn: true},
	{Kind: KindTag, Name: TagBaseline, Description: "Freezes that are always in place.", BuiltIn: true},
}

// Categories are the environments and tags plans may carry: the built-in
// ones plus those added by the embedder. The value is immutable: Add,
// Update and Delete return a new value, and the caller stores it where it
// likes (Custom lists what to store). The zero value holds the built-ins.
type Categories struct {
	custom []Category
}

// IsProduction reports whether env names the Production environment,
// ignoring case and surrounding spaces. Production is built in and cannot
// be renamed, so this needs no Categories value. It is the only category
// that changes behaviour: a plan in Production requires approval.
func IsProduction(env string) bool {
	return SameName(env, EnvironmentProduction)
}

// SameName reports whether two names are equal ignoring case and
// surrounding spaces: the rule for plan display names and categories.
func SameName(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// NewCategories returns the built-ins plus custom, as stored by the
// embedder. Built-in entries in custom are ignored. It refuses the same
// things Add refuses.
func NewCategories(custom []Category) (Categories, error) {
	var c Categories
	var err error
	for _, cat := range custom {
		if cat.BuiltIn || c.isBuiltIn(cat.Kind, cat.Name) {
			continue
		}
		if c, err = c.Add(cat); err != nil {
			return Categories{}, err
		}
	}
	return c, nil
}

// All returns every category of kind, built-ins first, then the custom
// ones in the order they were added.
func (c Categories) All(kind CategoryKind) []Category {
	var out []Category
	for _, cat := range append(append([]Category(nil), builtInCategories...), c.custom...) {
		if cat.Kind == kind {
			out = append(out, cat)
		}
	}
	return out
}

// Names returns the names of every category of kind.
func (c Categories) Names(kind CategoryKind) []string {
	var out []string
	for _, cat := range c.All(kind) {
		out = append(out, cat.Name)
	}
	return out
}

// Custom returns the categories that were added (what the embedder stores).
func (c Categories) Custom() []Category {
	return append([]Category(nil), c.custom...)
}

// Lookup returns the category of kind called name, ignoring case and
// surrounding spaces.
func (c Categories) Lookup(kind CategoryKind, name string) (Category, bool) {
	for _, cat := range c.All(kind) {
		if SameName(cat.Name, name) {
			return cat, true
		}
	}
	return Category{}, false
}

// Has reports whether a category of kind is called exactly name. Plans
// must spell categories as they are defined.
func (c Categories) Has(kind CategoryKind, name string) bool {
	cat, ok := c.Lookup(kind, name)
	return ok && cat.Name == name
}

func (c Categories) isBuiltIn(kind CategoryKind, name string) bool {
	cat, ok := c.Lookup(kind, name)
	return ok && cat.BuiltIn
}

// Add returns c with cat added. It refuses (a *ValidationError) a bad
// kind, an empty or over-long name, a name with surrounding spaces or
// characters other than letters, digits, spaces and "-_.&/", a name taken
// ignoring case (409), and more than MaxCustomEnvironments environments or
// MaxCustomTags tags.
func (c Categories) Add(cat Category) (Categories, error) {
	cat.BuiltIn = false
	errs := validateCategory(cat, field.NewPath("category"))
	if len(errs) == 0 {
		if other, taken := c.Lookup(cat.Kind, cat.Name); taken {
			errs = append(errs, duplicateName(field.NewPath("category", "name"), cat.Name,
				fmt.Sprintf("%s %q already exists (names ignore case)", cat.Kind, other.Name)))
		}
	}
	if len(errs) == 0 && c.countCustom(cat.Kind) >= maxCustom(cat.Kind) {
		errs = append(errs, field.TooMany(field.NewPath("category"), c.countCustom(cat.Kind)+1, maxCustom(cat.Kind)))
	}
	if len(errs) > 0 {
		return c, NewValidationError(errs)
	}
	out := Categories{custom: append(c.Custom(), cat)}
	return out, nil
}

// Update returns c with the category of kind called name replaced by cat
// (which may rename it). Built-ins cannot be changed (400); an unknown
// category is a *NotFoundError (404); a new name taken by another category
// is 409.
func (c Categories) Update(kind CategoryKind, name string, cat Category) (Categories, error) {
	i, err := c.customIndex(kind, name)
	if err != nil {
		return c, err
	}
	cat.Kind, cat.BuiltIn = kind, false
	errs := validateCategory(cat, field.NewPath("category"))
	if other, taken := c.Lookup(kind, cat.Name); len(errs) == 0 && taken && !SameName(other.Name, name) {
		errs = append(errs, duplicateName(field.NewPath("category", "name"), cat.Name,
			fmt.Sprintf("%s %q already exists (names ignore case)", kind, other.Name)))
	}
	if len(errs) > 0 {
		return c, NewValidationError(errs)
	}
	out := Categories{custom: c.Custom()}
	out.custom[i] = cat
	return out, nil
}

// Delete returns c without the category of kind called name. Built-ins
// cannot be deleted (400); an unknown category is a *NotFoundError (404).
// Plans that carry the deleted category keep it; ValidateUpdate accepts a
// category the plan already carried, so they can still be edited.
func (c Categories) Delete(kind CategoryKind, name string) (Categories, error) {
	i, err := c.customIndex(kind, name)
	if err != nil {
		return c, err
	}
	out := Categories{custom: c.Custom()}
	out.custom = append(out.custom[:i], out.custom[i+1:]...)
	return out, nil
}

func (c Categories) customIndex(kind CategoryKind, name string) (int, error) {
	if c.isBuiltIn(kind, name) {
		return 0, NewValidationError(field.ErrorList{field.Forbidden(field.NewPath("category", "name"),
			fmt.Sprintf("%q is a built-in %s; built-ins cannot be renamed, changed or deleted", name, kind))})
	}
	for i, cat := range c.custom {
		if cat.Kind == kind && SameName(cat.Name, name) {
			return i, nil
		}
	}
	return 0, &NotFoundError{What: string(kind), Name: name}
}

func (c Categories) countCustom(kind CategoryKind) int {
	n := 0
	for _, cat := range c.custom {
		if cat.Kind == kind {
			n++
		}
	}
	return n
}

func maxCustom(kind CategoryKind) int {
	if kind == KindEnvironment {
		return MaxCustomEnvironments
	}
	return MaxCustomTags
}

func validateCategory(cat Category, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if cat.Kind != KindEnvironment && cat.Kind != KindTag {
		errs = append(errs, field.NotSupported(fld.Child("kind"), cat.Kind, []CategoryKind{KindEnvironment, KindTag}))
	}
	errs = append(errs, validateCategoryName(cat.Name, fld.Child("name"))...)
	if utf8.RuneCountInString(cat.Description) > MaxCategoryDescription {
		errs = append(errs, field.TooLongCharacters(fld.Child("description"), cat.Description, MaxCategoryDescription))
	}
	return errs
}

func validateCategoryName(name string, fld *field.Path) field.ErrorList {
	switch {
	case name == "":
		return field.ErrorList{field.Required(fld, "a category needs a name")}
	case strings.TrimSpace(name) != name:
		return field.ErrorList{field.Invalid(fld, name, "must not start or end with a space")}
	case utf8.RuneCountInString(name) > MaxCategoryName:
		return field.ErrorList{field.TooLongCharacters(fld, name, MaxCategoryName)}
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" -_.&/", r) {
			return field.ErrorList{field.Invalid(fld, name,
				fmt.Sprintf("must contain only letters, digits, spaces and -_.&/ (found %q)", r))}
		}
	}
	return nil
}

// duplicateName is a field.Duplicate with a detail saying what collides.
func duplicateName(fld *field.Path, value, detail string) *field.Error {
	e := field.Duplicate(fld, value)
	e.Detail = detail
	return e
}

// NotFoundError says that a named thing (a category, ...) does not exist.
type NotFoundError struct {
	// What is the kind of thing, e.g. "tag".
	What string
	// Name is the name asked for.
	Name string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %q not found", e.What, e.Name) }

// HTTPCode is 404.
func (e *NotFoundError) HTTPCode() int { return http.StatusNotFound }

// IsNotFound reports whether err is a *NotFoundError.
func IsNotFound(err error) bool {
	var nf *NotFoundError
	return errors.As(err, &nf)
}
