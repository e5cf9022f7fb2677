package report

import (
	"regexp"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
)

// healthRowRect is one rectangle of the run picture's health row, as the
// HTML page draws it: y="64.0" (healthY) is that row's top.
var healthRowRect = regexp.MustCompile(`<rect class="(hl-[a-z]+)" x="([0-9.]+)" y="64\.0" width="([0-9.]+)"`)

// TestTimeline_HealthRow checks the health row of the run picture in the
// rendered page: green only where a health check stated the plan's
// health, grey where an active period had no check (yet), as the Health
// card says "Unknown" for a run without any check. A sample states the
// health from its instant on (UnhealthyPeriods), so time before the first
// check of an active period is not known to be healthy.
func TestTimeline_HealthRow(t *testing.T) {
	night1, end1 := at("Mon Jul 20 2026 20:00:00"), at("Tue Jul 21 2026 04:00:00")
	night2, end2 := at("Tue Jul 21 2026 20:00:00"), at("Wed Jul 22 2026 04:00:00")
	type span struct {
		class    string
		from, to time.Time
	}
	tests := []struct {
		name   string
		health []HealthSample
		want   []span
	}{
		{"a run with no health checks draws a grey band, not green", nil,
			[]span{{"hl-none", night1, end1}, {"hl-none", night2, end2}}},
		{"an active period is grey until its first check and green after it",
			[]HealthSample{{At: at("Tue Jul 21 2026 22:00:00"), Healthy: true, Reason: "AllPoliciesMatch"}},
			[]span{{"hl-none", night1, end1}, {"hl-none", night2, at("Tue Jul 21 2026 22:00:00")}, {"hl-ok", at("Tue Jul 21 2026 22:00:00"), end2}}},
		{"a check taken while scheduled colours no active period",
			[]HealthSample{{At: at("Tue Jul 21 2026 12:00:00"), Healthy: true, Reason: "AllPoliciesMatch"}},
			[]span{{"hl-none", night1, end1}, {"hl-none", night2, end2}}},
		// The second before each night's first check is grey too, but
		// narrower than the picture draws (0.006 of its 880 units).
		{"the nightly run is green from each night's first check", nightlyHealth(),
			[]span{{"hl-ok", night1.Add(time.Second), end1}, {"hl-ok", night2.Add(time.Second), end2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := nightlyInput(t)
			in.Health = tt.health
			r := mustBuild(t, in)
			sc := scale{from: r.Timeline.Phases[0].Start, span: r.RunEnd.Sub(r.Timeline.Phases[0].Start)}
			var want []string
			for _, s := range tt.want {
				x0, x1 := sc.x(s.from), sc.x(s.to)
				want = append(want, s.class+" x="+num(x0)+" width="+num(x1-x0))
			}
			var got []string
			for _, m := range healthRowRect.FindAllStringSubmatch(string(mustRender(t, r, HTML)), -1) {
				got = append(got, m[1]+" x="+m[2]+" width="+m[3])
			}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("the health row's rectangles (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHTML_HealthWithoutChecks: when no health check was taken while the
// plan was active, the page says its health is unknown in every place,
// and that grey means not checked.
func TestHTML_HealthWithoutChecks(t *testing.T) {
	tests := []struct {
		name           string
		health         []HealthSample
		card, sentence string
	}{
		{"a run with no health checks is Unknown, not healthy", nil,
			`<div class="value">Unknown</div><div class="detail">no health checks recorded</div>`,
			`<p>No health check recorded: the plan&#39;s health while active is unknown.</p>`},
		{"a run checked only while scheduled is Unknown, not healthy",
			[]HealthSample{{At: at("Tue Jul 21 2026 12:00:00"), Healthy: true, Reason: "AllPoliciesMatch"}},
			`<div class="value">Unknown</div><div class="detail">1 check, none while active</div>`,
			`<p>1 health check recorded, none while the plan was active: its health while active is unknown.</p>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := nightlyInput(t)
			in.Health = tt.health
			page := string(mustRender(t, mustBuild(t, in), HTML))
			for _, want := range []string{tt.card, tt.sentence,
				`<rect class="hl-none" x="1" y="1" width="20" height="12" /></svg>not checked</span>`,
				`<rect class="hl-none" x="1" y="1" width="20" height="12" /></svg>health not checked</span>`,
			} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if strings.Contains(page, "no unhealthy time") || strings.Contains(page, "</svg>healthy · ") {
				t.Errorf("the page says the plan was healthy, with no health check while active to know it")
			}
		})
	}
}
