package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Application selectors are not handed to Kyverno's match.selector: that
// selector sees only the new object of an UPDATE (removing the
// application's label in the same update would slip through) and never sees
// a /scale request (a Scale has no labels). Rules test the selector in
// their preconditions instead, as one JMESPath expression over the labels
// of the old and new objects, or of the /scale's parent read with an API
// call. selectorJMESPath writes that expression; selectorMatches
// (selector.go) is its Go twin, used by Explain.

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
