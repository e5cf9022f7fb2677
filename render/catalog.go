package render

import (
	"slices"

	"github.com/telark/protectionplans/plan"
)

// Template is one entry of the fixed catalog: what validation and a
// dashboard's template picker see (Info), and the rule specs every target
// translates. Templates are values; their accessors return copies, so the
// catalog cannot be changed through them.
type Template struct {
	info  plan.TemplateInfo
	rules []RuleSpec
}

// Name is the template's stable catalog name, e.g. "image-change".
func (t Template) Name() string { return t.info.Name }

// Info returns the template's description: name, title, description,
// scopes and parameters.
func (t Template) Info() plan.TemplateInfo {
	info := t.info
	info.Scopes = slices.Clone(t.info.Scopes)
	info.Parameters = slices.Clone(t.info.Parameters)
	for i := range info.Parameters {
		info.Parameters[i].Values = slices.Clone(info.Parameters[i].Values)
	}
	return info
}

// Rules returns the template's rule specs, before parameters are bound.
func (t Template) Rules() []RuleSpec {
	out := make([]RuleSpec, len(t.rules))
	for i, r := range t.rules {
		out[i] = r.clone()
	}
	return out
}

// catalog is the built-in catalog, in display order. Names are stable: they
// are written in plans and in policy names and labels.
var catalog = []Template{
	createTemplate(),
	deleteTemplate(),
	imageChangeTemplate(),
	scalingTemplate(),
	configMapEditsTemplate(),
	secretEditsTemplate(),
	storageTemplate(),
	rolloutRestartTemplate(),
	allWritesTemplate(),
}

// Catalog returns the built-in templates in display order, e.g. for a
// dashboard's template picker.
func Catalog() []Template {
	return slices.Clone(catalog)
}

// Lookup returns the template called name.
func Lookup(name string) (Template, bool) {
	i := slices.IndexFunc(catalog, func(t Template) bool { return t.info.Name == name })
	if i < 0 {
		return Template{}, false
	}
	return catalog[i], true
}

// builtinCatalog adapts the built-in catalog to plan.Catalog.
type builtinCatalog struct{}

// Template implements plan.Catalog.
func (builtinCatalog) Template(name string) (plan.TemplateInfo, bool) {
	t, ok := Lookup(name)
	if !ok {
		return plan.TemplateInfo{}, false
	}
	return t.Info(), true
}

// DefaultCatalog is the built-in catalog as the plan package consults it
// (plan.Validate takes a plan.Catalog; plan does not import render).
var DefaultCatalog plan.Catalog = builtinCatalog{}

// bothScopes is the scope list of templates that support either scope.
var bothScopes = []plan.ScopeType{plan.ScopeApplications, plan.ScopeNamespaces}
