package plan

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resolvedApps is what the applications of a scope resolved to.
type resolvedApps struct {
	// members is the union of the applications' members.
	members []ResourceRef
	// complete is true when every application resolved with at least one
	// member, so that a resource exclusion must name one of them.
	complete bool
}

func validateScope(s Scope, env ValidationEnv, fld *field.Path) (field.ErrorList, resolvedApps) {
	set := 0
	for _, n := range []int{len(s.Applications), len(s.Namespaces), len(s.NamespaceSelectors)} {
		if n > 0 {
			set++
		}
	}
	switch {
	case set > 1:
		return field.ErrorList{field.Invalid(fld, scopeParts(s),
			"set one of applications, namespaces or namespaceSelectors")}, resolvedApps{}
	case len(s.Applications) > 0:
		return validateApplications(s.Applications, env, fld.Child("applications"))
	case len(s.Namespaces) > 0:
		return validateNamespaces(s.Namespaces, env.Cluster, fld.Child("namespaces")), resolvedApps{}
	case len(s.NamespaceSelectors) > 0:
		return validateNamespaceSelectors(s.NamespaceSelectors, fld.Child("namespaceSelectors")), resolvedApps{}
	}
	return field.ErrorList{field.Required(fld, "set applications, namespaces or namespaceSelectors")}, resolvedApps{}
}

// scopeParts names the parts of a scope that are set, for the message of
// a scope that sets several.
func scopeParts(s Scope) string {
	var parts []string
	for _, p := range []struct {
		name string
		n    int
	}{{"applications", len(s.Applications)}, {"namespaces", len(s.Namespaces)}, {"namespaceSelectors", len(s.NamespaceSelectors)}} {
		if p.n > 0 {
			parts = append(parts, p.name)
		}
	}
	return strings.Join(parts, " and ")
}

