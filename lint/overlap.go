package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// overlap reports two plans active at the same time, within the horizon,
// on namespaces or applications they share. Plans of different scope
// types are not compared: which namespaces an application lives in is
// the embedder's to resolve.
func (c *checker) overlap(a, b *linted) {
	ta, tb := a.p.Spec.Scope.Type(), b.p.Spec.Scope.Type()
	if ta != tb {
		return
	}
	listA, listB := scopeList(a.p), scopeList(b.p)
	shared := []string{}
	for _, x := range listA {
		if slices.Contains(listB, x) && !slices.Contains(shared, x) {
			shared = append(shared, x)
		}
	}
	if len(shared) == 0 {
		return
	}
	first, n := intersect(c.occurrences(a), c.occurrences(b))
	if n == 0 {
		return
	}
	scopePath := field.NewPath("spec", "scope").Child(string(ta))
	var fields []Field
	for _, l := range []*linted{a, b} {
		for k, x := range scopeList(l.p) {
			if slices.Contains(shared, x) {
				fields = append(fields, Field{l.id, scopePath.Index(k).String()})
			}
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
		a.id, b.id, ta, strings.Join(shared, ", "), stamp(first.Start), stamp(first.End), more(n-1, c.horizon))
	if len(templates) > 0 {
		f.Severity = Warning
		f.Message = what + fmt.Sprintf("; both lock %s, so a change there is refused or recorded twice, with two messages; merge the plans, or split their scope or their time", strings.Join(templates, ", "))
	} else {
		f.Message = what + "; they lock different templates, which is often meant: check that the combined freeze is what you want"
	}
	c.add(f)
}

func scopeList(p *plan.ProtectionPlan) []string {
	if p.Spec.Scope.Type() == plan.ScopeApplications {
		return p.Spec.Scope.Applications
	}
	return p.Spec.Scope.Namespaces
}

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
