package render

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Application selectors, normalized once (normalizeSelector) and written
// by each target in its own language: selectorJMESPath
// (kyverno_selector.go) for kyverno, celSelectors (cel_text.go) for the
// CEL targets. selectorMatches is their Go twin, used by Explain.

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

// selectorMatches is the Go twin of selectorJMESPath and celSelectors.
// labels may be nil
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
