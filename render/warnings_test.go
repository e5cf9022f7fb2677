package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

// tenPM is a nightly window from 22:00 for eight hours (elapsed time): on
// the night DST ends it closes at 05:00 by the wall clock.
func tenPM(zone string) window.Spec {
	return window.Spec{Type: window.Recurring, TimeZone: zone,
		Schedules: []window.Schedule{{Cron: "0 22 * * *", Duration: "8h"}}}
}

// warnPlan is clockPlan named "Nightly image freeze".
func warnPlan(t *testing.T, spec window.Spec, at time.Time) *plan.ProtectionPlan {
	p := clockPlan(t, spec, at)
	p.Spec.Name = "Nightly image freeze"
	return p
}

// warnInstantCase is an instant of a DST night of a zone with the warnings expected around
// its edges, with a lead of an hour.
type warnInstantCase struct {
	name    string
	at      string // RFC 3339
	phase   WarningPhase
	static  string // the text without a clock ("" with phase "": none)
	clocked string
}

func warnNights() map[string][]warnInstantCase {
	const be = "freeze Nightly image freeze"
	return map[string][]warnInstantCase{
		// 2026-10-24 22:00 CEST is 20:00Z; eight hours later, 04:00Z, the
		// wall clock reads 05:00 CET (the night's repeated hour).
		"Europe/Berlin": {
			{name: "a second before the lead, nothing warns", at: "2026-10-24T18:59:59Z"},
			{name: "at the lead before the start, the BeforeStart warning", at: "2026-10-24T19:00:00Z", phase: WarningBeforeStart,
				static:  be + " starts at 2026-10-24 22:00 CEST Europe/Berlin (until 2026-10-25 05:00 CET)",
				clocked: be + " starts in 1h0m0s (2026-10-24 22:00 CEST Europe/Berlin, until 2026-10-25 05:00 CET)"},
			{name: "twenty minutes before the start, it says 20m", at: "2026-10-24T19:40:00Z", phase: WarningBeforeStart,
				static:  be + " starts at 2026-10-24 22:00 CEST Europe/Berlin (until 2026-10-25 05:00 CET)",
				clocked: be + " starts in 20m0s (2026-10-24 22:00 CEST Europe/Berlin, until 2026-10-25 05:00 CET)"},
			{name: "a second before the start, BeforeStart still", at: "2026-10-24T19:59:59Z", phase: WarningBeforeStart,
				static:  be + " starts at 2026-10-24 22:00 CEST Europe/Berlin (until 2026-10-25 05:00 CET)",
				clocked: be + " starts in 1s (2026-10-24 22:00 CEST Europe/Berlin, until 2026-10-25 05:00 CET)"},
			{name: "at the start, the Active warning counts elapsed time across the DST night", at: "2026-10-24T20:00:00Z", phase: WarningActive,
				static:  be + " is in force until 2026-10-25 05:00 CET Europe/Berlin",
				clocked: be + " is in force for 8h0m0s more (until 2026-10-25 05:00 CET Europe/Berlin)"},
			{name: "a second before the lead of the end, Active still", at: "2026-10-25T02:59:59Z", phase: WarningActive,
				static:  be + " is in force until 2026-10-25 05:00 CET Europe/Berlin",
				clocked: be + " is in force for 1h0m1s more (until 2026-10-25 05:00 CET Europe/Berlin)"},
			{name: "at the lead before the end, the BeforeEnd warning", at: "2026-10-25T03:00:00Z", phase: WarningBeforeEnd,
				static:  be + " ends at 2026-10-25 05:00 CET Europe/Berlin",
				clocked: be + " ends in 1h0m0s (2026-10-25 05:00 CET Europe/Berlin)"},
			{name: "a second before the end, BeforeEnd still", at: "2026-10-25T03:59:59Z", phase: WarningBeforeEnd,
				static:  be + " ends at 2026-10-25 05:00 CET Europe/Berlin",
				clocked: be + " ends in 1s (2026-10-25 05:00 CET Europe/Berlin)"},
			{name: "at the end, nothing warns", at: "2026-10-25T04:00:00Z"},
		},
		// 2026-10-31 22:00 EDT is 02:00Z on Nov 1; eight hours later,
		// 10:00Z, the wall clock reads 05:00 EST.
		"America/New_York": {
			{name: "a second before the lead, nothing warns", at: "2026-11-01T00:59:59Z"},
			{name: "at the lead before the start, the BeforeStart warning", at: "2026-11-01T01:00:00Z", phase: WarningBeforeStart,
				static:  be + " starts at 2026-10-31 22:00 EDT America/New_York (until 2026-11-01 05:00 EST)",
				clocked: be + " starts in 1h0m0s (2026-10-31 22:00 EDT America/New_York, until 2026-11-01 05:00 EST)"},
			{name: "at the start, the Active warning counts elapsed time across the DST night", at: "2026-11-01T02:00:00Z", phase: WarningActive,
				static:  be + " is in force until 2026-11-01 05:00 EST America/New_York",
				clocked: be + " is in force for 8h0m0s more (until 2026-11-01 05:00 EST America/New_York)"},
			{name: "in the second 01:30 of the repeated hour, Active", at: "2026-11-01T06:30:00Z", phase: WarningActive,
				static:  be + " is in force until 2026-11-01 05:00 EST America/New_York",
				clocked: be + " is in force for 3h30m0s more (until 2026-11-01 05:00 EST America/New_York)"},
			{name: "at the lead before the end, the BeforeEnd warning", at: "2026-11-01T09:00:00Z", phase: WarningBeforeEnd,
				static:  be + " ends at 2026-11-01 05:00 EST America/New_York",
				clocked: be + " ends in 1h0m0s (2026-11-01 05:00 EST America/New_York)"},
			{name: "a second before the end, BeforeEnd still", at: "2026-11-01T09:59:59Z", phase: WarningBeforeEnd,
				static:  be + " ends at 2026-11-01 05:00 EST America/New_York",
				clocked: be + " ends in 1s (2026-11-01 05:00 EST America/New_York)"},
			{name: "at the end, nothing warns", at: "2026-11-01T10:00:00Z"},
		},
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestWarningAt: which warning a write reads at instants just before, at
// and after each warning edge of a DST night, with and without a clock.
func TestWarningAt(t *testing.T) {
	for zone, cases := range warnNights() {
		spec := tenPM(zone)
		for _, c := range cases {
			t.Run(zone+": "+c.name, func(t *testing.T) {
				at := mustTime(t, c.at)
				for _, clocked := range []bool{false, true} {
					in := Input{Plan: warnPlan(t, spec, at), Now: at, Warnings: true, Clock: clocked}
					w, ok := WarningAt(in)
					want := c.static
					if clocked {
						want = c.clocked
					}
					if ok != (c.phase != "") || w.Phase != c.phase || w.Message != want {
						t.Errorf("clock %v: WarningAt = %v %q %q, want %q %q", clocked, ok, w.Phase, w.Message, c.phase, want)
					}
				}
			})
		}
	}
}

// TestWarnings_EnginesAgree evaluates the warning policies with cel-go:
// kyverno-cel rendered once at the lead before the start (clocked, no
// pass after it), Kyverno's time.now() fixed at each instant; kyverno-cel
// without a clock and vap rendered at each instant (the pass swaps the
// static text). The warning each engine answers is WarningAt's, and the
// warning policy never refuses or records.
func TestWarnings_EnginesAgree(t *testing.T) {
	req := create(gvkDeployment, deployment("web", nil, 1, "nginx:1"))
	for zone, cases := range warnNights() {
		spec := tenPM(zone)
		armAt := mustTime(t, cases[1].at) // the lead before the start
		clocked := mustRender(t, Input{Plan: warnPlan(t, spec, armAt), Now: armAt, Target: TargetKyvernoCEL, Clock: true, Warnings: true})
		for _, c := range cases {
			at := mustTime(t, c.at)
			t.Run(fmt.Sprintf("%s: %s (kyverno-cel, clocked)", zone, c.name), func(t *testing.T) {
				celClockNow.Store(at.UnixNano())
				checkWarned(t, evaluateCEL(t, TargetKyvernoCEL, clocked, req).warnings, c.clocked)
			})
			for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
				t.Run(fmt.Sprintf("%s: %s (%s, rendered at the instant)", zone, c.name, target), func(t *testing.T) {
					res := mustRender(t, Input{Plan: warnPlan(t, spec, at), Now: at, Target: target, Warnings: true})
					celClockNow.Store(at.UnixNano())
					checkWarned(t, evaluateCEL(t, target, res, req).warnings, c.static)
				})
			}
		}
	}
}

func checkWarned(t *testing.T, got []string, want string) {
	t.Helper()
	switch {
	case want == "" && len(got) > 0:
		t.Errorf("warned %q, want no warning", got)
	case want != "" && (len(got) != 1 || got[0] != want):
		t.Errorf("warned %q, want %q", got, want)
	}
}

// TestWarnings_Render: what a render holds, per target and phase.
func TestWarnings_Render(t *testing.T) {
	spec := tenPM("Europe/Berlin")
	before := mustTime(t, "2026-10-24T19:30:00Z") // 21:30 CEST, within the lead
	early := mustTime(t, "2026-10-24T18:30:00Z")  // before the lead
	cases := []struct {
		name      string
		in        Input
		templates []string
	}{
		{name: "without Input.Warnings nothing of them is rendered",
			in: Input{Plan: warnPlan(t, spec, before), Now: before, Target: TargetVAP}},
		{name: "within the lead, vap puts the warning policy alone in place",
			in: Input{Plan: warnPlan(t, spec, before), Now: before, Target: TargetVAP, Warnings: true}, templates: []string{WarnTemplate}},
		{name: "within the lead, kyverno without a clock puts the warning policy alone in place",
			in: Input{Plan: warnPlan(t, spec, before), Now: before, Target: TargetKyverno, Warnings: true}, templates: []string{WarnTemplate}},
		{name: "within the lead, a clocked kyverno-cel render pre-arms the plan's policy and the warning policy",
			in:        Input{Plan: warnPlan(t, spec, before), Now: before, Target: TargetKyvernoCEL, Clock: true, Warnings: true},
			templates: []string{"create", WarnTemplate}},
		{name: "before the lead, nothing is in place",
			in: Input{Plan: warnPlan(t, spec, early), Now: early, Target: TargetVAP, Warnings: true}},
		{name: "a plan with warnings disabled puts nothing in place within the lead",
			in: Input{Plan: func() *plan.ProtectionPlan {
				p := warnPlan(t, spec, before)
				p.Spec.Warnings = &plan.Warnings{Disabled: true}
				return p
			}(), Now: before, Target: TargetVAP, Warnings: true}},
		{name: "a plan's lead of two hours puts the warning policy in place earlier than the embedder's",
			in: Input{Plan: func() *plan.ProtectionPlan {
				p := warnPlan(t, spec, early)
				p.Spec.Warnings = &plan.Warnings{Lead: &metav1.Duration{Duration: 2 * time.Hour}}
				return p
			}(), Now: early, Target: TargetVAP, Warnings: true}, templates: []string{WarnTemplate}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustRender(t, c.in)
			var got []string
			for _, p := range res.Policies {
				got = append(got, p.Template)
			}
			if strings.Join(got, ",") != strings.Join(c.templates, ",") {
				t.Errorf("templates %q, want %q", got, c.templates)
			}
			if Armed(c.in) != (len(c.templates) > 0) {
				t.Errorf("Armed = %v with %d policies", Armed(c.in), len(got))
			}
		})
	}
}

