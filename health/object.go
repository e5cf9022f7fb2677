package health

import (
	"math"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
)

// objKey identifies an object: group, kind, namespace and name.
type objKey struct {
	group, kind, namespace, name string
}

// keyOf reads an object's key straight from its map (no copies).
func keyOf(o *unstructured.Unstructured) objKey {
	av, _ := o.Object["apiVersion"].(string)
	group := ""
	if i := strings.LastIndexByte(av, '/'); i >= 0 {
		group = av[:i]
	}
	kind, _ := o.Object["kind"].(string)
	md := metadataOf(o)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	return objKey{group: group, kind: kind, namespace: ns, name: name}
}

func metadataOf(o *unstructured.Unstructured) map[string]any {
	if o == nil {
		return nil
	}
	md, _ := o.Object["metadata"].(map[string]any)
	return md
}

// labelOf reads one label without copying the label map.
func labelOf(o *unstructured.Unstructured, key string) string {
	l, _ := metadataOf(o)["labels"].(map[string]any)
	s, _ := l[key].(string)
	return s
}

// annotationOf reads one annotation without copying the annotation map.
func annotationOf(o *unstructured.Unstructured, key string) string {
	a, _ := metadataOf(o)["annotations"].(map[string]any)
	s, _ := a[key].(string)
	return s
}

// match is how much of a live object matchRendered found the same as its
// render.
type match int

const (
	// matchNone: something render.HashOf covers may differ; ask HashOf.
	matchNone match = iota
	// matchHashed: everything render.HashOf covers is the same, but a
	// label or annotation it leaves out differs (another controller added
	// one): HashOf(live) equals HashOf(rendered) without hashing.
	matchHashed
	// matchExact: the same labels and annotations too.
	matchExact
)

// hashedLabels and hashedAnnotations are the labels and annotations that
// render.HashOf covers (its canonical form); the others do not change a
// hash. TestHashedMetadataIsWhatHashOfCovers keeps them in step with
// render.
var (
	hashedLabels      = []string{render.LabelManagedBy, render.LabelPlan, render.LabelTemplate}
	hashedAnnotations = []string{render.AnnotationKyvernoAutogen}
)

// matchRendered reports how much of rendered live holds, as JSON values:
// the same apiVersion, kind and other top-level fields (spec, ...), the
// same name and namespace, and exactly the same labels and annotations
// (matchExact) or the same ones among those render.HashOf covers
// (matchHashed); live may add only status and server-set metadata (uid,
// resourceVersion, managedFields, ...).
//
// It is the fast path of the diff. render.HashOf hashes a canonical form
// made of apiVersion, kind, name, namespace, some labels and annotations
// and the spec, nothing the server sets; so when the match is at least
// matchHashed, HashOf(live) equals HashOf(rendered), which is the
// render-hash annotation rendered carries, and HashOf need not run. The
// converse does not hold, so matchNone only means "ask HashOf".
func matchRendered(live, rendered *unstructured.Unstructured) match {
	return (*wants)(nil).match(live, rendered)
}

// match is matchRendered reading the rendered objects' lists through ws
// (nil: as they are).
func (ws *wants) match(live, rendered *unstructured.Unstructured) match {
	for k, v := range rendered.Object {
		if k == "metadata" {
			continue
		}
		w, ok := live.Object[k]
		if !ok || !ws.equal(v, w) {
			return matchNone
		}
	}
	if len(live.Object) != allowedKeys(live, rendered) {
		return matchNone
	}
	lm, rm := metadataOf(live), metadataOf(rendered)
	if !jsonEqual(rm["name"], lm["name"]) || !jsonEqual(rm["namespace"], lm["namespace"]) {
		return matchNone
	}
	labels := jsonEqual(rm["labels"], lm["labels"])
	annotations := jsonEqual(rm["annotations"], lm["annotations"])
	switch {
	case labels && annotations:
		return matchExact
	case (labels || sameHashed(rm["labels"], lm["labels"], hashedLabels)) &&
		(annotations || sameHashed(rm["annotations"], lm["annotations"], hashedAnnotations)):
		return matchHashed
	}
	return matchNone
}

// allowedKeys counts the top-level keys of live that are rendered's (but
// metadata), metadata and status, when every rendered key but metadata is
// in live: live holds nothing else exactly when it has that many keys.
// Counting reads four keys where listing live's would iterate them all.
func allowedKeys(live, rendered *unstructured.Unstructured) int {
	n := len(rendered.Object)
	if _, ok := rendered.Object["metadata"]; ok {
		n--
	}
	if _, ok := live.Object["metadata"]; ok {
		n++
	}
	if _, ok := rendered.Object["status"]; !ok {
		if _, ok := live.Object["status"]; ok {
			n++
		}
	}
	return n
}

// sameHashed reports whether two label (or annotation) maps hold the same
// values for keys, as render.HashOf reads them. HashOf reads them with
// GetLabels (GetAnnotations), which drops every one when one is not a
// string; so both must be absent or hold only strings.
func sameHashed(a, b any, keys []string) bool {
	x, ok := stringMap(a)
	if !ok {
		return false
	}
	y, ok := stringMap(b)
	if !ok {
		return false
	}
	for _, k := range keys {
		v, inX := x[k]
		w, inY := y[k]
		if inX != inY || v != w {
			return false
		}
	}
	return true
}

// stringMap returns v as a map whose values are all strings, or false.
func stringMap(v any) (map[string]any, bool) {
	if v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	for _, s := range m {
		if _, ok := s.(string); !ok {
			return nil, false
		}
	}
	return m, true
}

// jsonEqual reports whether a and b, values of unstructured objects,
// marshal to the same JSON. It errs on the side of false: a type it does
// not know, or numbers it cannot prove to print alike, are "different".
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case int64, float64:
		return numberEqual(x, b)
	}
	return false
}

// numberEqual compares JSON numbers as decoded by encoding/json (float64)
// or by apimachinery (int64 for integers): equal when they print alike.
func numberEqual(a, b any) bool {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return intPrintsAsFloat(x, y)
		}
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y && math.Signbit(x) == math.Signbit(y)
		case int64:
			return intPrintsAsFloat(y, x)
		}
	}
	return false
}

// intPrintsAsFloat: i and f print alike when f is exactly i and i is
// within float64's exact integers (and f is not -0).
func intPrintsAsFloat(i int64, f float64) bool {
	const exact = 1 << 53
	return i >= -exact && i <= exact && float64(i) == f && !math.Signbit(f) == (i >= 0)
}

// mergeDiff returns the JSON merge patch (RFC 7386) that turns from into
// to: the keys whose values differ, recursively for objects, null for keys
// to removes.
func mergeDiff(from, to map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range to {
		old, ok := from[k]
		switch {
		case ok && jsonEqual(old, v):
		case ok && isObject(old) && isObject(v):
			out[k] = mergeDiff(old.(map[string]any), v.(map[string]any))
		default:
			out[k] = v
		}
	}
	for k := range from {
		if _, ok := to[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

func isObject(v any) bool {
	m, ok := v.(map[string]any)
	return ok && m != nil
}
