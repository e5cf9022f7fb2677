package plan

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// unknownFields walks a decoded document (maps, slices and scalars, as
// from JSON) against the Go type of into, and returns the paths of the
// keys that type has no field for, sorted, in the form
// "spec.templates[0].naem". Field names match case-sensitively. A type
// that decodes itself (json.Unmarshaler, e.g. metav1.Time) is not entered.
func unknownFields(doc any, into any) []string {
	var out []string
	walkUnknown(doc, reflect.TypeOf(into), "", &out)
	sort.Strings(out)
	return out
}

func walkUnknown(doc any, t reflect.Type, path string, out *[]string) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || decodesItself(t) {
		return
	}
	switch v := doc.(type) {
	case map[string]any:
		walkObject(v, t, path, out)
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		for i, elem := range v {
			walkUnknown(elem, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

func walkObject(obj map[string]any, t reflect.Type, path string, out *[]string) {
	switch t.Kind() {
	case reflect.Map:
		for k, v := range obj {
			walkUnknown(v, t.Elem(), path+keySuffix(k), out)
		}
	case reflect.Struct:
		fields := jsonFields(t)
		for k, v := range obj {
			ft, ok := fields[k]
			if !ok {
				if suffix := keySuffix(k); suffix != "["+k+"]" {
					*out = append(*out, path+suffix) // a name that would break the line
				} else {
					*out = append(*out, joinPath(path, k))
				}
				continue
			}
			walkUnknown(v, ft, joinPath(path, k), out)
		}
	}
}

func decodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonUnmarshalerType) || pt.Implements(textUnmarshalerType) ||
		t.Kind() == reflect.Interface
}

// jsonFields maps the JSON names of t's fields to their types, following
// embedded structs without a name the way encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
		case f.Anonymous && name == "" && derefKind(f.Type) == reflect.Struct:
			for k, v := range jsonFields(deref(f.Type)) {
				if _, taken := fields[k]; !taken {
					fields[k] = v
				}
			}
		case name == "":
			fields[f.Name] = f.Type
		default:
			fields[name] = f.Type
		}
	}
	return fields
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func derefKind(t reflect.Type) reflect.Kind { return deref(t).Kind() }

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// keySuffix is "[key]" as KeyPath writes it: quoted when the key could
// break a one-line error.
func keySuffix(k string) string {
	return strings.TrimPrefix(KeyPath(field.NewPath("x"), k).String(), "x")
}
