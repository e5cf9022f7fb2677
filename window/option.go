package window

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultLookAround bounds how far recurring queries look back and ahead of
// the instant asked about.
const DefaultLookAround = 14 * 24 * time.Hour

// maxLookAround keeps every bounded search well inside the range of
// time.Duration arithmetic.
const maxLookAround = 50 * 366 * 24 * time.Hour

// Option changes how Parse compiles a window.
type Option func(*options)

type options struct {
	fldPath    *field.Path
	lookAround time.Duration
	loc        *time.Location // replaces the zone timeZone names (tests only)
	calendars  map[ConfigMapKeyRef][]Interval
}

func defaultOptions() options {
	return options{fldPath: field.NewPath("spec", "window"), lookAround: DefaultLookAround}
}

// WithFieldPath sets the path Parse's errors are reported under (default
// spec.window).
func WithFieldPath(p *field.Path) Option {
	return func(o *options) { o.fldPath = p }
}

// WithLookAround bounds the look-back and look-ahead of recurring queries
// (default 14 days). A merged interval whose start lies further back than d
// from the instant asked about is reported with OpenStart, one whose end lies
// further ahead with OpenEnd, and NextEdge reports no edge further than d
// ahead. Values <= 0 keep the default; values above 50 years are capped.
// Edges of permanent and time_range windows and of a validity period are
// exact at any distance.
func WithLookAround(d time.Duration) Option {
	return func(o *options) {
		switch {
		case d <= 0:
			o.lookAround = DefaultLookAround
		case d > maxLookAround:
			o.lookAround = maxLookAround
		default:
			o.lookAround = d
		}
	}
}

// withLocation compiles the window in loc instead of the zone its timeZone
// names. Unexported: the tests use it to run the same spec against more
// than one zone database in one process (Go's embedded one and the
// system's).
func withLocation(loc *time.Location) Option {
	return func(o *options) { o.loc = loc }
}

// WithCalendar gives Parse the occurrences of the calendar at ref: every
// exception of the window that names ref subtracts them. The window reads
// no files: the embedder reads the calendar (a ConfigMap's key) and
// expands its events (package calendar) into exact intervals, over the
// range its queries need. A calendar exception Parse is given nothing for
// subtracts nothing; Calendars lists what a window names.
func WithCalendar(ref ConfigMapKeyRef, occurrences []Interval) Option {
	return func(o *options) {
		if o.calendars == nil {
			o.calendars = map[ConfigMapKeyRef][]Interval{}
		}
		o.calendars[ref] = append(o.calendars[ref], occurrences...)
	}
}
