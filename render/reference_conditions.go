package render

import (
	"reflect"
	"slices"
	"strings"
)

// The Go twins of the JMESPath conditions in kyverno_rules.go (and of the
// CEL ones in cel_rules.go). Each reads a missing field the way the
// JMESPath "x || default" does: JMESPath's false values (null, false, "",
// [], {}) give the default.

// conditionHolds evaluates a rule's condition on a request, with a case
// for every condition type; an unknown one is an *UnknownConditionError.
func conditionHolds(r RuleSpec, ns nsScope, req Request) (bool, error) {
	newObj, oldObj := req.Object, req.OldObject
	switch r.Condition {
	case Always:
		return r.hasOp(req.Operation), nil
	case ImagesChanged:
		path := strings.Split(r.Kinds[0].PodSpec, ".")
		return !slices.Equal(imagePairs(newObj, path), imagePairs(oldObj, path)), nil
	case ReplicasChanged:
		f := r.replicasFields()
		n, o := number(lookup(newObj, f...)), number(lookup(oldObj, f...))
		switch r.Direction {
		case DirectionUp:
			return n > o, nil
		case DirectionDown:
			return n < o, nil
		}
		return n != o, nil
	case RestartedAtChanged:
		p := []string{"spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"}
		return fieldChanged(newObj, oldObj, "", p...), nil
	case StorageRequestChanged:
		return fieldChanged(newObj, oldObj, "", "spec", "resources", "requests", "storage"), nil
	case DataChanged:
		return fieldChanged(newObj, oldObj, "", "data") || fieldChanged(newObj, oldObj, "", "binaryData") ||
			fieldChanged(newObj, oldObj, "", "stringData") || fieldChanged(newObj, oldObj, false, "immutable"), nil
	case LeavesApplication:
		// A scope guard, in scope when the application's selector selects
		// the old object (inScope). A missing selector selects nothing.
		_, newLabels := objectLabels(req)
		sel := ns.appSelector(r.Application)
		return sel == nil || !selectorMatchesOne(sel, newLabels), nil
	}
	return false, unknownCondition(r)
}

// fieldChanged compares a field of two objects, a false value reading as
// def.
func fieldChanged(newObj, oldObj map[string]any, def any, path ...string) bool {
	return !reflect.DeepEqual(or(lookup(newObj, path...), def), or(lookup(oldObj, path...), def))
}

// imagePairs returns the sorted "name=image" pairs of the containers, init
// containers and ephemeral containers of the pod spec at path.
func imagePairs(obj map[string]any, path []string) []string {
	spec, _ := lookup(obj, path...).(map[string]any)
	var pairs []string
	for _, list := range []string{"containers", "initContainers", "ephemeralContainers"} {
		items, _ := spec[list].([]any)
		for _, item := range items {
			c, ok := item.(map[string]any)
			if !ok {
				continue
			}
			pairs = append(pairs, str(or(c["name"], ""))+"="+str(or(c["image"], "")))
		}
	}
	slices.Sort(pairs)
	return pairs
}

// lookup walks nested maps; nil when any step is missing.
func lookup(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// or is JMESPath's "v || def".
func or(v, def any) any {
	if truthy(v) {
		return v
	}
	return def
}

// truthy is JMESPath's truth: null, false, "" and empty lists and maps are
// false.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case map[string]string:
		return len(x) > 0
	}
	return true
}

// number reads a JSON number; anything else (missing) is 0.
func number(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// labelsOf reads an object's metadata.labels.
func labelsOf(obj map[string]any) map[string]string {
	raw, _ := lookup(obj, "metadata", "labels").(map[string]any)
	if raw == nil {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}
