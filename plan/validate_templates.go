package plan

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateTemplates(refs []TemplateRef, scope ScopeType, cat Catalog, fld *field.Path) field.ErrorList {
	if len(refs) == 0 {
		return field.ErrorList{field.Required(fld, "choose at least one template from the catalog")}
	}
	var errs field.ErrorList
	for i, ref := range refs {
		p := fld.Index(i)
		if ref.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), "the catalog name of a template, e.g. image-change"))
			continue
		}
		if j := slices.IndexFunc(refs[:i], func(r TemplateRef) bool { return r.Name == ref.Name }); j >= 0 {
			errs = append(errs, listedTwice(p.Child("name"), ref.Name, fld.Index(j)))
			continue
		}
		if cat != nil {
			errs = append(errs, validateTemplate(ref, scope, cat, p)...)
		}
	}
	return errs
}

func validateTemplate(ref TemplateRef, scope ScopeType, cat Catalog, p *field.Path) field.ErrorList {
	info, ok := cat.Template(ref.Name)
	if !ok {
		return field.ErrorList{field.Invalid(p.Child("name"), ref.Name, "no template of this name in the catalog")}
	}
	var errs field.ErrorList
	if scope != "" && !info.Supports(scope) {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name,
			fmt.Sprintf("does not support %s scope (it supports: %s)", withArticle(scope), joinScopes(info.Scopes))))
	}
	_, perrs := info.ParseParameters(ref.Parameters, p.Child("parameters"))
	return append(errs, perrs...)
}

func declaredParameters(info TemplateInfo) string {
	if len(info.Parameters) == 0 {
		return "none"
	}
	names := make([]string, len(info.Parameters))
	for i, p := range info.Parameters {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

func joinScopes(scopes []ScopeType) string {
	s := make([]string, len(scopes))
	for i, x := range scopes {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
