package reconcile_test

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/telark/protectionplans/approval"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
	"github.com/telark/protectionplans/violations"
	"github.com/telark/protectionplans/window"
)

// The calendars of a window reach every step that reads it, not only the
// pass's tick: the enforce messages' "until", a clocked render's
// intervals, a grant's cut, the phase an action or an approval moves a
// plan to, and the offline preview. Each case below fails when its step
// parses the window without them (issue 19).

// christmas is the holiday calendar of these tests: Christmas Eve, all
// day in the plan's zone (datesReader).
var christmas = map[window.ConfigMapKeyRef][]byte{holidays: []byte("2026-12-24")}

// The night before Christmas Eve, 22:00 Berlin: the nightly freeze runs
// until 06:00, but the holiday starts at midnight and cuts it there.
var (
	nightBefore = time.Date(2026, 12, 23, 22, 0, 0, 0, berlin)
	eveMidnight = time.Date(2026, 12, 24, 0, 0, 0, 0, berlin)
	eveEvening  = time.Date(2026, 12, 24, 21, 30, 0, 0, berlin)
)

func TestCalendarsInThePass(t *testing.T) {
	defer reconcile.SetCalendarReader(datesReader)()
	cases := []struct {
		name  string
		clock bool
		steps []time.Time
		check func(t *testing.T, w *world)
	}{
		{name: "the enforce message of a night a holiday cuts says until the holiday begins",
			steps: []time.Time{nightBefore.Add(time.Hour)},
			check: func(t *testing.T, w *world) {
				text := policiesText(t, w, "nights")
				if !strings.Contains(text, "until 2026-12-24 00:00 CET") || strings.Contains(text, "06:00") {
					t.Errorf("the policies do not say until midnight:\n%s", excerpt(text, "until"))
				}
			}},
		{name: "a clocked render does not put policies in place ahead of a holiday night",
			clock: true, steps: []time.Time{eveEvening.Add(-time.Hour), eveEvening},
			check: func(t *testing.T, w *world) {
				if n := len(w.live("nights")); n != 0 {
					t.Errorf("%d policies in place at 21:30 on the holiday; its 22:00 start does not freeze", n)
				}
			}},
		{name: "a clocked render's policies refuse until the holiday, not until the night's end",
			clock: true, steps: []time.Time{nightBefore.Add(-30 * time.Minute)},
			check: func(t *testing.T, w *world) {
				text := policiesText(t, w, "nights")
				if !strings.Contains(text, eveMidnight.UTC().Format(time.RFC3339)) {
					t.Errorf("the clocked policies do not end at the holiday's start %s:\n%s", eveMidnight.UTC().Format(time.RFC3339), excerpt(text, "2026-12-2"))
				}
				if strings.Contains(text, time.Date(2026, 12, 24, 6, 0, 0, 0, berlin).UTC().Format(time.RFC3339)) {
					t.Errorf("the clocked policies refuse until 06:00 on the holiday")
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld("shop")
			w.settings.Clock = c.clock
			w.calendars = christmas
			w.add(nightlyWithCalendar(false))
			for _, at := range c.steps {
				w.passPlan("nights", at)
			}
			c.check(t, w)
		})
	}
}

func TestCalendarsInActions(t *testing.T) {
	defer reconcile.SetCalendarReader(datesReader)()
	oncall := oscar
	// created makes the nightly plan with calendars as a server would, at at.
	created := func(t *testing.T, at time.Time, edit func(*plan.ProtectionPlan)) *plan.ProtectionPlan {
		p := nightlyWithCalendar(false)
		if edit != nil {
			edit(p)
		}
		res, _, err := reconcile.CreatedStatus(p, "olivia", at, christmas)
		if err != nil {
			t.Fatal(err)
		}
		return res.Plan
	}
	cases := []struct {
		name string
		run  func(t *testing.T) (plan.Phase, string)
		want plan.Phase
	}{
		{name: "a plan created on the holiday evening waits for the next night", want: plan.PhaseScheduled,
			run: func(t *testing.T) (plan.Phase, string) {
				p := created(t, eveEvening.Add(time.Hour), nil)
				return p.Status.Phase, p.Status.Window
			}},
		{name: "a plan reactivated on the holiday evening waits for the next night", want: plan.PhaseScheduled,
			run: func(t *testing.T) (plan.Phase, string) {
				p := created(t, nightBefore.Add(-time.Hour), nil)
				res, err := reconcile.Cancel(reconcile.ActionInput{Plan: p, Caller: oncall, Now: nightBefore.Add(-time.Hour)})
				if err != nil {
					t.Fatal(err)
				}
				res, err = reconcile.Reactivate(reconcile.ActionInput{Plan: res.Plan, Caller: oncall, Now: eveEvening.Add(time.Hour), Calendars: christmas})
				if err != nil {
					t.Fatal(err)
				}
				return res.Plan.Status.Phase, ""
			}},
		{name: "a plan approved on the holiday evening waits for the next night", want: plan.PhaseScheduled,
			run: func(t *testing.T) (plan.Phase, string) {
				p := created(t, nightBefore.Add(-time.Hour), func(p *plan.ProtectionPlan) { p.Spec.ApprovalMode = plan.ApprovalRequired })
				res, err := reconcile.ApplyVerdict(reconcile.VerdictInput{Plan: p, Caller: oncall, Now: eveEvening.Add(time.Hour), Calendars: christmas,
					Verdict: approval.Verdict{RequestID: p.Status.ApprovalRequest.ID, Decision: plan.DecisionApproved}})
				if err != nil {
					t.Fatal(err)
				}
				return res.Plan.Status.Phase, ""
			}},
		{name: "a window edited on the holiday evening to name the calendar waits for the next night", want: plan.PhaseScheduled,
			run: func(t *testing.T) (plan.Phase, string) {
				p := created(t, nightBefore.Add(-time.Hour), func(p *plan.ProtectionPlan) { p.Spec.Window.Except = nil })
				p.Status.Phase = plan.PhaseActive // as its passes left it on the evening
				spec := nightlyWithCalendar(false).Spec
				res, _, err := reconcile.Edit(reconcile.EditInput{Old: p, Spec: spec, Caller: oncall, Now: eveEvening.Add(time.Hour), Calendars: christmas,
					Env: plan.ValidationEnv{Now: eveEvening.Add(time.Hour), Catalog: render.DefaultCatalog}})
				if err != nil {
					t.Fatal(err)
				}
				return res.Plan.Status.Phase, ""
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, why := c.run(t); got != c.want {
				t.Errorf("phase %s, want %s %s", got, c.want, why)
			}
		})
	}

	t.Run("a grant approved the night before a holiday ends when the holiday begins", func(t *testing.T) {
		p := created(t, nightBefore.Add(time.Hour), nil)
		if p.Status.Phase != plan.PhaseActive {
			t.Fatalf("phase %s at 23:00 the night before, want active", p.Status.Phase)
		}
		at := nightBefore.Add(90 * time.Minute)
		req, err := reconcile.RequestGrant(reconcile.GrantRequest{ActionInput: reconcile.ActionInput{Plan: p, Caller: carl, Now: at, Calendars: christmas},
			Reason: "INC-7", Duration: 4 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		ok, err := reconcile.ApproveGrant(reconcile.GrantDecision{ActionInput: reconcile.ActionInput{Plan: req.Plan, Caller: oscar, Now: at, Calendars: christmas},
			Grant: req.Plan.Status.Grants[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		if g := ok.Plan.Status.Grants[0]; !g.ExpiresAt.Time.Equal(eveMidnight) {
			t.Errorf("the grant expires %s, want when the holiday begins (%s)", g.ExpiresAt.Time.In(berlin), eveMidnight)
		}
	})
}

func TestCalendarsOffline(t *testing.T) {
	defer reconcile.SetCalendarReader(datesReader)()
	o := reconcile.Offline{Calendars: christmas}
	t.Run("a preview on the holiday evening is scheduled for the end of the holiday, midnight", func(t *testing.T) {
		pv, err := o.Preview(nightlyWithCalendar(false), eveEvening.Add(time.Hour), false)
		if err != nil {
			t.Fatal(err)
		}
		if pv.Plan.Status.Phase != plan.PhaseScheduled {
			t.Errorf("phase %s, want scheduled", pv.Plan.Status.Phase)
		}
		if want := eveMidnight.AddDate(0, 0, 1); pv.Plan.Status.NextEdge == nil || !pv.Plan.Status.NextEdge.Time.Equal(want) {
			t.Errorf("next edge %v, want %s", pv.Plan.Status.NextEdge, want)
		}
	})
	t.Run("a preview the night before says until the holiday begins", func(t *testing.T) {
		pv, err := o.Preview(nightlyWithCalendar(false), nightBefore.Add(time.Hour), false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := render.Render(pv.Input(render.TargetKyverno, false))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Policies[0].Objects[0].Object)
		if text := decoded(string(b)); !strings.Contains(text, "until 2026-12-24 00:00 CET") {
			t.Errorf("the preview's policy does not say until midnight:\n%s", excerpt(text, "until"))
		}
	})
	t.Run("a simulated run over the holiday is not active on it", func(t *testing.T) {
		p, err := o.SimulateRun(nightlyWithCalendar(false), violations.Ledger{}, eveEvening.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if p.Status.Phase == plan.PhaseActive {
			t.Errorf("the simulated run is active on the holiday evening")
		}
	})
	t.Run("a listing leaves the holiday out", func(t *testing.T) {
		from := time.Date(2026, 12, 22, 12, 0, 0, 0, berlin)
		_, w, err := o.Window(nightlyWithCalendar(false), from, from, from.AddDate(0, 0, 5))
		if err != nil {
			t.Fatal(err)
		}
		for _, iv := range w.Occurrences(from, from.AddDate(0, 0, 5)) {
			if iv.Start.Before(eveMidnight.AddDate(0, 0, 1)) && iv.End.After(eveMidnight) {
				t.Errorf("an occurrence %s-%s meets the holiday", iv.Start.In(berlin), iv.End.In(berlin))
			}
		}
	})
}

// inert matches the messages render writes as Kyverno expressions that
// decode base64 text, so that the text is never evaluated.
var inert = regexp.MustCompile(`base64_decode\('([A-Za-z0-9+/=]+)'\)`)

// decoded is text with each inert message decoded after it.
func decoded(text string) string {
	return inert.ReplaceAllStringFunc(text, func(m string) string {
		b, err := base64.StdEncoding.DecodeString(inert.FindStringSubmatch(m)[1])
		if err != nil {
			return m
		}
		return m + " [" + string(b) + "]"
	})
}

// policiesText is the JSON of the plan's live policies, their messages
// decoded.
func policiesText(t *testing.T, w *world, id string) string {
	t.Helper()
	live := w.live(id)
	if len(live) == 0 {
		t.Fatalf("plan %s has no policy", id)
	}
	var b strings.Builder
	for _, u := range live {
		j, err := json.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return decoded(b.String())
}

// excerpt is the text around the first match of what, for failures.
func excerpt(text, what string) string {
	i := strings.Index(text, what)
	if i < 0 {
		return text
	}
	return text[max(0, i-120):min(len(text), i+200)]
}
