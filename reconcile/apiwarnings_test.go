package reconcile_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/health"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/reconcile"
)

// deprecated is the warning kube-apiserver 1.36.3 returned to every write
// of a kyverno.io/v1 Policy with Kyverno 1.19.1 installed
// (health/testdata/kyverno-1.19.1/commands.log).
const deprecated = "kyverno.io/v1 Policy is deprecated and will be removed in a future release; migrate to NamespacedValidatingPolicy and the other namespaced policy types (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/"

// warnEveryWrite is an API server that answers each write with ws.
func warnEveryWrite(ws ...string) func(health.Action) []string {
	return func(health.Action) []string { return ws }
}

// apiWarnings are the plan's events about API server warnings.
func apiWarnings(w *world) []string {
	var out []string
	for _, e := range w.events {
		if strings.Contains(e, " "+reconcile.EventAPIWarning+": ") {
			out = append(out, e)
		}
	}
	return out
}

func TestSurfaceWarnings(t *testing.T) {
	putInPlace := func(warn func(health.Action) []string) *world {
		w := newWorld("shop", "payments")
		w.warn = warn
		w.add(freeze("xmas", "shop", "payments"))
		w.pass(start.Add(-time.Hour))
		w.pass(start)
		return w
	}
	repair := func(w *world, at time.Duration) reconcile.Output {
		delete(w.policies, w.keys()[0])
		return w.passPlan("xmas", start.Add(at))
	}
	cases := map[string]struct {
		world func(t *testing.T) *world
		act   func(t *testing.T, w *world) reconcile.Output
		// want are the events about warnings the act told (after the
		// world's own), the Output's warnings, and the condition after.
		wantEvents   int
		wantNote     string // of the event, when not the warnings one a line
		wantWarnings []string
		wantStatus   metav1.ConditionStatus
		wantMessage  string
	}{
		"the deprecation warning of the writes that put a plan in place is shown: an event, the condition and Output.Warnings": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "payments")
				w.warn = warnEveryWrite(deprecated)
				w.add(freeze("xmas", "shop", "payments"))
				w.pass(start.Add(-time.Hour))
				return w
			},
			act:          func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			wantEvents:   1,
			wantWarnings: []string{deprecated},
			wantStatus:   metav1.ConditionTrue, wantMessage: deprecated,
		},
		"the same warning on a later repair shows nothing again": {
			world:      func(t *testing.T) *world { return putInPlace(warnEveryWrite(deprecated)) },
			act:        func(t *testing.T, w *world) reconcile.Output { return repair(w, time.Minute) },
			wantStatus: metav1.ConditionTrue, wantMessage: deprecated,
		},
		"a pass that writes nothing leaves the condition as it is": {
			world:      func(t *testing.T) *world { return putInPlace(warnEveryWrite(deprecated)) },
			act:        func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start.Add(time.Minute)) },
			wantStatus: metav1.ConditionTrue, wantMessage: deprecated,
		},
		"writes that draw no warning set the condition False": {
			world: func(t *testing.T) *world { return putInPlace(warnEveryWrite(deprecated)) },
			act: func(t *testing.T, w *world) reconcile.Output {
				w.warn = nil
				return repair(w, time.Minute)
			},
			wantStatus: metav1.ConditionFalse, wantMessage: "the last writes of the plan's policies drew no warning from the API server",
		},
		"a warning that comes back after writes without one is shown again": {
			world: func(t *testing.T) *world {
				w := putInPlace(warnEveryWrite(deprecated))
				w.warn = nil
				repair(w, time.Minute)
				w.warn = warnEveryWrite(deprecated)
				return w
			},
			act:          func(t *testing.T, w *world) reconcile.Output { return repair(w, 2*time.Minute) },
			wantEvents:   1,
			wantWarnings: []string{deprecated},
			wantStatus:   metav1.ConditionTrue, wantMessage: deprecated,
		},
		"a second, different warning is shown once and joins the first in the condition": {
			world: func(t *testing.T) *world { return putInPlace(warnEveryWrite(deprecated)) },
			act: func(t *testing.T, w *world) reconcile.Output {
				w.warn = warnEveryWrite(deprecated, "another warning")
				return repair(w, time.Minute)
			},
			wantEvents:   1,
			wantWarnings: []string{"another warning"},
			wantStatus:   metav1.ConditionTrue, wantMessage: "another warning\n" + deprecated,
		},
		"two new warnings in one pass are one event with a line each (a recorder folds a second event into the first's series)": {
			world: func(t *testing.T) *world {
				w := newWorld("shop", "payments")
				w.warn = warnEveryWrite(deprecated, "another warning")
				w.add(freeze("xmas", "shop", "payments"))
				w.pass(start.Add(-time.Hour))
				return w
			},
			act:          func(t *testing.T, w *world) reconcile.Output { return w.passPlan("xmas", start) },
			wantEvents:   1,
			wantNote:     deprecated + "\nanother warning",
			wantWarnings: []string{deprecated, "another warning"},
			wantStatus:   metav1.ConditionTrue, wantMessage: "another warning\n" + deprecated,
		},
		"a plan whose writes never warn has no APIWarnings condition": {
			world: func(t *testing.T) *world { return putInPlace(nil) },
			act:   func(t *testing.T, w *world) reconcile.Output { return repair(w, time.Minute) },
		},
		"a long warning spread over lines is kept as one line of 512 bytes, so it is not shown twice": {
			world: func(t *testing.T) *world {
				return putInPlace(warnEveryWrite("first line\n  " + strings.Repeat("é", 400)))
			},
			act:         func(t *testing.T, w *world) reconcile.Output { return repair(w, time.Minute) },
			wantStatus:  metav1.ConditionTrue,
			wantMessage: "first line " + strings.Repeat("é", 250),
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			w := c.world(t)
			before := len(apiWarnings(w))
			out := c.act(t, w)
			if got := len(apiWarnings(w)) - before; got != c.wantEvents {
				t.Errorf("%d %s events, want %d: %v", got, reconcile.EventAPIWarning, c.wantEvents, apiWarnings(w))
			}
			if c.wantEvents == 1 {
				note := c.wantNote
				if note == "" {
					note = strings.Join(c.wantWarnings, "\n")
				}
				if got := apiWarnings(w)[before]; !strings.HasSuffix(got, ": "+note) {
					t.Errorf("event %q, want the note %q", got, note)
				}
			}
			if !slices.Equal(out.Warnings, c.wantWarnings) {
				t.Errorf("Output.Warnings = %q, want %q", out.Warnings, c.wantWarnings)
			}
			got := cond(w.plans["xmas"], plan.ConditionAPIWarnings)
			if got.Status != c.wantStatus || got.Message != c.wantMessage {
				t.Errorf("condition %s = %s %q, want %s %q", plan.ConditionAPIWarnings, got.Status, got.Message, c.wantStatus, c.wantMessage)
			}
		})
	}
}