// TestNextWarningEdge: the pass comes back when a static warning changes
// and, on a clocked render, when the warning policy is due.
func TestNextWarningEdge(t *testing.T) {
	spec := tenPM("Europe/Berlin")
	cases := []struct {
		name    string
		at      string
		clocked bool
		want    string
	}{
		{name: "before the lead, the next edge is the lead before the start", at: "2026-10-24T12:00:00Z", want: "2026-10-24T19:00:00Z"},
		{name: "within the lead without a clock, the start swaps the text", at: "2026-10-24T19:30:00Z", want: "2026-10-24T20:00:00Z"},
		{name: "at the start without a clock, the lead before the end", at: "2026-10-24T20:00:00Z", want: "2026-10-25T03:00:00Z"},
		{name: "within the lead before the end without a clock, the end", at: "2026-10-25T03:30:00Z", want: "2026-10-25T04:00:00Z"},
		{name: "a clocked render comes back only at the next lead before a start (22:00 CET is 21:00Z)", at: "2026-10-24T20:00:00Z", clocked: true,
			want: "2026-10-25T20:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := mustTime(t, c.at)
			got, ok := NextWarningEdge(Input{Plan: warnPlan(t, spec, at), Now: at, Target: TargetKyvernoCEL, Clock: c.clocked, Warnings: true})
			if !ok || !got.Equal(mustTime(t, c.want)) {
				t.Errorf("NextWarningEdge = %s %v, want %s", got.UTC().Format(time.RFC3339), ok, c.want)
			}
		})
	}
}

