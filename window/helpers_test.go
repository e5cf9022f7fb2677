package window_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/window"
)

// when reads a time written the way people say it, in a named zone:
// "Sun Mar 29 2026 03:00 Europe/Berlin". Inside a repeated hour, the offset
// picks the reading: "Sun Oct 25 2026 02:30 +0100 Europe/Berlin". The
// weekday is checked, so a typo in the date fails loudly.
func when(tb testing.TB, s string) time.Time {
	tb.Helper()
	f := strings.Fields(s)
	if len(f) < 6 {
		tb.Fatalf("when(%q): want \"Mon Jan 2 2006 15:04 [-0700] Zone/Name\"", s)
	}
	loc, err := time.LoadLocation(f[len(f)-1])
	if err != nil {
		tb.Fatalf("when(%q): %v", s, err)
	}
	var t time.Time
	if len(f) == 7 {
		t, err = time.Parse("Mon Jan 2 2006 15:04 -0700", strings.Join(f[:6], " "))
		t = t.In(loc)
	} else {
		t, err = time.ParseInLocation("Mon Jan 2 2006 15:04", strings.Join(f[:5], " "), loc)
	}
	if err != nil {
		tb.Fatalf("when(%q): %v", s, err)
	}
	if got := t.Format("Mon"); got != f[0] {
		tb.Fatalf("when(%q): that day is a %s", s, got)
	}
	if len(f) == 7 && t.Format("-0700") != f[5] {
		tb.Fatalf("when(%q): %s is not an offset of %s at that time", s, f[5], f[6])
	}
	return t
}

// show prints an instant the way when reads it, with its offset.
func show(t time.Time) string { return t.Format("Mon Jan 2 2006 15:04 -0700") }

func mt(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }

func recurring(zone string, pairs ...string) window.Spec {
	s := window.Spec{Type: window.Recurring, TimeZone: zone}
	for i := 0; i+1 < len(pairs); i += 2 {
		s.Schedules = append(s.Schedules, window.Schedule{Cron: pairs[i], Duration: pairs[i+1]})
	}
	return s
}

func mustParse(tb testing.TB, s window.Spec, opts ...window.Option) *window.Window {
	tb.Helper()
	w, err := window.Parse(s, opts...)
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	return w
}
