package reconcile

import "time"

// CheckpointDue reports whether a violations checkpoint is due at now:
// none was made yet (last is zero), or period has passed since the last.
func CheckpointDue(last, now time.Time, period time.Duration) bool {
	return last.IsZero() || !now.Before(last.Add(period))
}
