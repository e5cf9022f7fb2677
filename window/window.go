package window

import (
	"slices"
	"time"
)

// Window is a compiled Spec. It answers queries as pure functions of the
// instant passed in, never reads the clock, and is safe for concurrent use:
// nothing in it changes after Parse. Instants it returns are in its
// Location.
type Window struct {
	spec     Spec
	loc      *time.Location
	start    time.Time // permanent start, time range start, validity start
	end      time.Time // time range end, validity end
	hasStart bool
	hasEnd   bool
	look     time.Duration
	rec      *recurring  // nil unless the window is recurring
	outside  bool        // an allow window: frozen outside the intervals
	exc      *exceptions // nil without exceptions
}

// Interval is a half-open interval [Start, End) during which a window is
// active. Overlapping and adjacent occurrences are merged into one.
//
// OpenStart means the interval began before the look-back: it started at or
// before Start, which is the look-back limit (for a permanent window without
// startAt, Start is the zero Time). OpenEnd means the interval lasts past
// the look-ahead: it ends at or after End, which is the look-ahead limit
// (for a permanent window, which never ends, End is the zero Time).
type Interval struct {
	Start, End         time.Time
	OpenStart, OpenEnd bool
}

// Parse validates spec (see Validate) and compiles it: the cron expressions
// and durations are parsed and the zone loaded once, and a recurring window
// precomputes the merged occurrences of every kind of day, so that queries
// are cheap. The error, when not nil, is a *ParseError listing every
// problem under the field path spec.window (see WithFieldPath).
//
// A permanent window without startAt is active from the beginning of time
// (the plan defaults startAt to its creation time).
func Parse(spec Spec, opts ...Option) (*Window, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	c, errs := check(&spec, o.fldPath)
	if len(errs) > 0 {
		return nil, &ParseError{Errs: errs}
	}
	if o.loc != nil {
		c.loc = o.loc
	}
	w := &Window{spec: *spec.DeepCopy(), loc: c.loc, look: o.lookAround}
	if spec.StartAt != nil {
		w.start, w.hasStart = spec.StartAt.Time, true
	}
	if spec.EndAt != nil {
		w.end, w.hasEnd = spec.EndAt.Time, true
	}
	if spec.Type == Recurring {
		scheds := make([]schedule, len(c.crons))
		for i := range c.crons {
			scheds[i] = newSchedule(c.crons[i], c.durs[i])
		}
		w.rec = compileRecurring(newZone(c.loc), scheds)
	}
	w.outside = spec.Freeze == FreezeOutside
	if len(spec.Except) > 0 {
		w.exc = compileExceptions(c.except, c.loc, o.calendars)
	}
	return w, nil
}

// Type returns the window's type.
func (w *Window) Type() Type { return w.spec.Type }

// Location returns the window's time zone (UTC when timeZone is empty).
func (w *Window) Location() *time.Location { return w.loc }

// LookAround returns the bound on recurring look-back and look-ahead.
func (w *Window) LookAround() time.Duration { return w.look }

// Spec returns a copy of the spec the window was compiled from.
func (w *Window) Spec() Spec { return *w.spec.DeepCopy() }

// Calendars returns the calendars the window's exceptions name, in order,
// each once: what an embedder reads and passes to Parse (WithCalendar).
func (w *Window) Calendars() []ConfigMapKeyRef { return Calendars(w.spec) }

// Calendars returns the calendars spec's exceptions name, in order, each
// once.
func Calendars(spec Spec) []ConfigMapKeyRef {
	var out []ConfigMapKeyRef
	for _, e := range spec.Except {
		if e.Calendar != nil && !slices.Contains(out, e.Calendar.ConfigMapKeyRef) {
			out = append(out, e.Calendar.ConfigMapKeyRef)
		}
	}
	return out
}

// Describe returns a short human description, as the package function
// Describe does.
func (w *Window) Describe() string { return Describe(w.spec) }
