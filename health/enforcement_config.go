package health

import (
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/telark/protectionplans/render"
)

// kyvernoConfig is what Enforcement reads of Kyverno's ConfigMap.
type kyvernoConfig struct {
	where    string // "kyverno/kyverno"
	filters  []resourceFilter
	excluded []excludedRequester
}

// resourceFilter is one [Kind,Namespace,Name] entry of resourceFilters.
type resourceFilter struct {
	text                        string
	group, kind, sub, namespace string
	name                        string
}

type excludedRequester struct {
	key, value string
}

var filterEntry = regexp.MustCompile(`\[([^\[\]]*)\]`)

// defaultExcludedGroups are exclusions that cannot touch a freeze: nodes
// cannot write the kinds the catalog freezes (NodeRestriction), and
// Kyverno's chart and manifests ship this one.
var defaultExcludedGroups = []string{"system:nodes"}

func parseKyvernoConfig(cm *unstructured.Unstructured) kyvernoConfig {
	var c kyvernoConfig
	if cm == nil {
		return c
	}
	c.where = cm.GetNamespace() + "/" + cm.GetName()
	data, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	for _, m := range filterEntry.FindAllStringSubmatch(data["resourceFilters"], -1) {
		parts := strings.Split(m[1], ",")
		f := resourceFilter{text: m[0], namespace: "", name: ""}
		if len(parts) > 3 || strings.TrimSpace(parts[0]) == "" {
			continue
		}
		f.group, f.kind, f.sub = parseFilterKind(strings.TrimSpace(parts[0]))
		if len(parts) > 1 {
			f.namespace = strings.TrimSpace(parts[1])
		}
		if len(parts) > 2 {
			f.name = strings.TrimSpace(parts[2])
		}
		c.filters = append(c.filters, f)
	}
	for _, key := range []string{"excludeGroups", "excludeUsernames", "excludeRoles", "excludeClusterRoles"} {
		for _, v := range strings.Split(data[key], ",") {
			v = strings.TrimSpace(v)
			// "!x" is an inclusion: it takes x back in.
			if v == "" || strings.HasPrefix(v, "!") || (key == "excludeGroups" && slices.Contains(defaultExcludedGroups, v)) {
				continue
			}
			c.excluded = append(c.excluded, excludedRequester{key: key, value: v})
		}
	}
	return c
}

// parseFilterKind reads the kind of a resource filter as Kyverno does:
// Kind, Kind/sub, */sub, */* (everything), version/Kind,
// group/version/Kind[/sub].
func parseFilterKind(s string) (group, kind, sub string) {
	if s == "*/*" {
		return "*", "*", "*"
	}
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 1:
		return "*", parts[0], ""
	case 2:
		if isVersion(parts[0]) {
			return "*", parts[1], ""
		}
		return "*", parts[0], parts[1]
	case 3:
		if isVersion(parts[0]) {
			return "*", parts[1], parts[2]
		}
		return parts[0], parts[2], ""
	}
	return parts[0], parts[2], parts[3]
}

var versionPattern = regexp.MustCompile(`^(\*|v\d+((alpha|beta)\d+)?)$`)

func isVersion(s string) bool { return versionPattern.MatchString(s) }

// drops reports whether the filter drops requests r in namespace ns for
// every object name ("*"), or for some (then it still opens a door).
func (f resourceFilter) drops(r request, ns string) bool {
	group := r.group
	if group == "*" {
		group = "" // the catalog's core kinds; named groups match below
		for _, k := range render.KnownKinds() {
			if k.Kind == r.kind {
				group = k.Group
				break
			}
		}
	}
	return glob(f.group, group) && glob(f.kind, r.kind) && glob(f.sub, r.subresource) && glob(f.namespace, ns)
}

// checkConfig reports Kyverno's requester exclusions (resource filters are
// per policy, in checkKyverno).
func (e *enforcer) checkConfig() {
	for _, x := range e.config.excluded {
		e.findings.add(ReasonRequestersExcluded, "", "ConfigMap "+e.config.where,
			"Kyverno's %s (ConfigMap %s) lists %s: their requests in %s are never checked by any policy",
			x.key, e.config.where, x.value, e.frozen())
	}
}

// runtimeFromMap converts an unstructured map into a typed value.
func runtimeFromMap(m map[string]any, into any) error {
	return runtime.DefaultUnstructuredConverter.FromUnstructured(m, into)
}
