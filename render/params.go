package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// boundTemplate is a template with the plan's parameter values bound into
// its rules: every rule has its kinds and direction.
type boundTemplate struct {
	name  string
	rules []RuleSpec
}

// bindTemplate checks the parameters a plan gives a template and returns
// the template's rules with them applied. Plan validation checks names and
// types; the values of kinds lists and enumerations are checked here, since
// only the catalog knows them. fld is the template entry's path.
func bindTemplate(t Template, params map[string]string, fld *field.Path) (boundTemplate, field.ErrorList) {
	errs := checkParameterNames(t, params, fld.Child("parameters"))
	bt := boundTemplate{name: t.info.Name}
	for _, r := range t.rules {
		r = r.clone()
		if r.KindsParam != "" {
			kinds, e := parseKinds(paramValue(t, params, r.KindsParam), fld.Child("parameters").Key(r.KindsParam))
			errs = append(errs, e...)
			r.Kinds, r.KindsParam = kinds, ""
		}
		if r.DirectionParam != "" {
			d, e := parseDirection(paramValue(t, params, r.DirectionParam), fld.Child("parameters").Key(r.DirectionParam))
			if e != nil {
				errs = append(errs, e)
			}
			r.Direction, r.DirectionParam = d, ""
			if d != DirectionAny && d != "" {
				r.What += " " + string(d)
			}
		}
		if r.Condition == ReplicasChanged && r.Direction == "" {
			r.Direction = DirectionAny
		}
		bt.rules = append(bt.rules, r)
	}
	return bt, errs
}

// checkParameterNames refuses parameters the template does not declare.
func checkParameterNames(t Template, params map[string]string, fld *field.Path) field.ErrorList {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	var errs field.ErrorList
	for _, k := range names {
		if _, ok := t.info.Parameter(k); !ok {
			errs = append(errs, field.Invalid(fld.Key(k), k,
				fmt.Sprintf("template %s declares no parameter of this name", t.info.Name)))
		}
	}
	return errs
}

// paramValue returns the plan's value of a parameter, or its default.
func paramValue(t Template, params map[string]string, name string) string {
	if v, ok := params[name]; ok {
		return v
	}
	p, _ := t.info.Parameter(name)
	return p.Default
}

// parseKinds reads a comma-separated list of known kind names. The result
// is in catalog order whatever the order written, without duplicates, so
// that equivalent plans render the same bytes.
func parseKinds(value string, fld *field.Path) ([]Kind, field.ErrorList) {
	var errs field.ErrorList
	seen := map[string]bool{}
	for _, part := range strings.Split(value, ",") {
		name := strings.TrimSpace(part)
		if name == "" {
			continue
		}
		if _, ok := kindByName(name); !ok {
			errs = append(errs, field.NotSupported(fld, name, kindNameList()))
			continue
		}
		seen[name] = true
	}
	var out []Kind
	for _, k := range knownKinds {
		if seen[k.Kind] {
			out = append(out, k)
		}
	}
	if len(out) == 0 && len(errs) == 0 {
		errs = append(errs, field.Invalid(fld, value, "must list at least one kind, among: "+knownKindNames()))
	}
	return out, errs
}

func kindNameList() []string {
	names := make([]string, len(knownKinds))
	for i, k := range knownKinds {
		names[i] = k.Kind
	}
	return names
}

// parseDirection reads any, up or down.
func parseDirection(value string, fld *field.Path) (Direction, *field.Error) {
	d := Direction(strings.TrimSpace(value))
	valid := []Direction{DirectionAny, DirectionUp, DirectionDown}
	if !slices.Contains(valid, d) {
		return "", field.NotSupported(fld, value, []string{"any", "up", "down"})
	}
	return d, nil
}