// TestWarnings_PlanNameIsInert: a plan name that looks like a Kyverno
// variable or CEL reaches the warning as written.
func TestWarnings_PlanNameIsInert(t *testing.T) {
	spec := tenPM("Europe/Berlin")
	at := mustTime(t, "2026-10-24T19:40:00Z")
	const hostile = `x' + string(request.userInfo) + '$(y) {{ request.userInfo.username }} "\`
	p := warnPlan(t, spec, at)
	p.Spec.Name = hostile
	req := create(gvkDeployment, deployment("web", nil, 1, "nginx:1"))
	for _, in := range []Input{
		{Plan: p, Now: at, Target: TargetKyvernoCEL, Clock: true, Warnings: true},
		{Plan: p, Now: at, Target: TargetVAP, Warnings: true},
	} {
		celClockNow.Store(at.UnixNano())
		res := mustRender(t, in)
		w, _ := WarningAt(in)
		if !strings.Contains(w.Message, hostile) {
			t.Fatalf("WarningAt %q does not hold the name", w.Message)
		}
		checkWarned(t, evaluateCEL(t, in.Target, res, req).warnings, w.Message)
	}
	res := mustRender(t, Input{Plan: p, Now: at, Target: TargetKyverno, Clock: true, Warnings: true})
	if y := string(mustYAML(t, res)); strings.Contains(y, "request.userInfo.username") || strings.Contains(y, "$(y)") {
		t.Errorf("the kyverno render carries the name's text outside base64")
	}
}

// TestWarningRule_NoCatalogRuleLooksLikeOne: the violations package drops
// records by rule name; no catalog rule may be taken for a warning.
func TestWarningRule_NoCatalogRuleLooksLikeOne(t *testing.T) {
	for _, tp := range Catalog() {
		for _, r := range tp.Rules() {
			if IsWarningRule(r.Name) || IsWarningRule(compactRuleName(tp.Name(), r)) {
				t.Errorf("template %s: rule %s reads as a warning rule", tp.Name(), r.Name)
			}
		}
	}
	for _, p := range []WarningPhase{WarningBeforeStart, WarningActive, WarningBeforeEnd} {
		if !IsWarningRule(WarningRule(p)) {
			t.Errorf("%s: %s is not a warning rule", p, WarningRule(p))
		}
	}
}

// TestWarnings_ApplicationScope: under an applications scope the warning
// policy warns of writes to the application's objects only, /scale
// included (read on the parent's labels), as the plan's own policies
// decide what is in scope.
func TestWarnings_ApplicationScope(t *testing.T) {
	p := appPlan(plan.ModeEnforce, tpl("scaling"))
	now := mustTime(t, "2026-07-23T12:00:00Z")
	w, err := window.Parse(p.Spec.Window)
	if err != nil || !w.Active(now) {
		t.Fatalf("the test's window is not active at %s (%v)", now, err)
	}
	relabel := func(labels map[string]string) Request {
		old := deployment("web", labels, 1, "nginx:1")
		next := deployment("web", labels, 1, "nginx:1")
		next["metadata"].(obj)["annotations"] = obj{"note": "x"}
		return update(gvkDeployment, old, next)
	}
	cases := []struct {
		name   string
		req    Request
		warned bool
	}{
		{"a change of the application's Deployment is warned", relabel(checkoutLabels), true},
		{"a change of another application's Deployment is not", relabel(map[string]string{"app": "search"}), false},
		{"a scale of the application's Deployment is warned", scaleReq(gvkDeployment, "web", 1, 3), true},
	}
	for _, target := range []Target{TargetKyvernoCEL, TargetVAP} {
		in := Input{Plan: p, Applications: []plan.Application{checkoutApp()}, Now: now, Target: target, Warnings: true}
		res := mustRender(t, in)
		want, ok := WarningAt(in)
		if !ok || want.Phase != WarningActive {
			t.Fatalf("%s: WarningAt %v %q", target, ok, want.Phase)
		}
		for _, c := range cases {
			t.Run(string(target)+": "+c.name, func(t *testing.T) {
				got := evaluateCEL(t, target, res, c.req).warnings
				if c.warned {
					checkWarned(t, got, want.Message)
				} else {
					checkWarned(t, got, "")
				}
			})
		}
	}
}
