package plan

import (
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ServedKind is a kind the cluster serves, as API discovery and the CRD
// report it: the facts the embedder gathers and passes in
// (ValidationEnv.Kinds, render.Input.Kinds), so that the library stays
// pure. Plans name such a kind "<Kind>.<group>", e.g.
// "Rollout.argoproj.io" (CustomKindName).
type ServedKind struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Kind     string `json:"kind"`
	Resource string `json:"resource"`
	// Namespaced is false for a cluster-scoped kind, which no plan can
	// freeze (a scope is namespaces).
	Namespaced bool `json:"namespaced"`
	// ScaleReplicasPath is the JSON path of the replicas the kind's /scale
	// subresource reads and writes, as the CRD declares it
	// (subresources.scale.specReplicasPath, e.g. ".spec.replicas"); empty
	// when the kind has no /scale.
	ScaleReplicasPath string `json:"scaleReplicasPath,omitempty"`
}

// Name is how plans name the kind: "<Kind>.<group>".
func (k ServedKind) Name() string { return k.Kind + "." + k.Group }

// ServedKinds are the discovery facts: the kinds of the cluster's own API
// groups that plans may name.
type ServedKinds []ServedKind

// Lookup finds a kind by its name ("Rollout.argoproj.io").
func (ks ServedKinds) Lookup(name string) (ServedKind, bool) {
	i := slices.IndexFunc(ks, func(k ServedKind) bool { return k.Name() == name })
	if i < 0 {
		return ServedKind{}, false
	}
	return ks[i], true
}

// customKindPattern is a custom kind's name: an identifier, a dot and an
// API group (a DNS subdomain with at least one dot).
var customKindPattern = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$`)

// IsCustomKindName reports whether s is written as a custom kind:
// "<Kind>.<group>", the group a DNS subdomain with a dot.
func IsCustomKindName(s string) bool {
	if !customKindPattern.MatchString(s) {
		return false
	}
	_, group, _ := strings.Cut(s, ".")
	return len(validation.IsDNS1123Subdomain(group)) == 0
}

// CheckCustomKind checks a custom kind a plan names against the served
// kinds: it must be served and namespaced, and have a /scale when
// scalable is asked for. nil kinds (the embedder gave no discovery facts)
// checks nothing. fld is where the name was written.
func CheckCustomKind(name string, kinds ServedKinds, scalable bool, fld *field.Path) *field.Error {
	if kinds == nil {
		return nil
	}
	k, ok := kinds.Lookup(name)
	switch {
	case !ok:
		e := field.NotFound(fld, name)
		e.Detail = "the cluster serves no such kind"
		return e
	case !k.Namespaced:
		return field.Invalid(fld, name, "is cluster-scoped; a plan freezes namespaced kinds only")
	case scalable && k.ScaleReplicasPath == "":
		return field.Invalid(fld, name, "has no /scale subresource")
	}
	return nil
}

// validateCustomKinds checks every custom kind a plan names, in its
// templates' kinds parameters and its excluded kinds, against the served
// kinds.
func validateCustomKinds(p *ProtectionPlan, env ValidationEnv, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ref := range p.Spec.Templates {
		v, ok := ref.Parameters["kinds"]
		if !ok {
			continue
		}
		for _, item := range splitList(v) {
			if IsCustomKindName(item) {
				if e := CheckCustomKind(item, env.Kinds, false, KeyPath(spec.Child("templates").Index(i).Child("parameters"), "kinds")); e != nil {
					errs = append(errs, e)
				}
			}
		}
	}
	for i, k := range p.Spec.Exclusions.Kinds {
		if IsCustomKindName(k) {
			if e := CheckCustomKind(k, env.Kinds, false, spec.Child("exclusions", "kinds").Index(i)); e != nil {
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// splitList splits a stringList value as Parse does.
func splitList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if item := strings.TrimSpace(part); item != "" {
			out = append(out, item)
		}
	}
	return out
}
