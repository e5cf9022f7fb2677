package reconcile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Environment variables LoadTiming reads.
const (
	// EnvTickInterval is how often, in seconds, the operator ticks.
	EnvTickInterval = "PROTECTION_PLAN_TICK_INTERVAL_SEC"
	// EnvReportCheckpoint is how often, in seconds, the operator
	// checkpoints violations into the per-plan ledger.
	EnvReportCheckpoint = "PROTECTION_PLAN_REPORT_CHECKPOINT_SEC"
)

// Defaults and bounds of the configuration. A value outside its bounds is
// refused rather than clamped: a tick of 0 would spin and a tick of a week
// would miss every window, so both are mistakes worth hearing about.
const (
	DefaultTickInterval     = 31 * time.Second
	MinTickInterval         = 1 * time.Second
	MaxTickInterval         = 1 * time.Hour
	DefaultReportCheckpoint = 900 * time.Second
	MinReportCheckpoint     = 10 * time.Second
	// MaxReportCheckpoint is below Kubernetes' default event retention of
	// one hour, so that no violation expires between two checkpoints.
	MaxReportCheckpoint = 55 * time.Minute
)

// Timing is how often a controller passes and checkpoints.
type Timing struct {
	// TickInterval is the period of the lifecycle tick (default 31s).
	TickInterval time.Duration
	// ReportCheckpoint is the period of violation checkpoints (default
	// 15m).
	ReportCheckpoint time.Duration
}

// LoadTiming reads the configuration through lookup (os.LookupEnv in a
// main package; a map in tests). An unset or empty variable takes its
// default. A value must be a whole number of seconds within its bounds
// (surrounding spaces are ignored). Every bad variable is reported, each
// as a *TimingError naming the variable and quoting the value.
func LoadTiming(lookup func(string) (string, bool)) (Timing, error) {
	tick, err1 := seconds(lookup, EnvTickInterval, DefaultTickInterval, MinTickInterval, MaxTickInterval)
	ckpt, err2 := seconds(lookup, EnvReportCheckpoint, DefaultReportCheckpoint, MinReportCheckpoint, MaxReportCheckpoint)
	if err := errors.Join(err1, err2); err != nil {
		return Timing{}, err
	}
	return Timing{TickInterval: tick, ReportCheckpoint: ckpt}, nil
}

func seconds(lookup func(string) (string, bool), name string, def, lo, hi time.Duration) (time.Duration, error) {
	raw, ok := lookup(name)
	value := strings.TrimSpace(raw)
	if !ok || value == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n <= 0 {
		return 0, &TimingError{Variable: name, Value: raw, Reason: "must be a positive whole number of seconds"}
	}
	d := time.Duration(n) * time.Second
	if n > int64(hi/time.Second) || d < lo {
		return 0, &TimingError{Variable: name, Value: raw,
			Reason: fmt.Sprintf("must be between %d and %d seconds", int64(lo/time.Second), int64(hi/time.Second))}
	}
	return d, nil
}

// TimingError is a bad configuration variable.
type TimingError struct {
	// Variable is the environment variable's name.
	Variable string
	// Value is the value as given.
	Value string
	// Reason says what a valid value is.
	Reason string
}

func (e *TimingError) Error() string {
	return fmt.Sprintf("%s=%q: %s", e.Variable, e.Value, e.Reason)
}
