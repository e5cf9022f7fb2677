package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// overlap reports two plans active at the same time, within the horizon,
// on namespaces or applications they share. Plans of applications are
// compared with plans of applications only: which namespaces an
// application lives in is the embedder's to resolve. A namespaceSelectors
// plan is compared with the plans of namespaces or selectors as its
// coverage allows (see WithNamespaces).
func (c *checker) overlap(a, b *linted) {
	kind, shared := c.sharedScope(a.p, b.p)
	if len(shared) == 0 {
		return
	}
	first, n := intersect(c.occurrences(a), c.occurrences(b))
	if n == 0 {
		return
	}
	var fields []Field
	for _, l := range []*linted{a, b} {
		for _, path := range c.scopeFields(l.p, kind, shared) {
			fields = append(fields, Field{l.id, path})
		}
	}
	templates := []string{}
	for k, t := range a.p.Spec.Templates {
		if slices.ContainsFunc(b.p.Spec.Templates, func(u plan.TemplateRef) bool { return u.Name == t.Name }) {
			templates = append(templates, t.Name)
			fields = append(fields, Field{a.id, field.NewPath("spec", "templates").Index(k).String()})
		}
	}
	fields = append(fields, Field{a.id, windowPath.String()}, Field{b.id, windowPath.String()})
	f := Finding{Severity: Info, Code: PlansOverlap, Plans: []string{a.id, b.id}, Fields: fields,
		Instants: []time.Time{first.Start, first.End}}
	what := fmt.Sprintf("plans %s and %s are both active on %s %s from %s to %s%s",
		a.id, b.id, kind, strings.Join(shared, ", "), stamp(first.Start), stamp(first.End), more(n-1, c.horizon))
	if len(templates) > 0 {
		f.Severity = Warning
		f.Message = what + fmt.Sprintf("; both lock %s, so a change there is refused or recorded twice, with two messages; merge the plans, or split their scope or their time", strings.Join(templates, ", "))
	} else {
		f.Message = what + "; they lock different templates, which is often meant: check that the combined freeze is what you want"
	}
	c.add(f)
}

// What two plans share is named by kind: applications, namespaces, or
// namespaceSelectors (the same selector written in both, when the
// namespaces' labels are not known).
const (
	sharedApplications = "applications"
	sharedNamespaces   = "namespaces"
	sharedSelectors    = "namespaceSelectors"
)

// sharedScope is what a and b both cover, and its kind, sorted.
func (c *checker) sharedScope(a, b *plan.ProtectionPlan) (string, []string) {
	ta, tb := a.Spec.Scope.Type(), b.Spec.Scope.Type()
	switch {
	case ta == plan.ScopeApplications && tb == plan.ScopeApplications:
		return sharedApplications, common(a.Spec.Scope.Applications, b.Spec.Scope.Applications)
	case ta == plan.ScopeApplications || tb == plan.ScopeApplications:
		return "", nil
	}
	na, knownA := c.coveredNamespaces(a)
	nb, knownB := c.coveredNamespaces(b)
	switch {
	case knownA && knownB:
		return sharedNamespaces, common(na, nb)
	case knownA && wholeCluster(b):
		return sharedNamespaces, c.notLeftOut(na)
	case knownB && wholeCluster(a):
		return sharedNamespaces, c.notLeftOut(nb)
	case !knownA && !knownB:
		return sharedSelectors, common(selectorStrings(a), selectorStrings(b))
	}
	return "", nil
}

// coveredNamespaces are the namespaces p covers, known for a plan of
// namespaces, and for one of selectors when the linter has the cluster's
// namespaces.
func (c *checker) coveredNamespaces(p *plan.ProtectionPlan) ([]string, bool) {
	if p.Spec.Scope.Type() == plan.ScopeNamespaces {
		return p.Spec.Scope.Namespaces, true
	}
	if c.namespaces == nil {
		return nil, false
	}
	return plan.CoveredNamespaces(p.Spec.Scope, c.leftOut, c.namespaces), true
}

// wholeCluster: p's selectors are the whole cluster (validation lists {}
// alone).
func wholeCluster(p *plan.ProtectionPlan) bool {
	return p.Spec.Scope.Type() == plan.ScopeNamespaceSelectors && plan.IsWholeCluster(p.Spec.Scope.NamespaceSelectors)
}