func validateNamespaces(namespaces []string, cluster ClusterView, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	var excludedErr error
	for i, ns := range namespaces {
		p := fld.Index(i)
		if e := namespaceSyntax(ns, namespaces[:i], p, fld); e != nil {
			errs = append(errs, e)
			continue
		}
		if cluster == nil {
			continue
		}
		excluded, err := false, excludedErr
		if err == nil {
			excluded, err = cluster.IsExcludedNamespace(ns)
		}
		if err != nil && excludedErr == nil {
			excludedErr = err
			errs = append(errs, field.InternalError(fld,
				fmt.Errorf("cannot read the excluded-namespace list, try again later: %w", err)))
		}
		if e := namespaceInCluster(ns, excluded, cluster, p); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

func namespaceSyntax(ns string, before []string, p, list *field.Path) *field.Error {
	switch {
	case ns == "":
		return field.Required(p, "a namespace needs a name")
	case len(validation.IsDNS1123Label(ns)) > 0:
		return field.Invalid(p, ns, strings.Join(validation.IsDNS1123Label(ns), "; "))
	case slices.Contains(before, ns):
		return listedTwice(p, ns, list.Index(slices.Index(before, ns)))
	}
	return nil
}

func namespaceInCluster(ns string, excluded bool, cluster ClusterView, p *field.Path) *field.Error {
	switch {
	case cluster.IsReleaseNamespace(ns):
		return field.Invalid(p, ns, "is the release namespace, where protection plans run; a plan may not freeze it")
	case excluded:
		return field.Invalid(p, ns, "is an excluded namespace; plans may not target it")
	case !cluster.HasNamespace(ns):
		e := field.NotFound(p, ns)
		e.Detail = "no such namespace in the cluster"
		return e
	}
	return nil
}

func validateApplications(names []string, env ValidationEnv, fld *field.Path) (field.ErrorList, resolvedApps) {
	var errs field.ErrorList
	resolver := env.Applications
	apps := resolvedApps{complete: resolver != nil}
	for i, name := range names {
		p := fld.Index(i)
		switch {
		case name == "":
			errs = append(errs, field.Required(p, "an application needs a name"))
			continue
		case slices.Contains(names[:i], name):
			errs = append(errs, listedTwice(p, name, fld.Index(slices.Index(names[:i], name))))
			continue
		case resolver == nil:
			continue
		}
		app, err := resolver.ResolveApplication(name)
		switch {
		case errors.Is(err, ErrApplicationNotFound):
			e := field.NotFound(p, name)
			e.Detail = "no such application"
			errs = append(errs, e)
		case err != nil:
			errs = append(errs, field.InternalError(p, fmt.Errorf("cannot resolve the application, try again later: %w", err)))
		}
		if err == nil {
			errs = append(errs, applicationNamespaces(app, env.Cluster, p)...)
		}
		if err != nil || len(app.Members) == 0 {
			apps.complete = false
		}
		apps.members = append(apps.members, app.Members...)
	}
	return errs, apps
}

// kindPattern is what a Kubernetes kind looks like: ConfigMap, Deployment.
var kindPattern = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)

func validateExclusions(ex Exclusions, scope ScopeType, apps resolvedApps, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, kind := range ex.Kinds {
		p := fld.Child("kinds").Index(i)
		if e := validateKind(kind, p); e != nil {
			errs = append(errs, e)
		} else if j := slices.Index(ex.Kinds[:i], kind); j >= 0 {
			errs = append(errs, listedTwice(p, kind, fld.Child("kinds").Index(j)))
		}
	}
	if len(ex.Resources) == 0 {
		return errs
	}
	if scope == ScopeNamespaces || scope == ScopeNamespaceSelectors {
		return append(errs, field.Forbidden(fld.Child("resources"),
			"named resources can be excluded only from an applications scope; exclude whole kinds instead"))
	}
	for i, ref := range ex.Resources {
		errs = append(errs, validateResourceExclusion(ref, ex.Resources[:i], apps, fld.Child("resources"), i)...)
	}
	return errs
}

func validateKind(kind string, p *field.Path) *field.Error {
	switch {
	case kind == "":
		return field.Required(p, "a kind such as ConfigMap")
	case !kindPattern.MatchString(kind) && !IsCustomKindName(kind):
		return field.Invalid(p, kind, "must be a kind such as ConfigMap (an upper-case letter, then letters and digits), or a custom kind such as Rollout.argoproj.io")
	}
	return nil
}

func validateResourceExclusion(ref ResourceRef, before []ResourceRef, apps resolvedApps, list *field.Path, i int) field.ErrorList {
	p := list.Index(i)
	var errs field.ErrorList
	if e := validateKind(ref.Kind, p.Child("kind")); e != nil {
		errs = append(errs, e)
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), "the name of the resource to exclude"))
	} else if msgs := validation.IsDNS1123Subdomain(ref.Name); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("name"), ref.Name, strings.Join(msgs, "; ")))
	}
	if ref.Namespace == "" {
		errs = append(errs, field.Required(p.Child("namespace"), "the namespace of the resource to exclude"))
	} else if msgs := validation.IsDNS1123Label(ref.Namespace); len(msgs) > 0 {
		errs = append(errs, field.Invalid(p.Child("namespace"), ref.Namespace, strings.Join(msgs, "; ")))
	}
	if len(errs) > 0 {
		return errs
	}
	if j := slices.Index(before, ref); j >= 0 {
		return field.ErrorList{listedTwice(p, refString(ref), list.Index(j))}
	}
	if apps.complete && !slices.Contains(apps.members, ref) {
		return field.ErrorList{field.Invalid(p, refString(ref), "is not a member of the selected applications")}
	}
	return nil
}

// refString writes a resource as "Kind namespace/name".
func refString(r ResourceRef) string {
	return fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name)
}

// applicationNamespaces refuses an application that lives in the release
// namespace or an excluded namespace: freezing it would freeze them. An
// unreadable excluded list is not an error here (R-P8 answers 503 only for
// a namespace-scoped plan); the namespaces scope check covers the rest.
func applicationNamespaces(app Application, cluster ClusterView, p *field.Path) field.ErrorList {
	if cluster == nil {
		return nil
	}
	var errs field.ErrorList
	for _, ns := range app.Namespaces {
		excluded, err := cluster.IsExcludedNamespace(ns)
		switch {
		case cluster.IsReleaseNamespace(ns):
			errs = append(errs, field.Invalid(p, app.Name, fmt.Sprintf(
				"lives in %q, the release namespace, where protection plans run; a plan may not freeze it", ns)))
		case err == nil && excluded:
			errs = append(errs, field.Invalid(p, app.Name, fmt.Sprintf(
				"lives in %q, an excluded namespace; plans may not target it", ns)))
		}
	}
	return errs
}
