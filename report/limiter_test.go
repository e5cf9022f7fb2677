package report

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
)

func TestLimiter_ThirdRenderIsRefusedWith429(t *testing.T) {
	l := NewLimiter()
	r1, err1 := l.Acquire()
	r2, err2 := l.Acquire()
	if err1 != nil || err2 != nil {
		t.Fatalf("the first two renders: %v, %v", err1, err2)
	}
	_, err := l.Acquire()
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Fatalf("the third render: %v, want a *BusyError", err)
	}
	if plan.CodeOf(err) != http.StatusTooManyRequests || busy.RetryAfter != DefaultRetryAfter || busy.RetryAfterSeconds() != 5 || busy.Limit != 2 {
		t.Errorf("busy = %+v (code %d), want 429, 2 renders, retry after 5s", busy, plan.CodeOf(err))
	}
	if err.Error() != "report: 2 renders are already running; retry after 5s" {
		t.Errorf("message %q", err.Error())
	}
	r1()
	r1() // a second release gives nothing back
	if l.Running() != 1 {
		t.Errorf("running %d after one release (twice), want 1", l.Running())
	}
	r3, err := l.Acquire()
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()
	if l.Running() != 0 {
		t.Errorf("running %d, want 0", l.Running())
	}
}

func TestLimiter_Options(t *testing.T) {
	l := NewLimiter(WithMaxRenders(1), WithRetryAfter(1500*time.Millisecond))
	release, _ := l.Acquire()
	defer release()
	_, err := l.Acquire()
	var busy *BusyError
	if !errors.As(err, &busy) || busy.Limit != 1 || busy.RetryAfterSeconds() != 2 {
		t.Errorf("got %v, want a limit of 1 and Retry-After 2 (1.5s rounded up)", err)
	}
	if l := NewLimiter(WithMaxRenders(0), WithRetryAfter(0)); l.max != 1 || l.retryAfter != time.Second {
		t.Errorf("silly options give %d renders, %s; want at least 1 and 1s", l.max, l.retryAfter)
	}
}

// Many goroutines hammer the limiter: never more than 2 hold a slot, every
// refusal is a *BusyError, and at the end every slot is back.
func TestLimiter_Concurrent(t *testing.T) {
	l := NewLimiter()
	var holding, peak, granted, refused atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range 500 {
				release, err := l.Acquire()
				if err != nil {
					var busy *BusyError
					if !errors.As(err, &busy) {
						t.Errorf("refusal %v is not a *BusyError", err)
					}
					refused.Add(1)
					continue
				}
				n := holding.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				granted.Add(1)
				holding.Add(-1)
				release()
			}
		}()
	}
	close(start)
	wg.Wait()
	if peak.Load() > 2 {
		t.Errorf("%d renders held a slot at once, want at most 2", peak.Load())
	}
	if l.Running() != 0 {
		t.Errorf("%d slots still held", l.Running())
	}
	if granted.Load()+refused.Load() != 64*500 || granted.Load() == 0 {
		t.Errorf("granted %d, refused %d", granted.Load(), refused.Load())
	}
	t.Logf("granted %d, refused %d, peak %d", granted.Load(), refused.Load(), peak.Load())
}
