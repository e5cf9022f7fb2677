package plan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	metaTimeType  = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
)

// timeProblems finds the times of a decoded value that its JSON form
// cannot hold, so that what Decode accepts can be written and read again:
// metav1.Time and MicroTime are written in UTC, RFC 3339, which has the
// years 0000 to 9999 only (2026-12-31T23:00:00-05:00 can be read, but
// 9999-12-31T23:00:00-05:00 is in the year 10000 in UTC and is written as
// a text no parser reads), and the zero time is written as null, so a
// pointer to it would read back as no time at all.
func timeProblems(into any) []DecodeProblem {
	var out []DecodeProblem
	walkTimes(reflect.ValueOf(into), "", false, &out)
	return out
}

func walkTimes(v reflect.Value, path string, pointed bool, out *[]DecodeProblem) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkTimes(v.Elem(), path, v.Kind() == reflect.Pointer, out)
		}
	case reflect.Struct:
		if v.Type() == metaTimeType || v.Type() == microTimeType {
			if msg := unwritableTime(v.Field(0).Interface().(time.Time), pointed); msg != "" {
				*out = append(*out, DecodeProblem{Field: path, Kind: ProblemOutOfRange, Detail: msg})
			}
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
			case f.Anonymous && name == "":
				walkTimes(v.Field(i), path, false, out)
			case name == "":
				walkTimes(v.Field(i), joinPath(path, f.Name), false, out)
			default:
				walkTimes(v.Field(i), joinPath(path, name), false, out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkTimes(v.Index(i), fmt.Sprintf("%s[%d]", path, i), false, out)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			walkTimes(iter.Value(), fmt.Sprintf("%s[%v]", path, iter.Key()), false, out)
		}
	}
}

// unwritableTime says why t cannot be written and read back, or "".
func unwritableTime(t time.Time, pointed bool) string {
	switch u := t.UTC(); {
	case t.IsZero() && pointed:
		return "0001-01-01T00:00:00Z is the zero time, which is written as null (no time); leave the field out instead"
	case u.Year() < 0 || u.Year() > 9999:
		return fmt.Sprintf("the time is in the year %d in UTC (%s); times are written in UTC, in the years 0000 to 9999",
			u.Year(), u.Format(time.RFC3339))
	}
	return ""
}

// badTimes finds the times of a decoded document (maps, slices and
// scalars, as from JSON) that the Go type of into cannot read, with their
// paths: the decoders report a malformed time without its field, in Go's
// layout syntax. Each is checked by the time type's own UnmarshalJSON.
func badTimes(doc any, into any) []DecodeProblem {
	var out []DecodeProblem
	walkBadTimes(doc, reflect.TypeOf(into), "", &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func walkBadTimes(doc any, t reflect.Type, path string, out *[]DecodeProblem) {
	t = deref(t)
	if t == metaTimeType || t == microTimeType {
		if doc == nil {
			return
		}
		data, err := json.Marshal(doc)
		if err == nil {
			err = reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(data)
		}
		if err != nil {
			*out = append(*out, DecodeProblem{Field: path, Kind: ProblemWrongType,
				Detail: fmt.Sprintf("%s is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00", Shorten(string(data), 80))})
		}
		return
	}
	if decodesItself(t) {
		return
	}
	switch v := doc.(type) {
	case map[string]any:
		switch t.Kind() {
		case reflect.Map:
			for k, e := range v {
				walkBadTimes(e, t.Elem(), fmt.Sprintf("%s[%s]", path, k), out)
			}
		case reflect.Struct:
			fields := jsonFields(t)
			for k, e := range v {
				if ft, ok := fields[k]; ok {
					walkBadTimes(e, ft, joinPath(path, k), out)
				}
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, e := range v {
				walkBadTimes(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
			}
		}
	}
}
