package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Application selectors are not handed to Kyverno's match.selector: that
// selector sees only the new object of an UPDATE (removing the
// application's label in the same update would slip through) and never sees
// a /scale request (a Scale has no labels). Rules test the selector in
// their preconditions instead, as one JMESPath expression over the labels
// of the old and new objects, or of the /scale's parent read with an API
// call. selectorJMESPath writes that expression and selectorMatches is its
// Go twin, used by Explain.

// normalizeSelector validates a selector and returns a copy with sorted
// expressions and values, or nil when it selects everything (nil or
// empty). Keys and values are validated Kubernetes label keys and values,
// which is what makes them safe to write into JMESPath literals.
func normalizeSelector(sel *metav1.LabelSelector, fld *field.Path) (*metav1.LabelSelector, field.ErrorList) {
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return nil, nil
	}
	if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
		return nil, field.ErrorList{field.Invalid(fld, metav1.FormatLabelSelector(sel), err.Error())}
	}
	out := &metav1.LabelSelector{}
	if len(sel.MatchLabels) > 0 {
		out.MatchLabels = make(map[string]string, len(sel.MatchLabels))
		for k, v := range sel.MatchLabels {
			out.MatchLabels[k] = v
		}
	}
	for _, r := range sel.MatchExpressions {
		r.Values = slices.Compact(slices.Sorted(slices.Values(r.Values)))
		out.MatchExpressions = append(out.MatchExpressions, r)
	}
	sort.Slice(out.MatchExpressions, func(i, j int) bool {
		return requirementKey(out.MatchExpressions[i]) < requirementKey(out.MatchExpressions[j])
	})
	out.MatchExpressions = slices.CompactFunc(out.MatchExpressions, func(a, b metav1.LabelSelectorRequirement) bool {
		return requirementKey(a) == requirementKey(b)
	})
	return out, nil
}

func requirementKey(r metav1.LabelSelectorRequirement) string {
	return r.Key + "\x00" + string(r.Operator) + "\x00" + strings.Join(r.Values, "\x00")
}

// selectorKey is a canonical string of a normalized selector.
func selectorKey(sel *metav1.LabelSelector) string {
	b, _ := json.Marshal(sel)
	return string(b)
}

// selectorJMESPath returns a JMESPath boolean expression that is true when
// the labels map at path labels satisfies any of the selectors. A missing
// labels map, or a missing label, is null in JMESPath, which makes In and
// equality false and NotIn and DoesNotExist true, as in Kubernetes.
func selectorJMESPath(sels []*metav1.LabelSelector, labels string) string {
	alts := make([]string, len(sels))
	for i, sel := range sels {
		alts[i] = "(" + strings.Join(selectorTerms(sel, labels), " && ") + ")"
	}
	return strings.Join(alts, " || ")
}

func selectorTerms(sel *metav1.LabelSelector, labels string) []string {
	var terms []string
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		terms = append(terms, fmt.Sprintf("%s.%s == %s", labels, jmesIdent(k), jmesRaw(sel.MatchLabels[k])))
	}
	for _, r := range sel.MatchExpressions {
		l := labels + "." + jmesIdent(r.Key)
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			terms = append(terms, fmt.Sprintf("contains(%s, %s)", jmesRawList(r.Values), l))
		case metav1.LabelSelectorOpNotIn:
			terms = append(terms, fmt.Sprintf("!contains(%s, %s)", jmesRawList(r.Values), l))
		case metav1.LabelSelectorOpExists:
			terms = append(terms, l+" != `null`")
		case metav1.LabelSelectorOpDoesNotExist:
			terms = append(terms, l+" == `null`")
		}
	}
	if len(terms) == 0 {
		terms = []string{"`true`"}
	}
	return terms
}

// selectorMatches is the Go twin of selectorJMESPath. labels may be nil
// (no object, or no labels).
func selectorMatches(sels []*metav1.LabelSelector, labels map[string]string) bool {
	for _, sel := range sels {
		if selectorMatchesOne(sel, labels) {
			return true
		}
	}
	return false
}

func selectorMatchesOne(sel *metav1.LabelSelector, labels map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, r := range sel.MatchExpressions {
		v, ok := labels[r.Key]
		in := ok && slices.Contains(r.Values, v)
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			if !in {
				return false
			}
		case metav1.LabelSelectorOpNotIn:
			if in {
				return false
			}
		case metav1.LabelSelectorOpExists:
			if !ok {
				return false
			}
		case metav1.LabelSelectorOpDoesNotExist:
			if ok {
				return false
			}
		}
	}
	return true
}

// jmesIdent quotes a label key as a JMESPath quoted identifier (a JSON
// string). Label keys are validated, so there is nothing to escape; JSON
// encoding makes sure of it.
func jmesIdent(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// jmesRaw writes a raw string literal. Label values are validated
// ([A-Za-z0-9_.-]), so they hold no quote or backslash.
func jmesRaw(s string) string { return "'" + s + "'" }

func jmesRawList(vs []string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = jmesRaw(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
