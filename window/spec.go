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
