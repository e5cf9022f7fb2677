package render

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
)

// nsScope is what one namespace of the scope renders from: which objects
// of the namespace are in scope, and which named resources are excluded.
type nsScope struct {
	name string
	// all is true when every object of the namespace is in scope (a
	// namespaces scope, or an application without a selector).
	all bool
	// selectors are the label selectors of the applications living in the
	// namespace, normalized, deduplicated and sorted; an object is in scope
	// when one of them selects it. Unused when all is set.
	selectors []*metav1.LabelSelector
	// apps are the applications living in the namespace with a selector,
	// sorted by name: the scope guards (LeavesApplication rules) are one per
	// application. Unused when all is set.
	apps []appScope
	// members are the names of the applications' scalable members in this
	// namespace, by kind name (Deployment), sorted: the vap target matches
	// /scale by name, since it cannot read a Scale's parent.
	members map[string][]string
	// excluded are the named-resource exclusions of this namespace, sorted.
	excluded []plan.ResourceRef
	// key is a canonical string of selectors, apps, members and excluded:
	// namespaces with the same key render the same policy spec.
	key string
	// nsSelector, in a namespaceSelectors scope, is the selector (ANDed
	// with the namespaces always left out) of a cluster-wide scope, and
	// selIndex its index in the plan; name is then empty
	// (namespace_selectors.go).
	nsSelector *metav1.LabelSelector
	selIndex   int
}

// appScope is one application of a namespace: its name (user text, only
// ever written into messages) and its normalized selector.
type appScope struct {
	name string
	sel  *metav1.LabelSelector
}

// resolveScope returns the namespaces in scope, sorted by name, each with
// its selectors and exclusions. Errors about the resolved applications are
// reported under "applications[<name>]" (the Input's field).
func resolveScope(in Input) ([]nsScope, field.ErrorList) {
	fld := field.NewPath("spec")
	spec := in.Plan.Spec
	var (
		byName map[string]*nsScope
		errs   field.ErrorList
	)
	switch spec.Scope.Type() {
	case plan.ScopeNamespaces:
		byName, errs = namespacesScope(spec.Scope.Namespaces, fld.Child("scope", "namespaces"))
	case plan.ScopeApplications:
		byName, errs = applicationsScope(spec.Scope.Applications, in.Applications)
	case plan.ScopeNamespaceSelectors:
		return selectorScopes(in, fld.Child("scope", "namespaceSelectors"))
	default:
		return nil, field.ErrorList{field.Required(fld.Child("scope"),
			"exactly one of applications, namespaces and namespaceSelectors must be set")}
	}
	errs = append(errs, addResourceExclusions(byName, spec.Exclusions.Resources,
		fld.Child("exclusions", "resources"))...)
	out := make([]nsScope, 0, len(byName))
	for _, ns := range byName {
		ns.finish()
		out = append(out, *ns)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, errs
}

func namespacesScope(names []string, fld *field.Path) (map[string]*nsScope, field.ErrorList) {
	byName := map[string]*nsScope{}
	var errs field.ErrorList
	for i, n := range names {
		if e := checkNamespace(n, fld.Index(i)); e != nil {
			errs = append(errs, e)
			continue
		}
		byName[n] = &nsScope{name: n, all: true}
	}
	return byName, errs
}

// applicationsScope gathers the namespaces of the resolved applications
// named in the scope. An application without a selector (nil or empty)
// puts its whole namespaces in scope.
func applicationsScope(names []string, apps []plan.Application) (map[string]*nsScope, field.ErrorList) {
	byName := map[string]*nsScope{}
	var errs field.ErrorList
	for i, name := range names {
		j := slices.IndexFunc(apps, func(a plan.Application) bool { return a.Name == name })
		if j < 0 {
			errs = append(errs, field.NotFound(field.NewPath("spec", "scope", "applications").Index(i), name))
			continue
		}
		app := apps[j]
		afld := field.NewPath("applications").Key(name)
		sel, e := normalizeSelector(app.Selector, afld.Child("selector"))
		errs = append(errs, e...)
		if len(app.Namespaces) == 0 {
			errs = append(errs, field.Required(afld.Child("namespaces"), "an application lives in at least one namespace"))
		}
		for k, n := range app.Namespaces {
			if e := checkNamespace(n, afld.Child("namespaces").Index(k)); e != nil {
				errs = append(errs, e)
				continue
			}
			ns := byName[n]
			if ns == nil {
				ns = &nsScope{name: n}
				byName[n] = ns
			}
			if sel == nil {
				ns.all = true
				continue
			}
			ns.selectors = append(ns.selectors, sel)
			ns.apps = append(ns.apps, appScope{name: name, sel: sel})
			ns.addMembers(app.Members)
		}
	}
	return byName, errs
}

// addMembers files the scalable members of an application that live in
// the namespace. Their names are checked when a target uses them
// (checkMembers).
func (ns *nsScope) addMembers(members []plan.ResourceRef) {
	for _, m := range members {
		k, ok := kindByName(m.Kind)
		if !ok || !k.Scalable || m.Namespace != ns.name {
			continue
		}
		if ns.members == nil {
			ns.members = map[string][]string{}
		}
		ns.members[k.Kind] = append(ns.members[k.Kind], m.Name)
	}
}

// addResourceExclusions files each named-resource exclusion under its
// namespace. An exclusion of a namespace out of scope excludes nothing.
func addResourceExclusions(byName map[string]*nsScope, refs []plan.ResourceRef, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range refs {
		e := checkResourceRef(r, fld.Index(i))
		if len(e) > 0 {
			errs = append(errs, e...)
			continue
		}
		if ns := byName[r.Namespace]; ns != nil && !slices.Contains(ns.excluded, r) {
			ns.excluded = append(ns.excluded, r)
		}
	}
	return errs
}

// finish sorts and deduplicates, and computes the key.
func (ns *nsScope) finish() {
	if ns.all {
		ns.selectors = nil
	}
	sort.Slice(ns.selectors, func(i, j int) bool { return selectorKey(ns.selectors[i]) < selectorKey(ns.selectors[j]) })
	ns.selectors = slices.CompactFunc(ns.selectors, func(a, b *metav1.LabelSelector) bool {
		return selectorKey(a) == selectorKey(b)
	})
	sort.Slice(ns.excluded, func(i, j int) bool { return refLess(ns.excluded[i], ns.excluded[j]) })
	ex, _ := json.Marshal(ns.excluded)
	if ns.all {
		ns.apps, ns.members = nil, nil
		ns.key = "*#" + string(ex)
		return
	}
	sort.SliceStable(ns.apps, func(i, j int) bool { return ns.apps[i].name < ns.apps[j].name })
	ns.apps = slices.CompactFunc(ns.apps, func(a, b appScope) bool {
		return a.name == b.name && selectorKey(a.sel) == selectorKey(b.sel)
	})
	for k, names := range ns.members {
		ns.members[k] = slices.Compact(slices.Sorted(slices.Values(names)))
	}
	parts := []string{}
	for _, s := range ns.selectors {
		parts = append(parts, selectorKey(s))
	}
	for _, a := range ns.apps {
		parts = append(parts, "app:"+strconvQuote(a.name)+"="+selectorKey(a.sel))
	}
	members, _ := json.Marshal(ns.members) // map keys are sorted
	ns.key = strings.Join(parts, "|") + "#" + string(members) + "#" + string(ex)
}

// strconvQuote quotes s so that no name can fake a separator of the key.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// groupByKind splits refs, sorted by kind then name, into runs of one kind.
func groupByKind(refs []plan.ResourceRef) [][]plan.ResourceRef {
	var out [][]plan.ResourceRef
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].Kind == refs[i].Kind {
			j++
		}
		out = append(out, refs[i:j])
		i = j
	}
	return out
}

