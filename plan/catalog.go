package plan

// Catalog is how validation consults the template catalog without importing
// the render package (which imports plan). render.Catalog implements it.
type Catalog interface {
	// Template returns the template named name, and false when the catalog
	// has none.
	Template(name string) (TemplateInfo, bool)
}

// TemplateInfo is what validation (and a dashboard's template picker) needs
// to know about a template.
type TemplateInfo struct {
	// Name is the stable catalog name, e.g. "image-change".
	Name string `json:"name"`
	// Title is a short human title.
	Title string `json:"title"`
	// Description says what the template freezes.
	Description string `json:"description"`
	// Scopes are the scope types the template supports.
	Scopes []ScopeType `json:"scopes"`
	// Parameters are the parameters the template declares.
	Parameters []ParameterInfo `json:"parameters,omitempty"`
}

// Supports reports whether the template supports the scope type. A
// namespaceSelectors scope freezes whole namespaces, as a namespaces scope
// does: a template supports it when it supports namespaces.
func (t TemplateInfo) Supports(s ScopeType) bool {
	if s == ScopeNamespaceSelectors {
		s = ScopeNamespaces
	}
	for _, x := range t.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// Parameter returns the declared parameter called name.
func (t TemplateInfo) Parameter(name string) (ParameterInfo, bool) {
	for _, p := range t.Parameters {
		if p.Name == name {
			return p, true
		}
	}
	return ParameterInfo{}, false
}

// ParameterType is the type a parameter's string value is parsed as.
type ParameterType string

// Parameter types.
const (
	ParamString   ParameterType = "string"
	ParamInteger  ParameterType = "integer"
	ParamBoolean  ParameterType = "boolean"
	ParamDuration ParameterType = "duration"
	// ParamStringList is a comma-separated list of strings.
	ParamStringList ParameterType = "stringList"
)

// ParameterInfo declares one template parameter.
type ParameterInfo struct {
	Name        string        `json:"name"`
	Type        ParameterType `json:"type"`
	Default     string        `json:"default,omitempty"`
	Description string        `json:"description"`
	// Values are the values the parameter allows: the value itself, or
	// each item of a stringList. Empty allows any value of the type. See
	// Parse.
	Values []string `json:"values,omitempty"`
	// CustomKinds lets a stringList of kinds also name any namespaced kind
	// the cluster serves, written <Kind>.<group> (IsCustomKindName);
	// validation checks it against ValidationEnv.Kinds.
	CustomKinds bool `json:"customKinds,omitempty"`
}

// CatalogFunc adapts a function to Catalog.
type CatalogFunc func(name string) (TemplateInfo, bool)

// Template calls f.
func (f CatalogFunc) Template(name string) (TemplateInfo, bool) { return f(name) }

var _ Catalog = CatalogFunc(nil)
