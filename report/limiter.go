package report

import (
	"sync"
	"sync/atomic"
	"time"
)

// Limiter defaults (R-T4).
const (
	// DefaultMaxRenders is how many renders run at a time.
	DefaultMaxRenders = 2
	// DefaultRetryAfter is the Retry-After a refused caller gets.
	DefaultRetryAfter = 5 * time.Second
)

// Limiter lets at most a fixed number of report renders run at a time.
// Acquire never blocks: past the limit it answers a *BusyError (429) with
// the Retry-After to send. A Limiter is safe for concurrent use; it keeps
// a counter and starts no goroutines. The zero value is not usable; call
// NewLimiter.
type Limiter struct {
	max        int64
	retryAfter time.Duration
	running    atomic.Int64
}

// LimiterOption sets an optional setting of NewLimiter.
type LimiterOption func(*Limiter)

// WithMaxRenders sets how many renders run at a time (at least 1; default
// DefaultMaxRenders).
func WithMaxRenders(n int) LimiterOption {
	return func(l *Limiter) { l.max = int64(max(n, 1)) }
}

// WithRetryAfter sets the Retry-After of a refused caller (default
// DefaultRetryAfter; at least one second).
func WithRetryAfter(d time.Duration) LimiterOption {
	return func(l *Limiter) { l.retryAfter = max(d, time.Second) }
}

// NewLimiter returns a limiter of DefaultMaxRenders renders, or as the
// options say.
func NewLimiter(opts ...LimiterOption) *Limiter {
	l := &Limiter{max: DefaultMaxRenders, retryAfter: DefaultRetryAfter}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Acquire takes a render slot. On success it returns the function that
// gives the slot back; call it once the render is written (calling it again
// does nothing). Past the limit it returns a *BusyError.
//
//	release, err := limiter.Acquire()
//	if err != nil { /* 429, Retry-After: err.(*report.BusyError).RetryAfterSeconds() */ }
//	defer release()
func (l *Limiter) Acquire() (release func(), err error) {
	for {
		n := l.running.Load()
		if n >= l.max {
			return nil, &BusyError{Limit: int(l.max), RetryAfter: l.retryAfter}
		}
		if l.running.CompareAndSwap(n, n+1) {
			return sync.OnceFunc(func() { l.running.Add(-1) }), nil
		}
	}
}

// Running is how many renders hold a slot now.
func (l *Limiter) Running() int { return int(l.running.Load()) }