// notLeftOut are the names no plan leaves out (plan.AlwaysLeftOut's
// fixed part, and WithNamespaces' leftOut).
func (c *checker) notLeftOut(names []string) []string {
	left := plan.AlwaysLeftOut("", c.leftOut)
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(left, n) })
}

// selectorStrings are p's selectors as Kubernetes prints them.
func selectorStrings(p *plan.ProtectionPlan) []string {
	out := make([]string, len(p.Spec.Scope.NamespaceSelectors))
	for i := range p.Spec.Scope.NamespaceSelectors {
		out[i] = selectorString(&p.Spec.Scope.NamespaceSelectors[i])
	}
	return out
}

func selectorString(s *metav1.LabelSelector) string {
	if txt := plan.SelectorText(*s); txt != "{}" {
		return "{" + txt + "}"
	}
	return "{}"
}

// common are the entries of a also in b, sorted, once each.
func common(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

// scopeFields are the fields of p's scope through which it covers the
// shared entries: the list entries, or the selectors that select a
// shared namespace (or are the shared selector).
func (c *checker) scopeFields(p *plan.ProtectionPlan, kind string, shared []string) []string {
	s := p.Spec.Scope
	var out []string
	switch s.Type() {
	case plan.ScopeApplications:
		for k, x := range s.Applications {
			if slices.Contains(shared, x) {
				out = append(out, scopePath(plan.ScopeApplications).Index(k).String())
			}
		}
	case plan.ScopeNamespaces:
		for k, x := range s.Namespaces {
			if slices.Contains(shared, x) {
				out = append(out, scopePath(plan.ScopeNamespaces).Index(k).String())
			}
		}
	case plan.ScopeNamespaceSelectors:
		for k := range s.NamespaceSelectors {
			sel := s.NamespaceSelectors[k : k+1]
			if c.selectsShared(sel, kind, shared) {
				out = append(out, scopePath(plan.ScopeNamespaceSelectors).Index(k).String())
			}
		}
	}
	return out
}

// selectsShared: the selector covers a shared namespace, or is the
// shared selector.
func (c *checker) selectsShared(sel []metav1.LabelSelector, kind string, shared []string) bool {
	if kind == sharedSelectors {
		return slices.Contains(shared, selectorString(&sel[0]))
	}
	if c.namespaces == nil { // the whole cluster, compared without labels
		return selectorString(&sel[0]) == "{}"
	}
	for _, ns := range c.namespaces {
		if slices.Contains(shared, ns.Name) && plan.SelectsNamespace(sel, c.leftOut, ns) {
			return true
		}
	}
	return false
}

func scopePath(t plan.ScopeType) *field.Path { return field.NewPath("spec", "scope").Child(string(t)) }

func more(n int, horizon time.Duration) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (and once more in the next " + days(horizon) + ")"
	}
	return fmt.Sprintf(" (and %d more times in the next %s)", n, days(horizon))
}

// occurrences is l's bounded intervals, computed once per plan.
func (c *checker) occurrences(l *linted) []window.Interval {
	if l.occ == nil {
		l.occ = c.bounded(l.w)
		if l.occ == nil {
			l.occ = []window.Interval{}
		}
	}
	return l.occ
}

// bounded is the window's intervals in [now, now+horizon), cut to it
// (a permanent window's missing edges become the range's).
func (c *checker) bounded(w *window.Window) []window.Interval {
	var out []window.Interval
	for _, iv := range w.Occurrences(c.now, c.end) {
		if iv.Start.IsZero() || iv.Start.Before(c.now) {
			iv.Start = c.now.In(w.Location())
		}
		if iv.End.IsZero() || iv.End.After(c.end) {
			iv.End = c.end.In(w.Location())
		}
		if iv.Start.Before(iv.End) {
			out = append(out, iv)
		}
	}
	return out
}

// intersect returns the first interval of the intersection of two sorted
// lists of disjoint intervals, and how many intervals it has.
func intersect(a, b []window.Interval) (first window.Interval, n int) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		s, e := later(a[i].Start, b[j].Start), earlier(a[i].End, b[j].End)
		if s.Before(e) {
			if n == 0 {
				first = window.Interval{Start: s, End: e}
			}
			n++
		}
		if a[i].End.Before(b[j].End) {
			i++
		} else {
			j++
		}
	}
	return first, n
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
