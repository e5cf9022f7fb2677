package render

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// boundTemplate is a template with the plan's parameter values bound into
// its rules: every rule has its kinds and direction.
type boundTemplate struct {
	name  string
	rules []RuleSpec
}

// bindTemplate checks the parameters a plan gives a template and returns
// the template's rules with them applied. The check is plan validation's
// own (plan.TemplateInfo.ParseParameters, from the types and allowed
// values the catalog declares), so render refuses exactly what validation
// refuses. fld is the template entry's path.
func bindTemplate(t Template, params map[string]string, served plan.ServedKinds, fld *field.Path) (boundTemplate, field.ErrorList) {
	values, errs := t.info.ParseParameters(params, fld.Child("parameters"))
	bt := boundTemplate{name: t.info.Name}
	if len(errs) > 0 {
		return bt, errs
	}
	for _, r := range t.rules {
		r = r.clone()
		if r.KindsParam != "" {
			var e field.ErrorList
			r.Kinds, e = resolveKinds(values[r.KindsParam], served, plan.KeyPath(fld.Child("parameters"), r.KindsParam))
			r.KindsParam = ""
			errs = append(errs, e...)
		}
		if r.Condition == ReplicasChanged {
			r.Kinds = append(r.Kinds, scalableServed(served)...)
		}
		if r.DirectionParam != "" {
			d := DirectionAny
			if v := values[r.DirectionParam]; len(v) == 1 {
				d = Direction(v[0])
			}
			r.Direction, r.DirectionParam = d, ""
			if d != DirectionAny {
				r.What += " " + string(d)
			}
		}
		if r.Condition == ReplicasChanged && r.Direction == "" {
			r.Direction = DirectionAny
		}
		bt.rules = append(bt.rules, r)
		if r.Condition == ReplicasChanged {
			bt.rules = append(bt.rules, replicasPathRules(r)...)
		}
	}
	return bt, errs
}

// kindsOf returns the known kinds named, in catalog order whatever the
// order written, so that equivalent plans render the same bytes.
func kindsOf(names []string) []Kind {
	var out []Kind
	for _, k := range knownKinds {
		for _, n := range names {
			if k.Kind == n {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

func kindNameList() []string {
	names := make([]string, len(knownKinds))
	for i, k := range knownKinds {
		names[i] = k.Kind
	}
	return names
}
