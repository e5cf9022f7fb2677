package window

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Type is the kind of a window. It is a closed set.
// +kubebuilder:validation:Enum=permanent;time_range;recurring
type Type string

const (
	// Permanent is active from StartAt (or from the plan's creation when
	// StartAt is empty) until the plan is canceled.
	Permanent Type = "permanent"
	// TimeRange is active from StartAt (inclusive) to EndAt (exclusive).
	TimeRange Type = "time_range"
	// Recurring is active during the occurrences of its cron schedules,
	// optionally cut to the validity period [StartAt, EndAt): an occurrence
	// running over either edge is active only inside it.
	Recurring Type = "recurring"
)

// Spec is the API shape of a window, as embedded in a ProtectionPlan. It is
// plain data; Parse compiles it into a Window that answers queries.
// +kubebuilder:object:generate=true
// +kubebuilder:validation:XValidation:rule="!has(self.freeze) || self.freeze != 'outside' || self.type == 'recurring'",message="spec.window.freeze: only a recurring window can be an allow window (freeze: outside)",fieldPath=".freeze"
type Spec struct {
	// Type is permanent, time_range or recurring.
	// +kubebuilder:validation:Required
	Type Type `json:"type"`

	// StartAt is the inclusive start (RFC 3339). Required for time_range;
	// optional for permanent (default: when the plan is created) and for
	// recurring (start of the validity period).
	// +optional
	StartAt *metav1.Time `json:"startAt,omitempty"`

	// EndAt is the exclusive end (RFC 3339). Required for time_range;
	// optional for recurring (end of the validity period); not allowed for
	// permanent.
	// +optional
	EndAt *metav1.Time `json:"endAt,omitempty"`

	// Schedules are the recurring occurrences; required for recurring and
	// not allowed otherwise. Overlapping and adjacent occurrences merge.
	// +optional
	// +listType=atomic
	Schedules []Schedule `json:"schedules,omitempty"`

	// TimeZone is the IANA zone the cron schedules are read in (default
	// UTC). DST follows the zone.
	// +optional
	TimeZone string `json:"timeZone,omitempty"`

	// Freeze says when the plan is frozen: during the intervals the window
	// describes (during, the default) or outside them (outside: an allow
	// window, "changes only Tuesday and Thursday 10:00-12:00"). Only a
	// recurring window can be an allow window; its startAt and endAt bound
	// the time it freezes outside its occurrences.
	// +optional
	Freeze Freeze `json:"freeze,omitempty"`

	// Except lists exceptions that subtract from the intervals the window
	// describes, before Freeze is applied: a freeze is lifted during them,
	// an allow window is closed during them. Each entry is exactly one of
	// date, startAt and endAt, schedule or calendar.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=500
	Except []Exception `json:"except,omitempty"`
}

// Freeze says whether a plan is frozen during its window or outside it. It
// is a closed set.
// +kubebuilder:validation:Enum=during;outside
type Freeze string

const (
	// FreezeDuring freezes during the intervals (the default).
	FreezeDuring Freeze = "during"
	// FreezeOutside freezes outside the intervals: an allow window.
	FreezeOutside Freeze = "outside"
)

// Exception is one exception to a window: exactly one of Date, the pair
// StartAt and EndAt, Schedule or Calendar.
// +kubebuilder:object:generate=true
// +kubebuilder:validation:XValidation:rule="[has(self.date), has(self.startAt) || has(self.endAt), has(self.schedule), has(self.calendar)].filter(x, x).size() == 1",message="an exception must set exactly one of date, startAt and endAt, schedule, calendar"
// +kubebuilder:validation:XValidation:rule="has(self.startAt) == has(self.endAt)",message="an interval exception needs both startAt and endAt"
// +kubebuilder:validation:XValidation:rule="!has(self.startAt) || !has(self.endAt) || self.startAt < self.endAt",message="an exception's endAt must be after its startAt",fieldPath=".endAt"
type Exception struct {
	// Date is a whole day, YYYY-MM-DD, in the window's time zone: from the
	// first instant of that date there to the first of the next (23 or 25
	// hours on the days clocks change).
	// +optional
	// +kubebuilder:validation:Format=date
	Date string `json:"date,omitempty"`
	// StartAt and EndAt are an exact interval [startAt, endAt).
	// +optional
	StartAt *metav1.Time `json:"startAt,omitempty"`
	// EndAt is the exclusive end of the interval.
	// +optional
	EndAt *metav1.Time `json:"endAt,omitempty"`
	// Schedule is a recurring exception, read in the window's time zone
	// with the same rules as the window's schedules.
	// +optional
	Schedule *Schedule `json:"schedule,omitempty"`
	// Calendar names an iCalendar (RFC 5545) file of holidays or events:
	// each of its occurrences is an exception (an all-day event covers its
	// date in the window's time zone). The embedder reads the file and
	// passes its occurrences in (WithCalendar); the window reads no files.
	// +optional
	Calendar *CalendarSource `json:"calendar,omitempty"`
}

// CalendarSource is where an exception's calendar lives.
// +kubebuilder:object:generate=true
type CalendarSource struct {
	// ConfigMapKeyRef is a key of a ConfigMap holding the calendar's ICS
	// text. The ConfigMap lives in the namespace the embedder reads
	// calendars from (the operator's own namespace), since a plan is
	// cluster-scoped.
	// +kubebuilder:validation:Required
	ConfigMapKeyRef ConfigMapKeyRef `json:"configMapKeyRef"`
}

// ConfigMapKeyRef names a key of a ConfigMap. It is comparable, so an
// embedder can key the calendars it gathered by it.
type ConfigMapKeyRef struct {
	// Name is the ConfigMap's name.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Key is the key in its data.
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
}

// Schedule is one recurring occurrence: a start and how long it lasts.
// +kubebuilder:object:generate=true
type Schedule struct {
	// Cron is a five-field cron expression (minute hour day-of-month month
	// day-of-week, robfig/cron syntax, day-of-week 0-6 from Sunday), read in
	// the window's time zone, or one of @yearly, @annually, @monthly,
	// @weekly, @daily, @midnight, @hourly. @every and TZ=/CRON_TZ= prefixes
	// are refused: the zone is timeZone.
	// +kubebuilder:validation:MinLength=1
	Cron string `json:"cron"`
	// Duration is elapsed time, greater than zero and at most 168h, in Go
	// duration syntax ("8h", "90m").
	// +kubebuilder:validation:MinLength=1
	Duration string `json:"duration"`
}
