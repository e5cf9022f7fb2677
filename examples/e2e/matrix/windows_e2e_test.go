//go:build e2e

package matrix

import (
	"fmt"
	"testing"
	"time"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// testAllowWindow: a plan frozen outside its window (freeze: outside)
// admits a change inside the window and refuses it once the window has
// closed. The allowed time starts at the current whole minute (cron reads
// minutes) and lasts until 20 seconds from now, so the close is an edge
// the operator's timer acts on, as at a time range's start.
func testAllowWindow(t *testing.T) {
	t.Parallel()
	ns, id := tgt.id("lc-allow"), tgt.id("lc-allow")
	lifecycleNamespace(t, ns)
	now := time.Now().UTC()
	opened := now.Truncate(time.Minute)
	closes := now.Truncate(time.Second).Add(20 * time.Second)
	p := matrixPlan(id, "Lifecycle allow window", plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
	p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: "UTC", Freeze: window.FreezeOutside,
		Schedules: []window.Schedule{{Cron: fmt.Sprintf("%d %d * * *", opened.Minute(), opened.Hour()), Duration: closes.Sub(opened).String()}}}
	if err := s.c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the plan scheduled inside its allow window", func() (string, bool) {
		ph := getPlan(t, id).Status.Phase
		return string(ph), ph == plan.PhaseScheduled
	})
	if n := len(planPolicies(t, id)); n != 0 {
		t.Fatalf("%d policies inside the allow window", n)
	}
	if refused, out := dryScale(t, ns); refused {
		t.Fatalf("refused inside the allow window: %s", out)
	}
	if d := explainScale(t, getPlan(t, id), ns); d.Blocked {
		t.Errorf("Explain blocks inside the allow window: %s", d.Reason)
	}
	if time.Until(closes) < time.Second {
		t.Fatalf("the checks inside the allow window took too long (it closed %s ago)", -time.Until(closes))
	}

	time.Sleep(time.Until(closes))
	deployed := waitFor(t, 3*tick, "the policy created when the allow window closes", func() (string, bool) {
		return "", len(planPolicies(t, id)) == 1
	})
	enforced := waitFor(t, time.Minute, "the admission chain refusing the scale outside the allow window", func() (string, bool) {
		refused, _ := dryScale(t, ns)
		return "", refused
	})
	live := getPlan(t, id)
	if live.Status.Phase != plan.PhaseActive {
		t.Errorf("phase %s outside the allow window", live.Status.Phase)
	}
	if d := explainScale(t, live, ns); !d.Blocked {
		t.Errorf("Explain admits outside the allow window")
	}
	t.Logf("allow window %q closed at %s: policy created %s later, scale refused %s after that",
		live.Status.Window, closes.Format(time.TimeOnly), deployed.Round(time.Millisecond), enforced.Round(time.Millisecond))
}

// testHolidayException: a plan frozen all day every day except on a
// holiday (except: date) admits a change on the holiday and refuses it the
// day after. Both days are today: one plan's holiday is today, the other's
// was yesterday, so today is the day after it. The zone keeps today away
// from midnight, so that neither plan crosses a date while it is checked.
func testHolidayException(t *testing.T) {
	t.Parallel()
	zone := "UTC"
	if h := time.Now().UTC().Hour(); h == 0 || h == 23 {
		zone = "Asia/Tokyo" // 08:00 to 10:00 there
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	today := time.Now().In(loc)
	for _, c := range []struct {
		name, holiday string
		refused       bool
	}{
		{"holiday", today.Format(time.DateOnly), false},
		{"after", today.AddDate(0, 0, -1).Format(time.DateOnly), true},
	} {
		ns, id := tgt.id("lc-hol-"+c.name), tgt.id("lc-hol-"+c.name)
		lifecycleNamespace(t, ns)
		p := matrixPlan(id, "Lifecycle holiday "+c.name, plan.ModeEnforce, plan.Scope{Namespaces: []string{ns}}, plan.Exclusions{}, "scaling")
		p.Spec.Window = window.Spec{Type: window.Recurring, TimeZone: zone,
			Schedules: []window.Schedule{{Cron: "0 0 * * *", Duration: "24h"}},
			Except:    []window.Exception{{Date: c.holiday}}}
		if err := s.c.Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		want := plan.PhaseScheduled
		if c.refused {
			want = plan.PhaseActive
		}
		waitFor(t, 10*time.Second, "the plan "+string(want), func() (string, bool) {
			ph := getPlan(t, id).Status.Phase
			return string(ph), ph == want
		})
		took := waitFor(t, time.Minute, fmt.Sprintf("the scale refused=%v", c.refused), func() (string, bool) {
			refused, out := dryScale(t, ns)
			return out, refused == c.refused
		})
		live := getPlan(t, id)
		if d := explainScale(t, live, ns); d.Blocked != c.refused {
			t.Errorf("%s: Explain blocked=%v, want %v", c.name, d.Blocked, c.refused)
		}
		t.Logf("%s on %s (%s): %q, phase %s, scale refused=%v after %s", c.name, today.Format(time.DateOnly), zone,
			live.Status.Window, live.Status.Phase, c.refused, took.Round(time.Millisecond))
	}
}
