package plan

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
	keys := make([]string, 0, len(ref.Parameters))
	for k := range ref.Parameters {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if e := validateParameter(info, k, ref.Parameters[k], p.Child("parameters").Key(k)); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

func validateParameter(info TemplateInfo, name, value string, p *field.Path) *field.Error {
	decl, ok := info.Parameter(name)
	if !ok {
		return field.Invalid(p, name, fmt.Sprintf("template %s declares no parameter of this name (it declares: %s)",
			info.Name, declaredParameters(info)))
	}
	if msg := checkParameterValue(decl.Type, value); msg != "" {
		return field.Invalid(p, value, msg)
	}
	return nil
}

// checkParameterValue returns why value does not parse as t, or "".
func checkParameterValue(t ParameterType, value string) string {
	switch t {
	case ParamInteger:
		if _, err := strconv.ParseInt(value, 10, 64); err != nil {
			return "must be an integer"
		}
	case ParamBoolean:
		if value != "true" && value != "false" {
			return "must be true or false"
		}
	case ParamDuration:
		if _, err := time.ParseDuration(value); err != nil {
			return "must be a duration such as 90s, 15m or 2h"
		}
	}
	return ""
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
