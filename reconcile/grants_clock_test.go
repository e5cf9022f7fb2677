package reconcile_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// TestClock_GrantEndsInThePolicies follows a break-glass grant through
// the passes with Settings.Clock on each clock target (issue 20): the
// pass after the grant puts the policies in place with the grant's
// instants, later passes within the grant write nothing (the hash does
// not change with the instant), the next edge is the grant's expiry, and
// the pass after it takes the spent grant out and records the expiry.
// On vap the granted user is excluded as before, until that pass.
func TestClock_GrantEndsInThePolicies(t *testing.T) {
	granted := start.Add(time.Hour)
	expiry := granted.Add(30 * time.Minute)
	endText := expiry.UTC().Format(time.RFC3339)
	carlB64 := base64.StdEncoding.EncodeToString([]byte("carl"))
	for _, target := range []render.Target{render.TargetKyverno, render.TargetKyvernoCEL, render.TargetVAP} {
		t.Run(string(target), func(t *testing.T) {
			w := newWorld("shop", "payments")
			w.settings.Clock, w.settings.Target = true, target
			w.add(freeze("xmas", "shop", "payments"))
			w.passPlan("xmas", start.Add(time.Second))
			if p := w.plans["xmas"]; p.Status.Phase != plan.PhaseActive {
				t.Fatalf("phase %s", p.Status.Phase)
			}
			ga, ex := metav1.NewTime(granted), metav1.NewTime(expiry)
			w.plans["xmas"].Status.Grants = []plan.Grant{{ID: "xmas-g1", Users: []string{"carl"}, Reason: "INC-4711",
				Duration: metav1.Duration{Duration: 30 * time.Minute}, RequestedBy: "carl", RequestedAt: ga,
				GrantedBy: "oscar", GrantedAt: &ga, ExpiresAt: &ex}}

			w.writes = 0
			out := w.passPlan("xmas", granted.Add(time.Second))
			live := liveText(t, w, "xmas")
			if w.writes == 0 {
				t.Fatal("the pass after the grant wrote nothing")
			}
			if out.NextEdge == nil || !out.NextEdge.Equal(expiry) {
				t.Errorf("next edge %v, want the grant's expiry %s", out.NextEdge, expiry)
			}
			switch target {
			case render.TargetKyverno:
				if !strings.Contains(live, endText) || !strings.Contains(live, carlB64) {
					t.Errorf("the kyverno policies carry neither the grant's end %s nor carl's base64", endText)
				}
			case render.TargetKyvernoCEL:
				if !strings.Contains(live, "exempt-granted-requesters") || !strings.Contains(live, endText) {
					t.Errorf("the kyverno-cel policies carry no timed grant ending %s", endText)
				}
			case render.TargetVAP:
				if strings.Contains(live, endText) || !strings.Contains(live, `"carl"`) {
					t.Errorf("vap: carl is not excluded as a requester, or an instant of the grant is rendered")
				}
			}

			w.writes = 0
			w.passPlan("xmas", granted.Add(10*time.Minute))
			if w.writes != 0 {
				t.Errorf("a pass within the grant wrote %d times: the render changed with the instant", w.writes)
			}

			w.writes = 0
			w.passPlan("xmas", expiry.Add(time.Second))
			if live := liveText(t, w, "xmas"); strings.Contains(live, endText) || strings.Contains(live, carlB64) || strings.Contains(live, `"carl"`) {
				t.Errorf("after the expiry's pass the policies still name the grant")
			}
			if w.writes == 0 {
				t.Error("the expiry's pass wrote nothing")
			}
			if !slices.ContainsFunc(w.plans["xmas"].Status.Timeline, func(e plan.TimelineEvent) bool { return e.Type == plan.EventGrantExpired }) {
				t.Error("no GrantExpired on the timeline")
			}
		})
	}
}

// liveText is the plan's live policies as one YAML text.
func liveText(t *testing.T, w *world, id string) string {
	t.Helper()
	var b strings.Builder
	for _, u := range w.live(id) {
		y, err := yaml.Marshal(u.Object)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(y)
	}
	return b.String()
}
