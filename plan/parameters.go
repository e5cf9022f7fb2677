package plan

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// This file is the one definition of a template parameter's values:
// validation (Validate, ValidateUpdate, and so reconcile.Admit) refuses
// with it, and render binds the values it returns, so render never refuses
// a valid plan's parameters.

// ParseParameters checks the parameters a plan gives the template (the
// map of a TemplateRef) and returns the value of every parameter the
// template declares, given or defaulted, parsed by Parse (a parameter
// neither given nor defaulted has none). Problems are
// field errors under fld (the entry's parameters): a name the template
// does not declare, a value Parse refuses. Keys are checked in sorted
// order; a key that could break a one-line error is quoted (KeyPath).
func (t TemplateInfo) ParseParameters(params map[string]string, fld *field.Path) (map[string][]string, field.ErrorList) {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs field.ErrorList
	out := make(map[string][]string, len(t.Parameters))
	for _, k := range keys {
		decl, ok := t.Parameter(k)
		if !ok {
			errs = append(errs, field.Invalid(KeyPath(fld, k), k, fmt.Sprintf("template %s declares no parameter of this name (it declares: %s)",
				t.Name, declaredParameters(t))))
			continue
		}
		vals, e := decl.Parse(params[k], KeyPath(fld, k))
		errs = append(errs, e...)
		out[k] = vals
	}
	for _, decl := range t.Parameters {
		if _, given := params[decl.Name]; !given && decl.Default != "" {
			vals, e := decl.Parse(decl.Default, KeyPath(fld, decl.Name))
			errs = append(errs, e...)
			out[decl.Name] = vals
		}
	}
	return out, errs
}

// Parse checks a value of the parameter against its type and allowed
// values, and returns what it holds: for a stringList, its items (split at
// commas, trimmed, empty items dropped, each once, in the order written),
// at least one; for the other types, the trimmed value. An empty value is
// refused whatever the type (leave the parameter out for its default).
// Problems are field errors at fld.
func (p ParameterInfo) Parse(value string, fld *field.Path) ([]string, field.ErrorList) {
	if p.Type == ParamStringList {
		return p.parseList(value, fld)
	}
	v := strings.TrimSpace(value)
	if v == "" {
		return nil, field.ErrorList{field.Invalid(fld, value, "must not be empty"+p.among())}
	}
	if len(p.Values) > 0 && !slices.Contains(p.Values, v) {
		return nil, field.ErrorList{field.NotSupported(fld, value, p.Values)}
	}
	if msg := checkParameterValue(p.Type, v); msg != "" {
		return nil, field.ErrorList{field.Invalid(fld, value, msg)}
	}
	return []string{v}, nil
}

func (p ParameterInfo) parseList(value string, fld *field.Path) ([]string, field.ErrorList) {
	var (
		out  []string
		errs field.ErrorList
	)
	for _, part := range strings.Split(value, ",") {
		item := strings.TrimSpace(part)
		switch {
		case item == "" || slices.Contains(out, item):
		case p.CustomKinds && IsCustomKindName(item):
			out = append(out, item)
		case len(p.Values) > 0 && !slices.Contains(p.Values, item):
			errs = append(errs, field.NotSupported(fld, item, p.Values))
		default:
			out = append(out, item)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(out) == 0 {
		return nil, field.ErrorList{field.Invalid(fld, value, "must list at least one value"+p.among())}
	}
	return out, nil
}

// among is ", among: a, b, c" when the values are declared.
func (p ParameterInfo) among() string {
	if len(p.Values) == 0 {
		return ""
	}
	return ", among: " + strings.Join(p.Values, ", ")
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

// KeyPath is fld.Key(key), with the key quoted (Go syntax, cut after 64
// characters) when it holds anything but letters, digits and punctuation
// other than brackets and quotes: a key is user text, and a line break or
// a bracket in it must not break a one-line error or make the path
// ambiguous.
func KeyPath(fld *field.Path, key string) *field.Path {
	plain := key != "" && len(key) <= 64 && strings.IndexFunc(key, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)) ||
			strings.ContainsRune(`[]"'`, r)
	}) < 0
	if plain {
		return fld.Key(key)
	}
	return fld.Key(strconv.Quote(Shorten(key, 64)))
}