// checkMembers checks the member names a target writes into policies:
// they must be DNS subdomains (what Kubernetes allows as names).
func checkMembers(nss []nsScope) field.ErrorList {
	var errs field.ErrorList
	for _, ns := range nss {
		for _, kind := range slices.Sorted(maps.Keys(ns.members)) {
			for _, n := range ns.members[kind] {
				if msgs := validation.IsDNS1123Subdomain(n); len(msgs) > 0 {
					fld := field.NewPath("applications").Child("members")
					errs = append(errs, field.Invalid(fld, ns.name+"/"+kind+"/"+n, strings.Join(msgs, "; ")))
				}
			}
		}
	}
	return errs
}

func refLess(a, b plan.ResourceRef) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Name < b.Name
}

func checkNamespace(n string, fld *field.Path) *field.Error {
	if msgs := validation.IsDNS1123Label(n); len(msgs) > 0 {
		return field.Invalid(fld, n, strings.Join(msgs, "; "))
	}
	return nil
}

// checkResourceRef refuses what could reach Kyverno as something other
// than a plain name: kinds must be identifiers, names DNS subdomains (no
// wildcard can get through either).
func checkResourceRef(r plan.ResourceRef, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if e := checkKindName(r.Kind, fld.Child("kind")); e != nil {
		errs = append(errs, e)
	}
	if msgs := validation.IsDNS1123Subdomain(r.Name); len(msgs) > 0 {
		errs = append(errs, field.Invalid(fld.Child("name"), r.Name, strings.Join(msgs, "; ")))
	}
	if e := checkNamespace(r.Namespace, fld.Child("namespace")); e != nil {
		errs = append(errs, e)
	}
	return errs
}
