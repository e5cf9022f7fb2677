package window_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/telark/protectionplans/window"
)

func TestDeepCopy(t *testing.T) {
	in := withValidity(recurring("Europe/Berlin", "0 22 * * *", "8h"), jan1, jan2)
	out := in.DeepCopy()
	if diff := cmp.Diff(&in, out); diff != "" {
		t.Fatalf("DeepCopy differs (-in +out):\n%s", diff)
	}
	out.StartAt.Time = jan2
	out.Schedules[0].Cron = "0 23 * * *"
	if !in.StartAt.Time.Equal(jan1) || in.Schedules[0].Cron != "0 22 * * *" {
		t.Errorf("DeepCopy shares memory with its input: %+v", in)
	}
	if (*window.Spec)(nil).DeepCopy() != nil || (*window.Schedule)(nil).DeepCopy() != nil {
		t.Error("DeepCopy of nil is not nil")
	}
}

func TestWindowKeepsACopy(t *testing.T) {
	spec := withValidity(recurring("Europe/Berlin", "0 22 * * *", "8h"), jan1, jan2)
	w := mustParse(t, spec)
	spec.Schedules[0].Cron = "0 3 * * *"
	spec.StartAt.Time = jan2
	got := w.Spec()
	got.Schedules[0].Duration = "1h"
	if s := w.Spec(); s.Schedules[0].Cron != "0 22 * * *" || s.Schedules[0].Duration != "8h" || !s.StartAt.Time.Equal(jan1) {
		t.Errorf("the window's spec changed with its caller's copies: %+v", s)
	}
	if w.Type() != window.Recurring || w.Location().String() != "Europe/Berlin" || w.LookAround() != window.DefaultLookAround {
		t.Errorf("Type, Location, LookAround = %s, %s, %s", w.Type(), w.Location(), w.LookAround())
	}
	if !w.Active(time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)) {
		t.Error("the compiled window changed with its caller's spec")
	}
}

func TestLocationDefaultsToUTC(t *testing.T) {
	for _, z := range []string{"", "UTC"} {
		if loc := mustParse(t, window.Spec{Type: window.Permanent, TimeZone: z}).Location(); loc != time.UTC {
			t.Errorf("timeZone %q: Location() = %v, want UTC", z, loc)
		}
	}
}

func TestLookAroundOption(t *testing.T) {
	for _, c := range []struct {
		name string
		in   time.Duration
		want time.Duration
	}{
		{"zero keeps the default", 0, window.DefaultLookAround},
		{"negative keeps the default", -time.Hour, window.DefaultLookAround},
		{"a day is a day", 24 * time.Hour, 24 * time.Hour},
		{"a century is capped at 50 years", 100 * 366 * 24 * time.Hour, 50 * 366 * 24 * time.Hour},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := mustParse(t, recurring("UTC", "0 0 * * *", "1h"), window.WithLookAround(c.in))
			if got := w.LookAround(); got != c.want {
				t.Errorf("LookAround() = %s, want %s", got, c.want)
			}
		})
	}
}

// FuzzWindow feeds arbitrary cron expressions, durations and instants:
// nothing panics, and at every edge NextEdge reports, Active changes.
func FuzzWindow(f *testing.F) {
	f.Add("0 22 * * *", "8h", uint8(1), int64(0))
	f.Add("30 2 * * *", "1h", uint8(1), int64(7_000_000))
	f.Add("*/7 1-3 * * 0", "13m", uint8(3), int64(24_000_000))
	f.Add("TZ=UTC", "1h", uint8(0), int64(0))
	f.Add("0 0 30 2 *", "1h", uint8(2), int64(0))
	f.Add("@every 1h", "1h", uint8(2), int64(0))
	zones := []string{"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, expr, dur string, zone uint8, offset int64) {
		spec := recurring(zones[int(zone)%len(zones)], expr, dur)
		_ = window.Describe(spec)
		w, err := window.Parse(spec)
		if err != nil {
			return
		}
		at := base.Add(time.Duration(offset%(400*24*3600)) * time.Second)
		e, ok := w.NextEdge(at)
		if !ok {
			return
		}
		if !e.After(at) {
			t.Fatalf("NextEdge(%s) = %s, not after it", show(at), show(e))
		}
		if w.Active(e) == w.Active(at) || w.Active(e.Add(-time.Nanosecond)) != w.Active(at) {
			t.Fatalf("Active does not change at NextEdge(%s) = %s", show(at), show(e))
		}
	})
}

// TestConcurrentUse: a Window is shared by goroutines without locking.
// Each goroutine's answers must equal the ones computed alone beforehand;
// hack/test.sh runs it with -race, which also checks for data races.
func TestConcurrentUse(t *testing.T) {
	w := mustParse(t, recurring("Europe/Berlin", "0 22 * * *", "8h", "30 2 * * 0", "1h"))
	at := when(t, "Sun Oct 25 2026 00:00 Europe/Berlin")
	type answer struct {
		active      bool
		edge        time.Time
		edgeOK      bool
		containing  window.Interval
		containsOK  bool
		occurrences []window.Interval
	}
	ask := func(x time.Time) answer {
		var a answer
		a.active = w.Active(x)
		a.edge, a.edgeOK = w.NextEdge(x)
		a.containing, a.containsOK = w.Containing(x)
		a.occurrences = w.Occurrences(x, x.Add(24*time.Hour))
		return a
	}
	const goroutines, each = 4, 200
	instant := func(g, i int) time.Time { return at.Add(time.Duration(g*each+i) * 7 * time.Minute) }
	want := make([]answer, goroutines*each)
	for g := range goroutines {
		for i := range each {
			want[g*each+i] = ask(instant(g, i))
		}
	}
	got := make([]answer, goroutines*each)
	done := make(chan bool)
	for g := range goroutines {
		go func() {
			for i := range each {
				got[g*each+i] = ask(instant(g, i))
			}
			done <- true
		}()
	}
	for range goroutines {
		<-done
	}
	for k := range want {
		if diff := cmp.Diff(want[k], got[k], cmp.AllowUnexported(answer{})); diff != "" {
			t.Fatalf("answer at %s differs when asked concurrently (-alone +concurrently):\n%s", show(instant(k/each, k%each)), diff)
		}
	}
}