// A restarted embedder reads the condition from the stored plan: the
// warning it showed before is not shown again.
func TestSurfaceWarningsAfterRestart(t *testing.T) {
	w := newWorld("shop", "payments")
	w.warn = warnEveryWrite(deprecated)
	w.add(freeze("xmas", "shop", "payments"))
	w.pass(start.Add(-time.Hour))
	w.pass(start)
	stored := w.plans["xmas"].DeepCopy()

	restarted := newWorld("shop", "payments")
	restarted.warn = w.warn
	restarted.plans["xmas"] = stored
	restarted.records = w.records
	for k, v := range w.policies {
		restarted.policies[k] = v
	}
	delete(restarted.policies, restarted.keys()[0])
	out := restarted.passPlan("xmas", start.Add(time.Minute))
	if len(out.Warnings) != 0 || len(apiWarnings(restarted)) != 0 {
		t.Errorf("after a restart: warnings %q, events %v; want none", out.Warnings, apiWarnings(restarted))
	}
}

// The API server warns on every write of a kyverno.io/v1 Policy; the plan
// shows the warning once, however many times its policies are written.
func ExampleDecide_warnings() {
	w := newWorld("shop", "payments")
	w.warn = warnEveryWrite("kyverno.io/v1 Policy is deprecated")
	w.add(freeze("xmas", "shop", "payments"))
	w.pass(start.Add(-time.Hour))
	for i := range 3 { // put in place, then two repairs
		if i > 0 {
			delete(w.policies, w.keys()[0])
		}
		out := w.passPlan("xmas", start.Add(time.Duration(i)*time.Minute))
		fmt.Printf("pass %d: log %q\n", i+1, out.Warnings)
	}
	c := cond(w.plans["xmas"], plan.ConditionAPIWarnings)
	fmt.Println(c.Status, c.Reason, c.Message)
	fmt.Println(len(apiWarnings(w)), "event")
	// Output:
	// pass 1: log ["kyverno.io/v1 Policy is deprecated"]
	// pass 2: log []
	// pass 3: log []
	// True APIServerWarned kyverno.io/v1 Policy is deprecated
	// 1 event
}
