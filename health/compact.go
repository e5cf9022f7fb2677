package health

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/telark/protectionplans/render"
)

// A policy of the compact layout (render.CompactTemplate) holds every
// template of its plan in one namespace. It is checked, hashed and
// repaired as the one object it is (a repair re-applies all of it), but
// what is wrong with it is told per template: the templates at fault
// (PolicyHealth.Templates), and in its detail, which is also the repair's
// reason, what changed in each. render.Policy.Parts says which entries of
// the rule list (render.RuleList) are each template's.
//
// The templates at fault are found by comparing the live object with the
// render, with no hashing: a missing policy is every template's; a
// changed field outside the rule list (the failure action, the match, the
// labels, a VAP binding) is shared by every template; otherwise each rule
// that is missing, changed or out of place is its template's. kyverno.io/v1
// rules are matched by name; validations (kyverno-cel, vap), which have
// none, by a longest common subsequence of equal validations, so that
// one removed validation does not put every later template at fault.

// compactFaults names the templates at fault of every object of a compact
// policy that is not ok, and appends them to its detail. It runs after
// compareLive, before the details become policy details and repair
// reasons.
func (d *diff) compactFaults() {
	for i := range d.objs {
		o := &d.objs[i]
		p := &d.in.Render.Policies[o.policy]
		if len(p.Parts) == 0 || o.state == StateOK {
			continue
		}
		f := templatesAtFault(o, p)
		if d.faults == nil {
			d.faults = map[int][]string{}
		}
		d.faults[o.policy] = unionInOrder(p.Templates, d.faults[o.policy], f.templates)
		o.detail += f.clause(o.state, len(p.Templates))
	}
}

// faultTemplates returns the templates at fault of the i-th rendered
// policy, nil when none (a policy of one template, or an ok one).
func (d *diff) faultTemplates(i int) []string { return d.faults[i] }

// fault is what a comparison found wrong with a compact object.
type fault struct {
	// templates are the templates at fault, in the plan's order.
	templates []string
	// what says what changed, per template or for all of them.
	what []string
}

// clause is what a compact object's detail says of its templates.
func (f fault) clause(st State, all int) string {
	var b strings.Builder
	b.WriteString(": ")
	switch n := len(f.templates); {
	case n == all && n > 1:
		b.WriteString("every template (" + strings.Join(f.templates, ", ") + ")")
	case n == 1:
		b.WriteString("template " + f.templates[0])
	case n > 1:
		b.WriteString("templates " + strings.Join(f.templates, ", "))
	default:
		b.WriteString("no template")
	}
	if len(f.what) > 0 {
		b.WriteString(" (" + strings.Join(f.what, "; ") + ")")
	}
	if st == StateMissing || st == StateOutdated {
		b.WriteString("; the repair applies the whole compact policy")
	}
	return b.String()
}

// templatesAtFault compares a compact object that is not ok with its
// render (see the comment at the top of the file).
func templatesAtFault(o *rendered, p *render.Policy) fault {
	every := fault{templates: p.Templates}
	if o.live == nil {
		return every
	}
	want, field, ok := render.RuleList(o.want)
	if !ok { // a VAP binding: the plan's failure action and namespace
		every.what = []string{o.want.GetKind() + " " + o.want.GetName() + " is shared by every template"}
		return every
	}
	owners := ownersOf(p.Parts, len(want))
	if owners == nil { // parts that do not fit the render: say nothing wrong
		return every
	}
	live, _, _ := render.RuleList(o.live)
	var f fault
	if shared := sharedChanges(o.live, o.want, field); len(shared) > 0 {
		f.templates = p.Templates
		f.what = append(f.what, strings.Join(shared, ", ")+", shared by every template, changed")
	}
	changes := ruleChanges(live, want, owners, field)
	for _, t := range p.Templates {
		if cs := changes[t]; len(cs) > 0 {
			f.templates = unionInOrder(p.Templates, f.templates, []string{t})
			f.what = append(f.what, t+": "+strings.Join(cs, ", "))
		}
	}
	if cs := changes[""]; len(cs) > 0 {
		f.what = append(f.what, field+" holds "+strings.Join(cs, ", ")+" that no template renders")
	}
	if len(f.what) == 0 {
		return every // nothing to tell apart: the render hash alone differs
	}
	return f
}

// ownersOf is the template of each of n rule entries by the parts, nil
// when the parts do not hold exactly n.
func ownersOf(parts []render.TemplatePart, n int) []string {
	out := make([]string, 0, n)
	for _, pt := range parts {
		for range pt.Rules {
			out = append(out, pt.Template)
		}
	}
	if len(out) != n {
		return nil
	}
	return out
}

