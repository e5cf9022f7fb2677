package plan

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ParseCategoryKind reads a category kind named by a request (a path such
// as /categories/{kind}/{name}): environment or tag. Any other kind names
// no category: a *NotFoundError (404).
func ParseCategoryKind(s string) (CategoryKind, error) {
	switch k := CategoryKind(s); k {
	case KindEnvironment, KindTag:
		return k, nil
	}
	return "", &NotFoundError{What: "category kind", Name: s}
}

// Edit is Update for a request that names the category by kind and name
// and sends cat, which may restate the kind but not change it (400 on
// category.kind: delete the category and add one of the other kind). It
// returns the categories and the category as stored.
func (c Categories) Edit(kind CategoryKind, name string, cat Category) (Categories, Category, error) {
	if cat.Kind != "" && cat.Kind != kind {
		return c, Category{}, NewValidationError(field.ErrorList{field.Forbidden(field.NewPath("category", "kind"),
			fmt.Sprintf("a category cannot change kind (it is a %s); delete it and add a %s", kind, cat.Kind))})
	}
	next, err := c.Update(kind, name, cat)
	if err != nil {
		return c, Category{}, err
	}
	cat.Kind, cat.BuiltIn = kind, false
	return next, cat, nil
}
