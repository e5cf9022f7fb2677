//go:build e2e

package matrix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
	"github.com/telark/protectionplans/render"
)

// warnedLog is what the operator logs for each warning reconcile shows.
const warnedLog = "the API server warned about the plan's policies"

// testAPIWarnings runs after the lifecycle and the matrix, whose plans'
// policies the operator wrote many times (put in place, repaired,
// withdrawn). On kyverno, Kyverno 1.19 answers every write of a
// kyverno.io/v1 Policy or ClusterPolicy with a deprecation warning: each
// plan shows each warning once, an APIWarnings condition holding it, one
// APIWarning event (no repeat: the recorder would make it a series) and
// one line of the operator's log. On the other targets no write warns:
// no condition, no event, no log line.
func testAPIWarnings(t *testing.T) {
	ctx := t.Context()
	var plans plan.ProtectionPlanList
	if err := s.c.List(ctx, &plans); err != nil {
		t.Fatal(err)
	}
	shown := map[string]int{} // "plan\x00warning" -> 1 per line of a True condition
	exists := map[string]bool{}
	for _, p := range plans.Items {
		exists[p.Name] = true
		c := meta.FindStatusCondition(p.Status.Conditions, plan.ConditionAPIWarnings)
		if c == nil || c.Status != metav1.ConditionTrue {
			continue
		}
		for _, w := range strings.Split(c.Message, "\n") {
			shown[p.Name+"\x00"+w] = 1
		}
	}
	// The event recorder sends events asynchronously.
	time.Sleep(time.Second)
	var evs corev1.EventList
	if err := s.c.List(ctx, &evs, client.MatchingFields{"reason": reconcile.EventAPIWarning}); err != nil {
		t.Fatal(err)
	}
	// occurrences of the APIWarning event by plan (a repeat within
	// minutes is a series of the same event), and its notes.
	told, notes, toldAll := map[string]int{}, map[string]string{}, 0
	for _, e := range evs.Items {
		at := e.EventTime.Time
		if at.IsZero() {
			at = e.FirstTimestamp.Time
		}
		if e.InvolvedObject.Kind != "ProtectionPlan" || at.Before(s.run.started) {
			continue // an earlier target's run
		}
		n := 1
		if e.Series != nil && e.Series.Count > 1 {
			n = int(e.Series.Count)
		}
		if int(e.Count) > n {
			n = int(e.Count)
		}
		toldAll += n
		// Plans deleted during the run (lifecycle) took their condition
		// with them.
		if exists[e.InvolvedObject.Name] {
			told[e.InvolvedObject.Name] += n
			notes[e.InvolvedObject.Name] += e.Message + "\n"
		}
	}
	logged := 0
	if b, err := os.ReadFile(filepath.Join(s.env.Dir, string(tgt.target), "operator.log")); err == nil {
		logged = strings.Count(string(b), warnedLog)
	} else {
		t.Error(err)
	}

	if tgt.target != render.TargetKyverno {
		if len(shown) > 0 || toldAll > 0 || logged > 0 {
			t.Errorf("no write of %s should warn: conditions %q, %d events, %d log lines", tgt.target, keys(shown), toldAll, logged)
		}
		return
	}
	deprecation := map[string]bool{}
	for k := range shown {
		if strings.Contains(k, "kyverno.io/v1 Policy is deprecated") || strings.Contains(k, "kyverno.io/v1 ClusterPolicy is deprecated") {
			deprecation[strings.Split(k, "\x00")[0]] = true
		}
	}
	if len(deprecation) < 5 {
		t.Errorf("%d plans hold Kyverno's deprecation warning in %s; want every plan whose policies were written: %q", len(deprecation), plan.ConditionAPIWarnings, keys(shown))
	}
	for k := range shown {
		id, w := strings.Split(k, "\x00")[0], strings.Split(k, "\x00")[1]
		if told[id] != 1 || !strings.Contains(notes[id], w) {
			t.Errorf("plan %s, warning %q: told %d times in events (notes %q), want once", id, w, told[id], notes[id])
		}
	}
	for id, n := range told {
		if !deprecation[id] {
			t.Errorf("plan %s: %d APIWarning events (%q), yet its condition does not hold the deprecation", id, n, notes[id])
		}
	}
	if logged != toldAll {
		t.Errorf("%d log lines %q, want one per event (%d, plans deleted during the run included)", logged, warnedLog, toldAll)
	}
	var others []string
	for k := range shown {
		if w := strings.Split(k, "\x00")[1]; !strings.Contains(w, "is deprecated") && !slices.Contains(others, w) {
			others = append(others, w)
		}
	}
	t.Logf("%d plans show Kyverno's deprecation warning once (condition, one event, one log line); other warnings shown: %q", len(deprecation), others)
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, strings.ReplaceAll(k, "\x00", ": "))
	}
	return out
}
