package render

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The text of CEL expressions: literals and label selectors. Everything a
// CEL target writes from the plan reaches an expression only through
// celString, as a literal; user text (plan and application names) only
// reaches messages, which are literal in both CEL targets.

// celString writes s as a CEL string literal that reads back as exactly
// s: Go's ASCII quoting, a double-quoted literal in which every rune
// outside printable ASCII, every quote and every backslash is an escape
// sequence (\a \b \f \n \r \t \v \\ \" \uXXXX \UXXXXXXXX, and \xXX for
// the other ASCII control characters), which mean the same in CEL.
// Invalid UTF-8 is replaced first: Go would write its bytes as \xXX, which
// CEL reads as code points.
func celString(s string) string {
	return strconv.QuoteToASCII(strings.ToValidUTF8(s, "\uFFFD"))
}

// celList writes a list of string literals.
func celList(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = celString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// celIn tests that expr is one of items: "==" for one item, "in" for
// several.
func celIn(expr string, items []string) string {
	if len(items) == 1 {
		return expr + " == " + celString(items[0])
	}
	return expr + " in " + celList(items)
}

// celSelectors is true when any of the selectors selects the labels map
// the expression labels evaluates to (a map, empty when the object has no
// labels). A missing label makes In and equality false and NotIn and
// DoesNotExist true, as in Kubernetes.
func celSelectors(sels []*metav1.LabelSelector, labels string) string {
	alts := make([]string, len(sels))
	for i, sel := range sels {
		alts[i] = "(" + strings.Join(celSelectorTerms(sel, labels), " && ") + ")"
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return "(" + strings.Join(alts, " || ") + ")"
}

func celSelectorTerms(sel *metav1.LabelSelector, labels string) []string {
	var terms []string
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		key := celString(k)
		terms = append(terms, fmt.Sprintf("(%s in %s && %s[%s] == %s)", key, labels, labels, key, celString(sel.MatchLabels[k])))
	}
	for _, r := range sel.MatchExpressions {
		has := celString(r.Key) + " in " + labels
		in := "(" + has + " && " + labels + "[" + celString(r.Key) + "] in " + celList(r.Values) + ")"
		switch r.Operator {
		case metav1.LabelSelectorOpIn:
			terms = append(terms, in)
		case metav1.LabelSelectorOpNotIn:
			terms = append(terms, "!"+in)
		case metav1.LabelSelectorOpExists:
			terms = append(terms, has)
		case metav1.LabelSelectorOpDoesNotExist:
			terms = append(terms, "!("+has+")")
		}
	}
	if len(terms) == 0 {
		terms = []string{"true"}
	}
	return terms
}

// The requester in CEL: the user name ("" when missing) and groups.
const (
	celUsername = `request.userInfo.?username.orValue("")`
	celGroups   = "request.userInfo.?groups.orValue([])"
)

// celExemptions is the match condition that leaves Kubernetes' own control
// plane out (Exemptions): false for an exempt requester. A pattern's "*"
// (only ever at its end) becomes startsWith.
func celExemptions() string {
	user, groups := celUsername, celGroups
	var exactUsers, terms []string
	for _, e := range exemptions {
		prefix, wildcard := strings.CutSuffix(e.Name, "*")
		switch {
		case e.Kind == "User" && wildcard:
			terms = append(terms, user+".startsWith("+celString(prefix)+")")
		case e.Kind == "User":
			exactUsers = append(exactUsers, e.Name)
		case wildcard:
			terms = append(terms, groups+".exists(g, g.startsWith("+celString(prefix)+"))")
		default:
			terms = append(terms, celString(e.Name)+" in "+groups)
		}
	}
	if len(exactUsers) > 0 {
		terms = append([]string{celIn(user, exactUsers)}, terms...)
	}
	return "!(" + strings.Join(terms, " || ") + ")"
}

// celText is a message as the CEL targets write it: the text itself, but
// for the control characters a YAML document cannot hold (every one except
// tab, line feed, carriage return and NEL), which read as U+FFFD. Messages
// are literal in both targets, and YAML is how policies are shown and
// applied (Result.YAML, kubectl).
func celText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' && r != '\u0085' {
			return '\uFFFD'
		}
		return r
	}, s)
}
