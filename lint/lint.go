package lint

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// DefaultHorizon is how far ahead of now the linter looks: a year, so
// that both DST changes, monthly and yearly crons are seen.
const DefaultHorizon = 366 * 24 * time.Hour

// Option changes how Lint looks.
type Option func(*options)

type options struct {
	horizon    time.Duration
	calendars  map[window.ConfigMapKeyRef][]byte
	namespaces []plan.NamespaceInfo
	leftOut    []string
}

// WithNamespaces gives the linter the cluster's namespaces with their
// labels, and those no plan freezes (plan.AlwaysLeftOut): a
// namespaceSelectors plan then covers the namespaces its selectors match
// (plan.CoveredNamespaces), and overlaps are found between it and the
// plans listing namespaces. Without them, a selector plan is compared only
// where no label is needed: a whole-cluster selector ({}) covers every
// namespace another plan lists, except those left out, and two plans
// writing the same selector share it.
func WithNamespaces(namespaces []plan.NamespaceInfo, leftOut []string) Option {
	return func(o *options) { o.namespaces, o.leftOut = namespaces, leftOut }
}

// WithCalendars gives the linter the ICS text of the calendars plans'
// exceptions name (except: calendar), keyed as the plans name them: their
// occurrences then subtract from the windows as they will in the
// operator. A plan that names a calendar not given is linted without it
// (an info finding says so); one that cannot be read is an error finding.
func WithCalendars(texts map[window.ConfigMapKeyRef][]byte) Option {
	return func(o *options) { o.calendars = texts }
}

// WithHorizon sets how far ahead of now the linter looks (default
// DefaultHorizon); values <= 0 keep the default. Findings about time
// (overlaps, shadowed schedules, DST, a freeze that never ends) hold
// within it.
func WithHorizon(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.horizon = d
		}
	}
}

// Lint checks plans at now and returns the findings, most severe first.
// It never changes the plans and reads no clock.
func Lint(plans []*plan.ProtectionPlan, now time.Time, opts ...Option) []Finding {
	o := options{horizon: DefaultHorizon}
	for _, opt := range opts {
		opt(&o)
	}
	c := &checker{now: now, horizon: o.horizon, end: now.Add(o.horizon), calendars: o.calendars,
		namespaces: o.namespaces, leftOut: o.leftOut}
	var linted []*linted
	for _, p := range plans {
		if p == nil {
			continue
		}
		l := c.plan(p)
		if l.w != nil {
			linted = append(linted, l)
		}
	}
	for i := range linted {
		for j := i + 1; j < len(linted); j++ {
			c.overlap(linted[i], linted[j])
		}
	}
	out := c.findings
	if out == nil {
		out = []Finding{}
	}
	sortFindings(out)
	return out
}

// checker collects findings.
type checker struct {
	now       time.Time
	horizon   time.Duration
	end       time.Time // now + horizon
	calendars map[window.ConfigMapKeyRef][]byte
	// namespaces and leftOut are WithNamespaces'; namespaces nil when not
	// given.
	namespaces []plan.NamespaceInfo
	leftOut    []string
	findings   []Finding
}

func (c *checker) add(f Finding) { c.findings = append(c.findings, f) }

// linted is a plan whose window parsed, and that has not ended.
type linted struct {
	p   *plan.ProtectionPlan
	id  string
	w   *window.Window
	occ []window.Interval // its intervals within the horizon, once asked
}

// idOf names a plan: its metadata.name, else its display name.
func idOf(p *plan.ProtectionPlan) string {
	if p.Name != "" {
		return p.Name
	}
	return p.Spec.Name
}

var windowPath = field.NewPath("spec", "window")

// plan runs the checks of one plan; the result's w is nil when there is
// nothing more to check (the window is invalid or ended).
func (c *checker) plan(p *plan.ProtectionPlan) *linted {
	l := &linted{p: p, id: idOf(p)}
	w, err := window.Parse(p.Spec.Window, window.WithLookAround(c.horizon))
	if err != nil {
		c.invalid(l.id, err)
		return l
	}
	if opts := c.calendarOptions(l.id, w); len(opts) > 0 {
		// The calendars' occurrences subtract from the window as the
		// operator's pass would subtract them.
		if w, err = window.Parse(p.Spec.Window, append(opts, window.WithLookAround(c.horizon))...); err != nil {
			c.invalid(l.id, err)
			return l
		}
	}
	scheds := c.compile(l.id, w)
	if len(scheds) > 0 && !slices.ContainsFunc(scheds, func(s *sched) bool { return s.fires }) {
		return l // every schedule never fires: said once per schedule
	}
	if w.Ended(c.now) {
		c.ended(l.id, w)
		return l
	}
	trs := transitions(w.Location(), c.now, c.end) // once for every schedule
	for _, s := range scheds {
		c.dst(l.id, w, s, trs)
	}
	c.shadowed(l.id, scheds)
	c.neverEnds(l.id, w)
	l.w = w
	return l
}

func (c *checker) invalid(id string, err error) {
	var perr *window.ParseError
	if !errors.As(err, &perr) {
		c.add(Finding{Severity: Error, Code: InvalidWindow, Plans: []string{id},
			Fields: []Field{{id, windowPath.String()}}, Message: err.Error()})
		return
	}
	for _, fe := range perr.Errs {
		c.add(Finding{Severity: Error, Code: InvalidWindow, Plans: []string{id}, Fields: []Field{{id, fe.Field}},
			Message: fmt.Sprintf("%s: %s; the plan cannot be created until it is fixed", fe.Field, fe.ErrorBody())})
	}
}

func (c *checker) ended(id string, w *window.Window) {
	s := w.Spec()
	f := Finding{Severity: Error, Code: WindowEnded, Plans: []string{id}, Fields: []Field{{id, windowPath.Child("endAt").String()}}}
	when := "before " + stamp(c.now.In(w.Location()))
	if s.EndAt != nil {
		at := s.EndAt.Time.In(w.Location())
		f.Instants = []time.Time{at}
		when = "at " + stamp(at)
	}
	f.Message = fmt.Sprintf("the window (%s) ended %s: the plan would be terminated as soon as it is applied, and the API refuses a window that has ended; move endAt or remove the plan", w.Describe(), when)
	if s.Type == window.Recurring {
		f.Message = fmt.Sprintf("the window (%s) starts no occurrence before its validity ends %s: the plan would be terminated as soon as it is applied; move endAt or remove the plan", w.Describe(), when)
	}
	c.add(f)
}

// stamp is an instant as messages write it.
func stamp(t time.Time) string { return t.Format(window.WallLayout) }