// sharedChanges lists what changed outside the rule list: the spec fields
// (by path) and, as "metadata", the labels and annotations render.HashOf
// covers.
func sharedChanges(live, want *unstructured.Unstructured, listField string) []string {
	var out []string
	ls, _ := live.Object["spec"].(map[string]any)
	ws, _ := want.Object["spec"].(map[string]any)
	keys := map[string]bool{}
	for k := range ls {
		keys[k] = true
	}
	for k := range ws {
		keys[k] = true
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if "spec."+k == listField {
			continue
		}
		if !jsonEqual(ls[k], ws[k]) {
			out = append(out, "spec."+k)
		}
	}
	lm, wm := metadataOf(live), metadataOf(want)
	if !sameHashed(wm["labels"], lm["labels"], hashedLabels) || !sameHashed(wm["annotations"], lm["annotations"], hashedAnnotations) {
		out = append(out, "metadata")
	}
	return out
}

// ruleChanges says, by template ("" for entries no template renders),
// what differs between the live and the rendered rule lists.
func ruleChanges(live, want []any, owners []string, field string) map[string][]string {
	out := map[string][]string{}
	if allNamed(want) && allNamed(live) {
		at := map[string]int{}
		for i, e := range live {
			at[nameOf(e)] = i
		}
		seen := map[string]bool{}
		prev := -1
		for i, e := range want {
			n := nameOf(e)
			seen[n] = true
			j, ok := at[n]
			switch {
			case !ok:
				out[owners[i]] = append(out[owners[i]], "rule "+n+" missing")
			case !jsonEqual(live[j], e):
				out[owners[i]] = append(out[owners[i]], "rule "+n+" changed")
			case j < prev:
				// Kyverno reports failing rules in order: the order is
				// part of the policy.
				out[owners[i]] = append(out[owners[i]], "rule "+n+" moved")
			}
			if ok {
				prev = j
			}
		}
		for _, e := range live {
			if n := nameOf(e); !seen[n] {
				out[""] = append(out[""], "rule "+n)
			}
		}
		return out
	}
	// Entries without names: align the lists on equal entries; between
	// two aligned ones, rendered and live entries pair up as changed, and
	// the rest are missing or extra.
	matched := lcs(live, want)
	extra, from := 0, 0
	var gap []int
	flush := func(to int) { // live entries from..to-1 are unmatched
		n := to - from
		for k, i := range gap {
			what := "missing"
			if k < n {
				what = "changed"
			}
			out[owners[i]] = append(out[owners[i]], fmt.Sprintf("%s[%d] (%s) %s", field, i, messageOf(want[i]), what))
		}
		extra += max(0, n-len(gap))
		gap = gap[:0]
	}
	for i := range want {
		if j := matched[i]; j >= 0 {
			flush(j)
			from = j + 1
			continue
		}
		gap = append(gap, i)
	}
	flush(len(live))
	if extra > 0 {
		out[""] = append(out[""], fmt.Sprintf("%d %s", extra, plural(extra, "entry", "entries")))
	}
	return out
}

// lcs matches want's entries with live's along a longest common
// subsequence of equal entries: matched[i] is the index in live of want[i],
// or -1. Rule lists are a few dozen entries long.
func lcs(live, want []any) []int {
	n, m := len(want), len(live)
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case jsonEqual(want[i], live[j]):
				l[i][j] = l[i+1][j+1] + 1
			case l[i+1][j] >= l[i][j+1]:
				l[i][j] = l[i+1][j]
			default:
				l[i][j] = l[i][j+1]
			}
		}
	}
	matched := make([]int, n)
	i, j := 0, 0
	for i < n {
		switch {
		case j < m && jsonEqual(want[i], live[j]):
			matched[i] = j
			i++
			j++
		case j < m && l[i][j+1] > l[i+1][j]:
			j++
		default:
			matched[i] = -1
			i++
		}
	}
	return matched
}

// allNamed reports whether every entry of a rule list has a name
// (kyverno.io/v1 rules).
func allNamed(l []any) bool {
	for _, e := range l {
		if nameOf(e) == "" {
			return false
		}
	}
	return len(l) > 0
}

func nameOf(e any) string {
	m, _ := e.(map[string]any)
	n, _ := m["name"].(string)
	return n
}

// messageOf is a validation's message, shortened, to tell people which
// it is.
func messageOf(e any) string {
	m, _ := e.(map[string]any)
	s, _ := m["message"].(string)
	if s == "" {
		return "no message"
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// unionInOrder returns the members of order that are in a or b, in
// order's order.
func unionInOrder(order, a, b []string) []string {
	var out []string
	for _, t := range order {
		if slices.Contains(a, t) || slices.Contains(b, t) {
			out = append(out, t)
		}
	}
	return out
}

// templatesAtFaultByState lists, per state, the templates at fault of the
// compact policies in it, in the order first found: the condition's
// message names them.
func templatesAtFaultByState(ps []PolicyHealth) map[State][]string {
	var out map[State][]string
	for _, p := range ps {
		for _, t := range p.Templates {
			if out == nil {
				out = map[State][]string{}
			}
			if !slices.Contains(out[p.State], t) {
				out[p.State] = append(out[p.State], t)
			}
		}
	}
	return out
}
